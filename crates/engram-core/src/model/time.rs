#![warn(clippy::arithmetic_side_effects)]
//! One valid range for every timestamp Engram accepts, and the checked time
//! arithmetic every later step uses.
//!
//! The range is the four-digit years of RFC 3339, as an instant in UTC:
//! `0001-01-01T00:00:00Z` to `9999-12-31T23:59:59.999999Z` (also exactly
//! what Python's `datetime` can hold, so every client can represent it).
//! chrono reaches year ±262,143 and Postgres 4713 BC to 294,276 AD, so any
//! grace period, half-life or "next month" added to a value in range stays
//! representable in both; still, no computation here may panic: additions
//! are checked and saturate at the ends of the range.

use chrono::{DateTime, NaiveDate, TimeDelta, TimeZone, Utc};
use serde::{Deserialize, Deserializer, Serialize};

use crate::validate::FieldError;

/// The earliest instant Engram accepts: 0001-01-01T00:00:00Z.
pub fn min() -> DateTime<Utc> {
    Utc.from_utc_datetime(
        &NaiveDate::from_ymd_opt(1, 1, 1)
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .unwrap_or_default(),
    )
}

/// The latest instant Engram accepts: 9999-12-31T23:59:59.999999Z.
pub fn max() -> DateTime<Utc> {
    Utc.from_utc_datetime(
        &NaiveDate::from_ymd_opt(9999, 12, 31)
            .and_then(|d| d.and_hms_micro_opt(23, 59, 59, 999_999))
            .unwrap_or_default(),
    )
}

/// The range, as the API documents it.
pub const RANGE: &str = "0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z";

pub fn in_range(t: DateTime<Utc>) -> bool {
    (min()..=max()).contains(&t)
}

/// `t` if it lies in the accepted range, else an error naming `field`.
pub fn check(field: &str, t: DateTime<Utc>) -> Result<DateTime<Utc>, FieldError> {
    if in_range(t) {
        Ok(t)
    } else {
        Err(FieldError::new(field, out_of_range()))
    }
}

fn out_of_range() -> String {
    format!("must be between {RANGE} (as an instant in UTC)")
}

/// Clamps into the accepted range.
pub fn clamp(t: DateTime<Utc>) -> DateTime<Utc> {
    t.clamp(min(), max())
}

/// `t + d`, clamped to the accepted range (never panics, never overflows).
pub fn add(t: DateTime<Utc>, d: TimeDelta) -> DateTime<Utc> {
    match t.checked_add_signed(d) {
        Some(r) => clamp(r),
        None if d < TimeDelta::zero() => min(),
        None => max(),
    }
}

/// `t - d`, clamped to the accepted range.
pub fn sub(t: DateTime<Utc>, d: TimeDelta) -> DateTime<Utc> {
    match t.checked_sub_signed(d) {
        Some(r) => clamp(r),
        None if d < TimeDelta::zero() => max(),
        None => min(),
    }
}

/// `n` days, saturating at TimeDelta's bounds (about ±292 million years).
pub fn days(n: i64) -> TimeDelta {
    TimeDelta::try_days(n).unwrap_or(if n < 0 {
        TimeDelta::MIN
    } else {
        TimeDelta::MAX
    })
}

/// `n` seconds, saturating at TimeDelta's bounds.
pub fn seconds(n: i64) -> TimeDelta {
    TimeDelta::try_seconds(n).unwrap_or(if n < 0 {
        TimeDelta::MIN
    } else {
        TimeDelta::MAX
    })
}

/// `hours` (fractional) as a TimeDelta, saturating; NaN is zero.
pub fn hours_f64(hours: f64) -> TimeDelta {
    let ms = hours * 3_600_000.0;
    if ms.is_nan() {
        return TimeDelta::zero();
    }
    // `as` saturates for floats; milliseconds beyond TimeDelta's range too.
    TimeDelta::try_milliseconds(ms as i64).unwrap_or(if ms < 0.0 {
        TimeDelta::MIN
    } else {
        TimeDelta::MAX
    })
}

/// `a - b` in fractional days (`a - b` of two in-range instants never
/// overflows; the signed difference of any two chrono instants fits too).
pub fn days_between(a: DateTime<Utc>, b: DateTime<Utc>) -> f64 {
    a.signed_duration_since(b).num_milliseconds() as f64 / 86_400_000.0
}

/// A timestamp from a request: RFC 3339, converted to UTC, within [`RANGE`].
/// Deserializing an out-of-range value fails with a message naming the range,
/// which the API reports as a 422 on the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Timestamp(DateTime<Utc>);

impl Timestamp {
    pub fn new(t: DateTime<Utc>) -> Option<Self> {
        in_range(t).then_some(Self(t))
    }

    pub fn get(self) -> DateTime<Utc> {
        self.0
    }
}

impl From<Timestamp> for DateTime<Utc> {
    fn from(t: Timestamp) -> Self {
        t.0
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let t = DateTime::<Utc>::deserialize(d)?;
        Timestamp::new(t).ok_or_else(|| serde::de::Error::custom(out_of_range()))
    }
}

/// Checks every timestamp in a JSON document from outside (an import):
/// each string under a key ending in `_at` that reads as a timestamp must lie
/// in the range. The error names the first field that does not, by path.
pub fn check_json(value: &serde_json::Value) -> Result<(), FieldError> {
    fn walk(value: &serde_json::Value, path: &mut String) -> Result<(), FieldError> {
        match value {
            serde_json::Value::Object(o) => {
                for (k, v) in o {
                    let len = path.len();
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(k);
                    if let (true, Some(s)) = (k.ends_with("_at"), v.as_str()) {
                        if let Ok(t) = s.parse::<DateTime<Utc>>() {
                            check(path, t)?;
                        }
                    }
                    walk(v, path)?;
                    path.truncate(len);
                }
            }
            serde_json::Value::Array(a) => {
                for (i, v) in a.iter().enumerate() {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    walk(v, path)?;
                    path.truncate(len);
                }
            }
            _ => {}
        }
        Ok(())
    }
    walk(value, &mut String::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn the_range_is_four_digit_years_in_utc() {
        assert_eq!(min(), at("0001-01-01T00:00:00Z"));
        assert_eq!(max(), at("9999-12-31T23:59:59.999999Z"));
        assert!(in_range(at("2026-12-01T00:00:00Z")));
        assert!(!in_range(at("+262142-12-31T23:59:59Z")));
        assert!(!in_range(at("-5000-01-01T00:00:00Z")));
        // An offset can push an instant written with four digits outside.
        assert!(!in_range(at("0001-01-01T00:00:00+01:00")));
        assert!(!in_range(at("9999-12-31T23:00:00-05:00")));
    }

    #[test]
    fn timestamps_deserialize_only_in_range() {
        let ok: Timestamp = serde_json::from_str("\"2026-12-01T10:00:00+02:00\"").unwrap();
        assert_eq!(ok.get(), at("2026-12-01T08:00:00Z"));
        for bad in [
            "\"+262142-12-31T23:59:59Z\"",
            "\"-262143-01-01T00:00:00Z\"",
            "\"-5000-01-01T00:00:00Z\"",
            "\"0000-12-31T23:59:59Z\"",
            "\"+10000-01-01T00:00:00Z\"",
        ] {
            let e = serde_json::from_str::<Timestamp>(bad).unwrap_err();
            assert!(e.to_string().contains("must be between"), "{bad}: {e}");
        }
        assert!(serde_json::from_str::<Timestamp>("\"yesterday\"").is_err());
    }

    #[test]
    fn arithmetic_saturates_at_the_ends() {
        assert_eq!(add(max(), days(1)), max());
        assert_eq!(add(max(), TimeDelta::MAX), max());
        assert_eq!(sub(min(), days(1)), min());
        assert_eq!(sub(min(), TimeDelta::MAX), min());
        assert_eq!(add(min(), TimeDelta::MIN), min());
        assert_eq!(sub(max(), TimeDelta::MIN), max());
        // Out-of-range inputs come back in range.
        assert_eq!(add(DateTime::<Utc>::MAX_UTC, days(-1)), max());
        assert_eq!(add(DateTime::<Utc>::MIN_UTC, days(1)), min());
        assert_eq!(days(i64::MAX), TimeDelta::MAX);
        assert_eq!(days(i64::MIN), TimeDelta::MIN);
        assert_eq!(seconds(i64::MAX), TimeDelta::MAX);
        assert_eq!(hours_f64(f64::INFINITY), TimeDelta::MAX);
        assert_eq!(hours_f64(f64::NAN), TimeDelta::zero());
        assert_eq!(
            add(at("2026-01-31T00:00:00Z"), days(1)),
            at("2026-02-01T00:00:00Z")
        );
    }

    #[test]
    fn json_documents_are_checked_at_every_depth() {
        let ok = serde_json::json!({"exported_at": "2026-12-01T00:00:00Z",
            "memories": [{"created_at": "0001-01-01T00:00:00Z", "content": "+262142-12-31T23:59:59Z"}]});
        assert!(check_json(&ok).is_ok());
        let bad = serde_json::json!({"memories": [{"created_at": "2026-01-01T00:00:00Z"},
            {"history": [{"created_at": "+262142-12-31T23:59:59Z"}]}]});
        assert_eq!(
            check_json(&bad).unwrap_err().field,
            "memories[1].history[0].created_at"
        );
        let payload = serde_json::json!({"jobs": [{"payload": {"messages": [{"created_at": "-5000-01-01T00:00:00Z"}]}}]});
        assert_eq!(
            check_json(&payload).unwrap_err().field,
            "jobs[0].payload.messages[0].created_at"
        );
    }

    #[test]
    fn days_between_the_extremes_is_finite() {
        let d = days_between(DateTime::<Utc>::MAX_UTC, DateTime::<Utc>::MIN_UTC);
        assert!(d.is_finite() && d > 0.0);
    }
}
