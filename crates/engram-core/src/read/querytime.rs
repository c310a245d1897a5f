#![warn(clippy::arithmetic_side_effects)]
//! Dates in questions: "in May 2023", "on 13 October, 2023", "last week". A
//! search whose query names a period prefers memories from that period,
//! judged against a reference time (the request's, or now) for relative
//! phrases. Memories are dated by when they were said (`created_at`, which
//! the add request may set from the conversation).

use chrono::{DateTime, Datelike, Days, Duration, NaiveDate, TimeZone, Utc};
use regex::Regex;
use serde::Serialize;
use std::sync::LazyLock;

use crate::time;
use crate::timephrase::number;

/// The period a query names: `[from, to)`, and the words that named it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QueryTime {
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
    pub phrase: String,
}

impl QueryTime {
    /// 1 inside the period, falling linearly to 0 one period's length (at
    /// least a day) outside it: what people say about a period is often said
    /// a little later ("last month", "the other day").
    pub fn closeness(&self, at: DateTime<Utc>) -> f32 {
        let span = self
            .to
            .signed_duration_since(self.from)
            .max(Duration::days(1));
        let outside = if at < self.from {
            self.from.signed_duration_since(at)
        } else if at >= self.to {
            at.signed_duration_since(self.to)
        } else {
            return 1.0;
        };
        (1.0 - outside.num_seconds() as f64 / span.num_seconds() as f64).max(0.0) as f32
    }

    /// The period widened by one span each side: where `closeness` is above 0.
    pub fn window(&self) -> (DateTime<Utc>, DateTime<Utc>) {
        let span = self
            .to
            .signed_duration_since(self.from)
            .max(Duration::days(1));
        (time::sub(self.from, span), time::add(self.to, span))
    }
}

const MONTHS: &str = "january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec";

fn re(pattern: &str) -> Regex {
    Regex::new(&pattern.replace("MONTH", MONTHS)).unwrap_or_else(|e| panic!("{e}"))
}

static DAY_MONTH_YEAR: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+(MONTH)\.?,?\s+(\d{4})\b"));
static MONTH_DAY_YEAR: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(MONTH)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b"));
static ISO_DAY: LazyLock<Regex> = LazyLock::new(|| re(r"\b(\d{4})-(\d{2})-(\d{2})\b"));
static MONTH_YEAR: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\b(MONTH)\.?,?\s+(\d{4})\b"));
static IN_MONTH: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:in|during|since|early|late|mid)[\s-]+(MONTH)\b"));
static IN_YEAR: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:in|during|of)\s+((?:19|20)\d{2})\b"));
static AGO: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten)\s+(day|week|month|year)s?\s+ago\b",
    )
});
static RELATIVE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\b(yesterday|today|(?:last|this|past)\s+(?:weekend|week|month|year))\b")
});

/// A month's number from its name or abbreviation (the regexes only let
/// those through): the first three letters decide.
fn month_number(name: &str) -> Option<u32> {
    let prefix = name.get(..3)?.to_ascii_lowercase();
    MONTHS
        .split('|')
        .take(12)
        .position(|m| m.starts_with(&prefix))
        .map(|i| (i as u32).saturating_add(1))
}

fn midnight(d: NaiveDate) -> DateTime<Utc> {
    Utc.from_utc_datetime(&d.and_hms_opt(0, 0, 0).unwrap_or_default())
}

fn day(y: i32, m: u32, d: u32) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
    let start = NaiveDate::from_ymd_opt(y, m, d)?;
    Some((
        midnight(start),
        midnight(start.checked_add_days(Days::new(1))?),
    ))
}

fn month(y: i32, m: u32) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
    let start = NaiveDate::from_ymd_opt(y, m, 1)?;
    let next = if m == 12 {
        NaiveDate::from_ymd_opt(y.checked_add(1)?, 1, 1)?
    } else {
        NaiveDate::from_ymd_opt(y, m.checked_add(1)?, 1)?
    };
    Some((midnight(start), midnight(next)))
}

fn year(y: i32) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
    Some((
        midnight(NaiveDate::from_ymd_opt(y, 1, 1)?),
        midnight(NaiveDate::from_ymd_opt(y.checked_add(1)?, 1, 1)?),
    ))
}

/// "May" is a month only when written as a name: "in may" is not a date.
fn is_month_word(text: &str) -> bool {
    !text.eq_ignore_ascii_case("may") || text.starts_with('M')
}

fn relative(phrase: &str, now: DateTime<Utc>) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
    let today = now.date_naive();
    let words: Vec<String> = phrase
        .split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    // NaiveDate arithmetic is checked: at the ends of the calendar a phrase
    // names no period rather than panicking.
    let back = |d: NaiveDate, n: u64| d.checked_sub_days(Days::new(n));
    let on = |d: NaiveDate, n: u64| d.checked_add_days(Days::new(n));
    let monday = back(today, u64::from(today.weekday().num_days_from_monday()))?;
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let span = |a: NaiveDate, b: NaiveDate| Some((midnight(a), midnight(b)));
    match words.as_slice() {
        ["yesterday"] => span(back(today, 1)?, today),
        ["today"] => span(today, on(today, 1)?),
        ["this", "week"] => span(monday, on(monday, 7)?),
        ["last" | "past", "week"] => span(back(monday, 7)?, monday),
        ["this", "weekend"] => {
            let sat = on(monday, 5)?;
            span(sat, on(sat, 2)?)
        }
        ["last" | "past", "weekend"] => span(back(monday, 2)?, monday),
        ["this", "month"] => month(now.year(), now.month()),
        ["last" | "past", "month"] => {
            let (y, m) = if now.month() == 1 {
                (now.year().checked_sub(1)?, 12)
            } else {
                (now.year(), now.month().saturating_sub(1))
            };
            month(y, m)
        }
        ["this", "year"] => year(now.year()),
        ["last" | "past", "year"] => year(now.year().checked_sub(1)?),
        _ => None,
    }
}

/// The period a query names, if any; relative phrases count from `now`.
/// The most specific form wins: a day over a month over a year.
pub fn detect(query: &str, now: DateTime<Utc>) -> Option<QueryTime> {
    // Clamped, so a period at the end of the calendar ("9999-12-31") is
    // still a valid timestamp in a response.
    let found = |range: Option<(DateTime<Utc>, DateTime<Utc>)>, phrase: &str| {
        range.map(|(from, to)| QueryTime {
            from: time::clamp(from),
            to: time::clamp(to),
            phrase: phrase.to_owned(),
        })
    };
    if let Some(c) = DAY_MONTH_YEAR.captures(query) {
        if is_month_word(&c[2]) {
            let r = day(c[3].parse().ok()?, month_number(&c[2])?, c[1].parse().ok()?);
            return found(r, &c[0]);
        }
    }
    if let Some(c) = MONTH_DAY_YEAR.captures(query) {
        if is_month_word(&c[1]) {
            let r = day(c[3].parse().ok()?, month_number(&c[1])?, c[2].parse().ok()?);
            return found(r, &c[0]);
        }
    }
    if let Some(c) = ISO_DAY.captures(query) {
        let r = day(c[1].parse().ok()?, c[2].parse().ok()?, c[3].parse().ok()?);
        return found(r, &c[0]);
    }
    if let Some(c) = MONTH_YEAR.captures(query) {
        if is_month_word(&c[1]) {
            return found(month(c[2].parse().ok()?, month_number(&c[1])?), &c[0]);
        }
    }
    if let Some(c) = IN_MONTH.captures(query) {
        if is_month_word(&c[1]) {
            // The latest such month that has begun by `now`.
            let m = month_number(&c[1])?;
            let y = if m <= now.month() {
                now.year()
            } else {
                now.year().checked_sub(1)?
            };
            return found(month(y, m), &c[0]);
        }
    }
    if let Some(c) = IN_YEAR.captures(query) {
        return found(year(c[1].parse().ok()?), &c[0]);
    }
    if let Some(c) = AGO.captures(query) {
        let n = number(&c[1])?;
        let unit = match c[2].to_ascii_lowercase().as_str() {
            "day" => Duration::days(1),
            "week" => Duration::days(7),
            "month" => Duration::days(30),
            _ => Duration::days(365),
        };
        // n has at most three digits, so `unit * n` is at most ~1,000 years.
        let at = now.checked_sub_signed(unit.checked_mul(i32::try_from(n).ok()?)?)?;
        let half = unit.checked_div(2)?;
        let range = at.checked_sub_signed(half).zip(at.checked_add_signed(half));
        return found(range, &c[0]);
    }
    if let Some(c) = RELATIVE.captures(query) {
        return found(relative(&c[1], now), &c[0]);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn range(q: &str, now: &str) -> Option<(String, String)> {
        detect(q, at(now)).map(|t| (t.from.to_rfc3339(), t.to.to_rfc3339()))
    }

    fn r(a: &str, b: &str) -> Option<(String, String)> {
        Some((at(a).to_rfc3339(), at(b).to_rfc3339()))
    }

    const NOW: &str = "2023-08-15T12:00:00Z"; // a Tuesday

    #[test]
    fn explicit_days_in_every_common_form() {
        let day = r("2023-10-13T00:00:00Z", "2023-10-14T00:00:00Z");
        assert_eq!(range("What did she show on October 13, 2023?", NOW), day);
        assert_eq!(range("What did she show on 13 October, 2023?", NOW), day);
        assert_eq!(range("on the 13th Oct 2023", NOW), day);
        assert_eq!(range("notes from 2023-10-13", NOW), day);
        assert_eq!(
            range("Who did Maria have dinner with on May 3, 2023?", NOW),
            r("2023-05-03T00:00:00Z", "2023-05-04T00:00:00Z")
        );
    }

    #[test]
    fn months_and_years() {
        let may = r("2023-05-01T00:00:00Z", "2023-06-01T00:00:00Z");
        assert_eq!(range("What did Maria do in May 2023?", NOW), may);
        assert_eq!(range("in May", NOW), may);
        assert_eq!(
            range("camping in December", NOW),
            r("2022-12-01T00:00:00Z", "2023-01-01T00:00:00Z"),
            "a month not yet begun this year is last year's"
        );
        assert_eq!(
            range("How many times in 2022?", NOW),
            r("2022-01-01T00:00:00Z", "2023-01-01T00:00:00Z")
        );
    }

    #[test]
    fn relative_phrases_count_from_the_reference_time() {
        assert_eq!(
            range("what did I do last week", NOW),
            r("2023-08-07T00:00:00Z", "2023-08-14T00:00:00Z")
        );
        assert_eq!(
            range("yesterday", NOW),
            r("2023-08-14T00:00:00Z", "2023-08-15T00:00:00Z")
        );
        assert_eq!(
            range("the trip last year", NOW),
            r("2022-01-01T00:00:00Z", "2023-01-01T00:00:00Z")
        );
        assert_eq!(
            range("last month", "2023-01-10T00:00:00Z"),
            r("2022-12-01T00:00:00Z", "2023-01-01T00:00:00Z")
        );
        assert_eq!(
            range("two weeks ago", NOW),
            r("2023-07-29T00:00:00Z", "2023-08-05T00:00:00Z")
        );
        assert_eq!(
            range("over the last weekend", NOW),
            r("2023-08-12T00:00:00Z", "2023-08-14T00:00:00Z")
        );
    }

    #[test]
    fn no_date_no_period() {
        for q in [
            "What may I eat?",
            "I may go in may",
            "what is my favourite colour",
            "room 2023",
            "on February 30, 2023",
        ] {
            assert_eq!(detect(q, at(NOW)), None, "{q}");
        }
    }

    #[test]
    fn closeness_is_one_inside_and_fades_over_one_span() {
        let t = detect("in May 2023", at(NOW)).unwrap();
        assert_eq!(t.closeness(at("2023-05-20T00:00:00Z")), 1.0);
        let half = t.closeness(at("2023-06-16T12:00:00Z"));
        assert!((half - 0.5).abs() < 0.02, "{half}");
        assert_eq!(t.closeness(at("2023-08-01T00:00:00Z")), 0.0);
        let d = detect("on 3 May 2023", at(NOW)).unwrap();
        assert_eq!(d.closeness(at("2023-05-05T00:00:00Z")), 0.0);
        assert_eq!(d.window().0, at("2023-05-02T00:00:00Z"));
    }
}
