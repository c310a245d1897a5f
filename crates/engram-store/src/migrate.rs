//! Applying `migrations/`: sqlx's files, table and checksums, but each file
//! executed one statement at a time. sqlx sends a whole file as one
//! multi-statement query, which Citus refuses for DDL on a distributed table
//! ("cannot insert multiple commands into a prepared statement"); one
//! statement per execution works on both. A database migrated by sqlx's own
//! runner is read as migrated here, and the other way round (same
//! `_sqlx_migrations` rows, same SHA-384 checksums).

use std::time::Instant;

use sqlx::PgPool;

use crate::{StoreError, MIGRATOR};

/// The statements of a migration file, in order: split at top-level `;`,
/// never inside quotes, dollar quotes or comments; comment-only pieces
/// dropped.
pub fn statements(sql: &str) -> Vec<&str> {
    let bytes = sql.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut i) = (0, 0);
    let mut has_code = false;
    while i < bytes.len() {
        let rest = &sql[i..];
        if rest.starts_with("--") {
            i += rest.find('\n').map_or(rest.len(), |n| n + 1);
        } else if rest.starts_with("/*") {
            i += rest.find("*/").map_or(rest.len(), |n| n + 2);
        } else if let Some(tag) = dollar_tag(rest) {
            let body = &rest[tag.len()..];
            i += tag.len() + body.find(tag).map_or(body.len(), |n| n + tag.len());
            has_code = true;
        } else if bytes[i] == b'\'' || bytes[i] == b'"' {
            // A quoted string or identifier; a doubled quote is an escaped one.
            // (E'' strings with backslash escapes do not occur in migrations.)
            let q = bytes[i];
            i += 1;
            while i < bytes.len() {
                if bytes[i] == q {
                    if bytes.get(i + 1) == Some(&q) {
                        i += 2;
                        continue;
                    }
                    break;
                }
                i += 1;
            }
            i += 1;
            has_code = true;
        } else if bytes[i] == b';' {
            if has_code {
                out.push(sql[start..i].trim());
            }
            i += 1;
            start = i;
            has_code = false;
        } else {
            has_code |= !bytes[i].is_ascii_whitespace();
            i += rest.chars().next().map_or(1, char::len_utf8);
        }
    }
    if has_code {
        out.push(sql[start..].trim());
    }
    out
}

/// `$$` or `$tag$` at the start of `s`, if it opens a dollar quote.
fn dollar_tag(s: &str) -> Option<&str> {
    let rest = s.strip_prefix('$')?;
    let end = rest.find('$')?;
    let tag = &rest[..end];
    let ok = tag
        .chars()
        .enumerate()
        .all(|(k, c)| c == '_' || c.is_alphabetic() || (k > 0 && c.is_ascii_digit()));
    ok.then(|| &s[..end + 2])
}

/// The same table sqlx keeps.
const MIGRATIONS_TABLE: &str = "CREATE TABLE IF NOT EXISTS _sqlx_migrations (
    version BIGINT PRIMARY KEY,
    description TEXT NOT NULL,
    installed_on TIMESTAMPTZ NOT NULL DEFAULT now(),
    success BOOLEAN NOT NULL,
    checksum BYTEA NOT NULL,
    execution_time BIGINT NOT NULL
)";

/// One process migrates at a time (an advisory lock of its own).
const LOCK: i64 = 0x656e_6772_616d_6d69; // "engrammi"

/// Applies every migration not yet applied, each in one transaction with
/// its row in `_sqlx_migrations`; refuses a database whose applied
/// migrations differ from this binary's (a changed file) or that records a
/// failed one.
pub async fn run(pool: &PgPool) -> Result<(), StoreError> {
    let mut conn = pool.acquire().await?;
    sqlx::raw_sql(MIGRATIONS_TABLE).execute(&mut *conn).await?;
    sqlx::query("SELECT pg_advisory_lock($1)")
        .bind(LOCK)
        .execute(&mut *conn)
        .await?;
    let result = apply(&mut conn).await;
    let unlocked = sqlx::query("SELECT pg_advisory_unlock($1)")
        .bind(LOCK)
        .execute(&mut *conn)
        .await;
    result?;
    unlocked?;
    Ok(())
}

async fn apply(conn: &mut sqlx::PgConnection) -> Result<(), StoreError> {
    let applied: Vec<(i64, Vec<u8>, bool)> =
        sqlx::query_as("SELECT version, checksum, success FROM _sqlx_migrations ORDER BY version")
            .fetch_all(&mut *conn)
            .await?;
    for (version, checksum, success) in &applied {
        if !success {
            return Err(StoreError::Internal(format!(
                "migration {version} is recorded as failed; repair the database first"
            )));
        }
        match MIGRATOR.iter().find(|m| m.version == *version) {
            Some(m) if m.checksum.as_ref() != checksum.as_slice() => {
                return Err(StoreError::Internal(format!(
                    "migration {version} was changed after it was applied"
                )))
            }
            Some(_) => {}
            None => {
                return Err(StoreError::Internal(format!(
                    "migration {version} is applied but unknown to this binary (a newer version ran here)"
                )))
            }
        }
    }
    for m in MIGRATOR.iter() {
        if m.migration_type.is_down_migration() || applied.iter().any(|(v, _, _)| *v == m.version) {
            continue;
        }
        let started = Instant::now();
        let mut tx = sqlx::Connection::begin(&mut *conn).await?;
        for statement in statements(&m.sql) {
            sqlx::raw_sql(statement).execute(&mut *tx).await?;
        }
        sqlx::query(
            "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time)
             VALUES ($1, $2, TRUE, $3, $4)",
        )
        .bind(m.version)
        .bind(m.description.as_ref())
        .bind(m.checksum.as_ref())
        .bind(i64::try_from(started.elapsed().as_nanos()).unwrap_or(i64::MAX))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_split_at_top_level_semicolons_only() {
        let sql = "-- a comment; with a semicolon\n\
                   CREATE TABLE t (a text DEFAULT 'x;y', \"b;c\" int);\n\
                   /* block; comment */\n\
                   CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$\n\
                   BEGIN RETURN 1; END\n$$;\n\
                   DO $body$ BEGIN PERFORM 'it''s;'; END $body$;\n\
                   COMMENT ON TABLE t IS 'ü; ok'\n\
                   -- trailing comment only;\n";
        let got = statements(sql);
        assert_eq!(got.len(), 4, "{got:#?}");
        assert!(got[0].ends_with("\"b;c\" int)"));
        assert!(
            got[1].starts_with("/* block; comment */\nCREATE FUNCTION") && got[1].ends_with("$$")
        );
        assert!(got[2].starts_with("DO $body$") && got[2].ends_with("$body$"));
        assert!(got[3].starts_with("COMMENT ON TABLE t IS 'ü; ok'"));
    }

    #[test]
    fn positional_parameters_are_not_dollar_quotes() {
        assert_eq!(dollar_tag("$1, $2"), None);
        assert_eq!(dollar_tag("$$ x"), Some("$$"));
        assert_eq!(dollar_tag("$tag_1$ x"), Some("$tag_1$"));
    }

    #[test]
    fn every_migration_splits_into_whole_statements() {
        for m in MIGRATOR.iter() {
            // The runner wraps every file in a transaction; a
            // `-- no-transaction` file (CREATE INDEX CONCURRENTLY) would
            // need it taught otherwise first.
            assert!(!m.no_tx, "migration {} wants no transaction", m.version);
            let parts = statements(&m.sql);
            assert!(!parts.is_empty(), "migration {}", m.version);
            for p in parts {
                // Balanced dollar quotes: an even count of each `$$`.
                assert_eq!(
                    p.matches("$$").count() % 2,
                    0,
                    "migration {}: {p}",
                    m.version
                );
            }
        }
    }
}
