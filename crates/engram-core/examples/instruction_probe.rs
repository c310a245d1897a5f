//! Prints what the instruction screen says of each argument (a debugging aid).
fn main() {
    for text in std::env::args().skip(1) {
        let why = engram_core::policy::instruction_reason(&text);
        let style = engram_core::policy::style_preference(&text);
        println!("{text:?}: {why:?} (style: {style})");
    }
}
