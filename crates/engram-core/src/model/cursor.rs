//! Opaque keyset-pagination cursors: the position (created_at, id) of the last item.

use chrono::{DateTime, Utc};
use uuid::Uuid;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    pub created_at: DateTime<Utc>,
    pub id: Uuid,
}

impl Cursor {
    pub fn encode(&self) -> String {
        format!(
            "{}.{}",
            self.created_at.timestamp_micros(),
            self.id.simple()
        )
    }

    pub fn decode(s: &str) -> Option<Self> {
        let (micros, id) = s.split_once('.')?;
        // Only positions a stored row can have: anything else would reach
        // Postgres as a timestamp it cannot hold.
        let created_at = DateTime::from_timestamp_micros(micros.parse().ok()?)
            .filter(|t| crate::time::in_range(*t))?;
        Some(Self {
            created_at,
            id: Uuid::try_parse(id).ok()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_garbage() {
        let c = Cursor {
            created_at: DateTime::from_timestamp_micros(1_700_000_000_123_456).unwrap(),
            id: Uuid::now_v7(),
        };
        assert_eq!(Cursor::decode(&c.encode()), Some(c));
        assert_eq!(Cursor::decode("nope"), None);
        assert_eq!(Cursor::decode("12.zz"), None);
        let far = format!(
            "{}.{}",
            -200_000i64 * 365 * 86_400 * 1_000_000,
            Uuid::nil().simple()
        );
        assert_eq!(Cursor::decode(&far), None);
    }
}
