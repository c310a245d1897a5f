//! Every function that does time arithmetic, driven with the calendar's
//! extremes: any instant chrono can hold (±262,143 years, not only the range
//! the API accepts: a stored row may come from elsewhere), with the phrases
//! that reach each branch. None may panic, and what they return for an
//! accepted instant stays in the accepted range.

use chrono::{DateTime, TimeDelta, Utc};
use engram_core::consolidate::{plan, ConsolidationParams, MemoryView};
use engram_core::extract::{InputMessage, Role, RulesExtractor};
use engram_core::{querytime, time, timephrase, MemoryKind, SourceType};
use proptest::prelude::*;
use uuid::Uuid;

/// Any instant chrono can represent, with the very ends over-represented.
fn any_instant() -> impl Strategy<Value = DateTime<Utc>> {
    let (lo, hi) = (
        DateTime::<Utc>::MIN_UTC.timestamp(),
        DateTime::<Utc>::MAX_UTC.timestamp(),
    );
    prop_oneof![
        1 => Just(Some(DateTime::<Utc>::MIN_UTC)),
        1 => Just(Some(DateTime::<Utc>::MAX_UTC)),
        1 => Just(Some(time::min())),
        1 => Just(Some(time::max())),
        2 => (lo - 1000..lo + 400 * 86_400).prop_map(|s| DateTime::from_timestamp(s, 0)),
        2 => (hi - 400 * 86_400..hi + 1000).prop_map(|s| DateTime::from_timestamp(s, 0)),
        2 => (time::min().timestamp() - 800 * 86_400..time::min().timestamp() + 800 * 86_400)
            .prop_map(|s| DateTime::from_timestamp(s, 0)),
        2 => (time::max().timestamp() - 800 * 86_400..time::max().timestamp() + 800 * 86_400)
            .prop_map(|s| DateTime::from_timestamp(s, 0)),
        4 => (lo..=hi).prop_map(|s| DateTime::from_timestamp(s, 999_999_999)),
    ]
    .prop_map(|t| t.unwrap_or(DateTime::<Utc>::MAX_UTC))
}

fn accepted_instant() -> impl Strategy<Value = DateTime<Utc>> {
    any_instant().prop_filter("in range", |t| time::in_range(*t))
}

fn any_delta() -> impl Strategy<Value = TimeDelta> {
    prop_oneof![
        Just(TimeDelta::MIN),
        Just(TimeDelta::MAX),
        any::<i64>().prop_map(time::days),
        any::<i64>().prop_map(time::seconds),
        any::<f64>().prop_map(time::hours_f64),
    ]
}

/// Phrases that reach every branch of the expiry hints, the query periods and
/// the rules extractor's temporary facts.
const PHRASES: [&str; 24] = [
    "I'm in Lisbon until Friday",
    "staying till sunday",
    "away for 999 days",
    "for the next 12 months",
    "for a week",
    "busy today",
    "off tomorrow",
    "on holiday this weekend",
    "travelling next week",
    "swamped this month",
    "moving next month",
    "what did I do yesterday",
    "what happened 999 years ago",
    "3 days ago",
    "last weekend",
    "this year",
    "past month",
    "in December",
    "in may",
    "during 2023",
    "on 29 February, 2024",
    "notes from 9999-12-31",
    "May 31, 0001",
    "I am on holiday next week and in Rome until Monday.",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn checked_arithmetic_never_panics_and_stays_in_range(t in any_instant(), d in any_delta()) {
        for r in [time::add(t, d), time::sub(t, d), time::clamp(t)] {
            prop_assert!(time::in_range(r));
        }
        let days = time::days_between(t, DateTime::<Utc>::MIN_UTC);
        prop_assert!(days.is_finite());
    }

    #[test]
    fn expiry_hints_never_panic(t in any_instant(), phrase in proptest::sample::select(&PHRASES[..])) {
        if let Some(at) = timephrase::expiry_hint(phrase, t) {
            if time::in_range(t) {
                prop_assert!(time::in_range(at), "{phrase} at {t}: {at}");
                prop_assert!(at >= t.date_naive().and_hms_opt(0, 0, 0).unwrap().and_utc());
            }
        }
    }

    #[test]
    fn query_periods_never_panic(now in any_instant(), at in any_instant(),
                                 phrase in proptest::sample::select(&PHRASES[..])) {
        if let Some(q) = querytime::detect(phrase, now) {
            prop_assert!(time::in_range(q.from) && time::in_range(q.to), "{phrase} at {now}: {q:?}");
            prop_assert!(q.from <= q.to);
            let c = q.closeness(at);
            prop_assert!((0.0..=1.0).contains(&c));
            let (a, b) = q.window();
            prop_assert!(a <= b);
        }
    }

    #[test]
    fn the_rules_extractor_never_panics(t in any_instant(), phrase in proptest::sample::select(&PHRASES[..])) {
        let messages = [InputMessage {
            role: Role::User,
            content: format!("I live in Austin. {phrase}. I am on a trip to Rome {phrase}."),
            created_at: t,
        }];
        for c in RulesExtractor.extract_sync(&messages) {
            if let (Some(e), true) = (c.expires_at, time::in_range(t)) {
                prop_assert!(time::in_range(e), "{phrase} at {t}: {e}");
            }
        }
    }

    #[test]
    fn consolidation_planning_never_panics(
        now in accepted_instant(),
        created in any_instant(),
        used in proptest::option::of(any_instant()),
        expires in proptest::option::of(any_instant()),
        deleted in proptest::option::of(any_instant()),
        grace_days in any::<u32>(),
        window_hours in 0.0f64..=87_600.0,
        half_life in 0.001f64..1e6,
    ) {
        let view = |id: u128, kind: MemoryKind| MemoryView {
            id: Uuid::from_u128(id),
            kind,
            content: format!("I like tea {id}"),
            subject: Some("user".into()),
            attribute: Some("likes".into()),
            value: Some(format!("tea {}", id % 2)),
            source_type: SourceType::UserStated,
            base_importance: 0.5,
            importance: 0.5,
            pinned: false,
            access_count: 0,
            created_at: created,
            last_used_at: used,
            expires_at: expires,
            deleted_at: deleted,
            superseded_by: None,
            archived_at: None,
            said: false,
            embedding: vec![1.0, 0.0, 0.0],
        };
        let memories = vec![
            view(1, MemoryKind::Semantic),
            view(2, MemoryKind::Episodic),
            MemoryView { created_at: now, ..view(3, MemoryKind::Episodic) },
            MemoryView { deleted_at: None, expires_at: None, ..view(4, MemoryKind::Semantic) },
        ];
        let params = ConsolidationParams {
            half_life_days: half_life,
            expired_grace: time::days(grace_days.into()),
            deleted_retention: time::days(grace_days.into()),
            episodic_window: time::hours_f64(window_hours),
            ..ConsolidationParams::defaults(now)
        };
        let _ = plan(&memories, &params);
    }
}
