//! Prints what the rules extractor reads from each argument and what the
//! screens say of each candidate (a debugging aid).
use engram_core::extract::{InputMessage, Role, RulesExtractor};
use engram_core::policy::check_candidate;

fn main() {
    for text in std::env::args().skip(1) {
        let m = InputMessage {
            role: Role::User,
            content: text.clone(),
            created_at: chrono::Utc::now(),
        };
        for mut c in RulesExtractor.extract_sync(&[m]) {
            let verdict = check_candidate(&mut c, &text, false);
            println!(
                "{text:?}: {:?} {} = {:?} ({:?}) -> {verdict:?}",
                c.action, c.attribute, c.value, c.statement
            );
        }
    }
}
