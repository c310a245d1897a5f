//! The LoCoMo conversations in `../shared` (never copied into the repository).

use chrono::{NaiveDateTime, TimeZone, Utc};

pub const DEFAULT_FILE: &str = "../shared/data/locomo/locomo-dev.json";

/// "1:56 pm on 8 May, 2023" → UTC.
pub fn session_time(s: &str) -> Option<chrono::DateTime<Utc>> {
    let t = NaiveDateTime::parse_from_str(s.trim(), "%I:%M %p on %d %B, %Y").ok()?;
    Some(Utc.from_utc_datetime(&t))
}
