//! Prints what the secret screen finds in each argument (a debugging aid).
fn main() {
    for text in std::env::args().skip(1) {
        for s in engram_core::policy::secret_spans(&text) {
            println!("{:?}: {} {:?}", text, s.kind, &text[s.range]);
        }
        println!("{}", engram_core::policy::redact_secrets(&text));
    }
}
