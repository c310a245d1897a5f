#![warn(clippy::arithmetic_side_effects)]
//! Relative time phrases in what users say ("until Friday", "next week") resolved
//! against the time the message was said, as expiry hints for temporary facts.

use chrono::{DateTime, Datelike, NaiveTime, TimeZone, Utc, Weekday};
use regex::Regex;
use std::sync::LazyLock;

use crate::time::{add, days, seconds, sub};

static UNTIL_WEEKDAY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:until|till|til|through|until next)\s+(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b")
        .unwrap_or_else(|e| panic!("{e}"))
});
static FOR_SPAN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bfor\s+(?:the\s+next\s+)?(\d{1,3}|a|an|one|two|three|four|five|six|seven|ten)\s+(day|week|month)s?\b")
        .unwrap_or_else(|e| panic!("{e}"))
});

fn end_of_day(t: DateTime<Utc>) -> DateTime<Utc> {
    let end = t
        .date_naive()
        .and_time(NaiveTime::from_hms_opt(23, 59, 59).unwrap_or_default());
    Utc.from_utc_datetime(&end)
}

fn weekday(name: &str) -> Option<Weekday> {
    name.to_ascii_lowercase().parse().ok()
}

/// A count in digits or words ("3", "a", "two").
pub(crate) fn number(word: &str) -> Option<i64> {
    Some(match word.to_ascii_lowercase().as_str() {
        "a" | "an" | "one" => 1,
        "two" => 2,
        "three" => 3,
        "four" => 4,
        "five" => 5,
        "six" => 6,
        "seven" => 7,
        "eight" => 8,
        "nine" => 9,
        "ten" => 10,
        n => n.parse().ok()?,
    })
}

/// When a statement said at `said_at` stops being true, if its wording bounds it.
/// `None` means the text gives no bound (the fact is durable).
pub fn expiry_hint(text: &str, said_at: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let lower = text.to_lowercase();
    if let Some(c) = UNTIL_WEEKDAY.captures(text) {
        let target = weekday(&c[1])?;
        let today = said_at.weekday();
        let n_days = i64::from(target.days_since(today));
        return Some(end_of_day(add(said_at, days(n_days))));
    }
    if let Some(c) = FOR_SPAN.captures(text) {
        let n = number(&c[1])?;
        let unit = match c[2].to_ascii_lowercase().as_str() {
            "day" => 1,
            "week" => 7,
            _ => 30,
        };
        return Some(end_of_day(add(said_at, days(n.saturating_mul(unit)))));
    }
    let has = |p: &str| lower.contains(p);
    if has("tonight")
        || has("today")
        || has("this evening")
        || has("this morning")
        || has("right now")
    {
        return Some(end_of_day(said_at));
    }
    if has("tomorrow") {
        return Some(end_of_day(add(said_at, days(1))));
    }
    if has("this weekend") || has("this week") {
        let to_sunday = i64::from(Weekday::Sun.days_since(said_at.weekday()));
        return Some(end_of_day(add(said_at, days(to_sunday))));
    }
    if has("next weekend") || has("next week") {
        // The whole of next week, whatever day it starts: about ten days.
        return Some(end_of_day(add(said_at, days(10))));
    }
    if has("this month") {
        let first_next = if said_at.month() == 12 {
            Utc.with_ymd_and_hms(said_at.year().checked_add(1)?, 1, 1, 0, 0, 0)
        } else {
            Utc.with_ymd_and_hms(
                said_at.year(),
                said_at.month().saturating_add(1),
                1,
                0,
                0,
                0,
            )
        };
        return first_next.single().map(|t| sub(t, seconds(1)));
    }
    if has("next month") {
        return Some(end_of_day(add(said_at, days(40))));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn until_a_weekday_ends_at_the_end_of_that_day() {
        // 2026-11-30 is a Monday.
        let monday = at("2026-11-30T10:00:00Z");
        assert_eq!(
            expiry_hint("I'm in Lisbon until Friday", monday),
            Some(at("2026-12-04T23:59:59Z"))
        );
        assert_eq!(
            expiry_hint("in Rome till monday", monday),
            Some(at("2026-11-30T23:59:59Z"))
        );
        assert_eq!(
            expiry_hint("here until Sunday", monday),
            Some(at("2026-12-06T23:59:59Z"))
        );
    }

    #[test]
    fn spans_and_named_periods() {
        let monday = at("2026-11-30T10:00:00Z");
        assert_eq!(
            expiry_hint("I'm travelling next week", monday),
            Some(at("2026-12-10T23:59:59Z"))
        );
        assert_eq!(
            expiry_hint("staying for 3 days", monday),
            Some(at("2026-12-03T23:59:59Z"))
        );
        assert_eq!(
            expiry_hint("away for two weeks", monday),
            Some(at("2026-12-14T23:59:59Z"))
        );
        assert_eq!(
            expiry_hint("busy today", monday),
            Some(at("2026-11-30T23:59:59Z"))
        );
        assert_eq!(
            expiry_hint("off tomorrow", monday),
            Some(at("2026-12-01T23:59:59Z"))
        );
        assert_eq!(
            expiry_hint("on holiday this week", monday),
            Some(at("2026-12-06T23:59:59Z"))
        );
        assert_eq!(
            expiry_hint("swamped this month", monday),
            Some(at("2026-11-30T23:59:59Z"))
        );
        assert_eq!(expiry_hint("I live in Austin", monday), None);
    }
}
