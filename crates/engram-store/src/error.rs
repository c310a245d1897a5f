use thiserror::Error;

/// Why a change conflicts with what is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConflictKind {
    /// A live memory with the same content already exists in the scope.
    DuplicateContent,
    /// The session belongs to another user.
    SessionOwner,
    /// What the change was planned on changed meanwhile: read again, retry.
    ChangedMeanwhile,
    /// The memory's latest change cannot be reverted.
    NotRevertible,
    /// An import collides with data already here.
    ImportCollision,
    /// Another consolidation run holds the cluster lock.
    ConsolidationBusy,
    /// Only a failed job can be retried.
    JobNotFailed,
}

impl ConflictKind {
    /// The problem type's last segment: `urn:engram:problem:<slug>`.
    pub fn slug(self) -> &'static str {
        match self {
            ConflictKind::DuplicateContent => "duplicate-content",
            ConflictKind::SessionOwner => "session-owner",
            ConflictKind::ChangedMeanwhile => "changed-meanwhile",
            ConflictKind::NotRevertible => "not-revertible",
            ConflictKind::ImportCollision => "import-collision",
            ConflictKind::ConsolidationBusy => "consolidation-busy",
            ConflictKind::JobNotFailed => "job-not-failed",
        }
    }
}

/// Errors of the storage layer; the API maps them to HTTP in one place.
#[derive(Debug, Error)]
pub enum StoreError {
    #[error("not found")]
    NotFound,
    /// The change cannot be made as things are; the kind says why (each is
    /// its own problem type in the API).
    #[error("conflict: {1}")]
    Conflict(ConflictKind, String),
    /// An idempotency key already names a different request.
    #[error("this Idempotency-Key was used for a different request")]
    IdempotencyKeyReused,
    /// The tenant already has this many jobs waiting (the store's queue
    /// cap): nothing was written.
    #[error("the tenant has {0} jobs waiting, its limit; retry when some have run")]
    QueueFull(i64),
    #[error("database schema is not migrated to this version")]
    NotMigrated,
    #[error("{0}")]
    EmbedderMismatch(String),
    #[error("database unavailable: {}", sanitized(.0))]
    Unavailable(#[source] sqlx::Error),
    /// A statement ran past the store's statement timeout and was cancelled.
    #[error("a database statement took longer than the statement timeout")]
    StatementTimeout,
    /// Shown without what the database quoted (`sanitized`): its messages
    /// can hold the values of the statement, user text among them.
    #[error("database error: {}", sanitized(.0))]
    Database(#[source] sqlx::Error),
    /// A bug: something the store's callers guarantee did not hold.
    #[error("{0}")]
    Internal(String),
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        match &e {
            sqlx::Error::RowNotFound => Self::NotFound,
            sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) => {
                Self::Unavailable(e)
            }
            // query_canceled: the statement timeout fired (or an operator
            // cancelled the statement).
            sqlx::Error::Database(db) if db.code().as_deref() == Some("57014") => {
                Self::StatementTimeout
            }
            // The server going away mid-connection: shutting down (class 57,
            // operator intervention) or the connection failing (class 08).
            sqlx::Error::Database(db)
                if db
                    .code()
                    .is_some_and(|c| c.starts_with("57") || c.starts_with("08")) =>
            {
                Self::Unavailable(e)
            }
            sqlx::Error::Database(db) if db.is_unique_violation() => Self::Conflict(
                ConflictKind::DuplicateContent,
                "a live memory with this content already exists in this scope".into(),
            ),
            _ => Self::Database(e),
        }
    }
}

/// A database error as it may be logged: its SQLSTATE, constraint and table,
/// and its message with every quoted part elided (Postgres quotes values:
/// `syntax error in tsquery: "…"`, `invalid input syntax for type uuid: "…"`).
/// Details (`Failing row contains (…)`) are never included.
pub fn sanitized(e: &sqlx::Error) -> String {
    match e {
        sqlx::Error::Database(db) => {
            let mut out = engram_core::text::without_quoted(db.message());
            if let Some(code) = db.code() {
                out.push_str(&format!(" (SQLSTATE {code})"));
            }
            if let Some(c) = db.constraint() {
                out.push_str(&format!(" constraint {c}"));
            }
            if let Some(t) = db.table() {
                out.push_str(&format!(" table {t}"));
            }
            out
        }
        // Decoding errors can quote the value that did not decode.
        sqlx::Error::ColumnDecode { index, .. } => {
            format!("a value of column {index} could not be decoded")
        }
        sqlx::Error::Decode(_) => "a value could not be decoded".into(),
        other => engram_core::text::without_quoted(&other.to_string()),
    }
}
