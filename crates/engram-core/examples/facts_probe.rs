//! The rules' facts on many turns at once: reads JSON lines `{"id", "text"}`
//! on stdin and prints, per turn, each candidate the checks keep (a
//! debugging aid for the fact set: `crates/engram-bench/facts/`).
use std::io::BufRead;

use engram_core::extract::{InputMessage, Role, RulesExtractor};
use engram_core::policy::check_candidate;

fn main() {
    for line in std::io::stdin().lock().lines().map_while(Result::ok) {
        let Ok(turn) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        let text = turn["text"].as_str().unwrap_or("").to_owned();
        let m = InputMessage {
            role: Role::User,
            content: text.clone(),
            created_at: chrono::Utc::now(),
        };
        for mut c in RulesExtractor.extract_sync(&[m]) {
            if check_candidate(&mut c, &text, false).is_ok() {
                println!(
                    "{}\t{:?}\t{}\t{:?}\t{}",
                    turn["id"].as_str().unwrap_or(""),
                    c.action,
                    c.attribute,
                    c.value,
                    c.statement
                );
            }
        }
    }
}
