//! Applying an extraction job's decisions: one transaction per job, holding an
//! advisory lock on the scope so two jobs for one user never decide against the
//! same stale view, and completing the job in the same commit (a crash before it
//! leaves nothing half-applied; the job simply runs again).

use chrono::{DateTime, Utc};
use engram_core::decide::Known;
use engram_core::extract::Candidate;
use engram_core::{Scope, Source, SourceType};
use pgvector::{HalfVector, Vector};
use serde_json::Value;
use sqlx::{Postgres, Transaction};
use uuid::Uuid;

use crate::{Store, StoreError};

/// Everything recorded with a fact besides the candidate itself.
#[derive(Debug, Clone)]
pub struct FactContext {
    pub job_id: Uuid,
    pub source: Source,
    pub source_message: String,
    pub said_at: DateTime<Utc>,
    pub extractor: String,
    pub model: Option<String>,
    pub prompt_version: Option<String>,
    pub actor: String,
    /// The piece of what was said the fact was read from, when kept.
    pub evidence_id: Option<Uuid>,
}

pub struct ExtractionTx {
    tx: Transaction<'static, Postgres>,
    tenant: Uuid,
    scope: Scope,
    job_id: Uuid,
    now: DateTime<Utc>,
}

impl Store {
    /// Starts applying a job's results for `scope` (user and agent; facts are not
    /// tied to a session).
    pub async fn begin_extraction(
        &self,
        tenant: Uuid,
        scope: Scope,
        job_id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<ExtractionTx, StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        // The job row stays locked until the commit: an erasure or source purge
        // deleting it waits for this transaction, and one that came first leaves
        // no row, so an erased user's facts are never written back.
        let alive: Option<Uuid> =
            sqlx::query_scalar("SELECT id FROM jobs WHERE tenant_id = $1 AND id = $2 FOR UPDATE")
                .bind(tenant)
                .bind(job_id)
                .fetch_optional(&mut *tx)
                .await?;
        alive.ok_or(StoreError::NotFound)?;
        sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
            .bind(format!(
                "{tenant}/{}/{}",
                scope.user_id.as_deref().unwrap_or(""),
                scope.agent_id.as_deref().unwrap_or("")
            ))
            .execute(&mut *tx)
            .await?;
        Ok(ExtractionTx {
            tx,
            tenant,
            scope: Scope {
                session_id: None,
                ..scope
            },
            job_id,
            now,
        })
    }
}

#[derive(sqlx::FromRow)]
struct KnownRow {
    id: Uuid,
    content: String,
    subject: Option<String>,
    attribute: Option<String>,
    value: Option<String>,
    source_type: String,
    similarity: f64,
    said: bool,
}

/// The pieces of what was said nearest to a request to forget that its
/// words are compared with.
const FORGET_SAID_NEIGHBOURS: i64 = 50;

/// The most memories one request to forget everything retires.
const FORGET_ALL_LIMIT: i64 = 10_000;

impl From<KnownRow> for Known {
    fn from(r: KnownRow) -> Self {
        Known {
            id: r.id,
            content: r.content,
            subject: r.subject,
            attribute: r.attribute,
            value: r.value,
            source_type: SourceType::parse(&r.source_type).unwrap_or(SourceType::Api),
            similarity: r.similarity as f32,
            said: r.said,
        }
    }
}

/// What a restatement does besides its own change: decay starts over from
/// now (the stated importance is what counts again, `base_importance` cleared)
/// and an archived memory is back in search.
/// `now` is the statement's placeholder for the clock.
fn restated(now: &str) -> String {
    format!("base_importance = NULL, archived_at = NULL, last_used_at = greatest(o.last_used_at, {now})")
}

fn restored_reason(reason: &str, restored: bool) -> String {
    if restored {
        format!("{reason}; restated, so restored from the archive")
    } else {
        reason.to_string()
    }
}

impl ExtractionTx {
    /// The live memories of the scope. `user_id = $2` (not IS NOT DISTINCT FROM)
    /// when a user is given, so the partial scope indexes apply.
    /// The scope's memories in any state (a request to forget reaches
    /// what was taken back or replaced too).
    fn any_state_sql(&self) -> String {
        let user = if self.scope.user_id.is_some() {
            "user_id = $2"
        } else {
            "user_id IS NULL AND $2::text IS NULL"
        };
        let agent = if self.scope.agent_id.is_some() {
            "agent_id = $3"
        } else {
            "agent_id IS NULL AND $3::text IS NULL"
        };
        format!("tenant_id = $1 AND {user} AND {agent} AND $4::timestamptz IS NOT NULL")
    }

    fn scope_sql(&self) -> String {
        let user = if self.scope.user_id.is_some() {
            "user_id = $2"
        } else {
            "user_id IS NULL AND $2::text IS NULL"
        };
        let agent = if self.scope.agent_id.is_some() {
            "agent_id = $3"
        } else {
            "agent_id IS NULL AND $3::text IS NULL"
        };
        format!(
            "tenant_id = $1 AND {user} AND {agent} AND deleted_at IS NULL AND superseded_by IS NULL
             AND (expires_at IS NULL OR expires_at > $4)"
        )
    }

    /// Live memories of the scope with the candidate's subject and attribute
    /// (or an attribute under it: `pet.dog` finds `pet.dog.name`),
    /// plus its `neighbours` nearest by meaning (found with the half-precision
    /// copy, as search does; their similarity from full precision, since
    /// decisions compare it with thresholds).
    pub async fn known(
        &mut self,
        candidate: &Candidate,
        embedding: &[f32],
        neighbours: i64,
    ) -> Result<Vec<Known>, StoreError> {
        // A request to forget reaches memories in every state: what was
        // retracted or superseded still holds what the user said. One to
        // forget everything names all of them (at most `FORGET_ALL_LIMIT`
        // per request).
        let forget = candidate.action == engram_core::extract::FactAction::Forget;
        let scope = if forget {
            self.any_state_sql()
        } else {
            self.scope_sql()
        };
        if candidate.attribute == engram_core::extract::FORGET_EVERYTHING {
            let rows: Vec<KnownRow> = sqlx::query_as(&format!(
                "SELECT id, content, subject, attribute, value, source_type, 1.0::float8 AS similarity,
                        said_by IS NOT NULL AS said
                 FROM memories WHERE {scope} AND $5::text IS NOT NULL
                 ORDER BY created_at, id LIMIT {FORGET_ALL_LIMIT}"
            ))
            .bind(self.tenant)
            .bind(&self.scope.user_id)
            .bind(&self.scope.agent_id)
            .bind(self.now)
            .bind(&candidate.subject)
            .fetch_all(&mut *self.tx)
            .await?;
            return Ok(rows.into_iter().map(Known::from).collect());
        }
        // What was said is not what is known: a fact is never decided
        // against the words it was read from (pieces are reached by what
        // happens to their facts: `supersede_evidence`, `redact_derived`).
        // A request to forget also reaches the pieces nearest to it, which
        // it takes only when their words match (`decide`): in a language
        // the rules cannot read there is no fact, only what was said.
        let rows: Vec<KnownRow> = sqlx::query_as(&format!(
            "WITH near AS (
                SELECT id FROM memories WHERE {scope} AND said_by IS NULL
                ORDER BY embedding_half <=> $9 LIMIT $8
             ), near_said AS (
                SELECT id FROM memories WHERE {scope} AND said_by IS NOT NULL AND $11
                ORDER BY embedding_half <=> $9 LIMIT $12
             )
             SELECT id, content, subject, attribute, value, source_type, (1 - (embedding <=> $7))::float8 AS similarity,
                    said_by IS NOT NULL AS said
             FROM memories
             WHERE {scope} AND ((said_by IS NULL AND ((subject = $5 AND (attribute = $6 OR starts_with(attribute, $6 || '.')))
                                OR (subject = $5 AND $10::text IS NOT NULL
                                    AND strpos(lower(value), lower($10)) > 0)
                                OR id IN (SELECT id FROM near)))
                                OR id IN (SELECT id FROM near_said))"
        ))
        .bind(self.tenant)
        .bind(&self.scope.user_id)
        .bind(&self.scope.agent_id)
        .bind(self.now)
        .bind(&candidate.subject)
        .bind(&candidate.attribute)
        .bind(Vector::from(embedding.to_vec()))
        .bind(neighbours)
        .bind(HalfVector::from_f32_slice(embedding))
        // A correction that names no key reaches the fact holding the
        // value it corrects, wherever it is among the scope's memories.
        .bind(candidate.replaces.as_deref())
        .bind(forget)
        .bind(FORGET_SAID_NEIGHBOURS)
        .fetch_all(&mut *self.tx)
        .await?;
        Ok(rows.into_iter().map(Known::from).collect())
    }

    /// Inserts a fact; returns its id, or `None` when the same text is already a
    /// live memory of the scope (a race the unique index settles).
    pub async fn add(
        &mut self,
        c: &Candidate,
        embedding: &[f32],
        ctx: &FactContext,
        event_reason: &str,
    ) -> Result<Option<Uuid>, StoreError> {
        let id = Uuid::now_v7();
        let inserted: Option<Uuid> = sqlx::query_scalar(
            "INSERT INTO memories (tenant_id, id, user_id, agent_id, session_id, kind, subject, attribute, value,
                 content, embedding, content_hash, importance, sensitivity, source_type, source_ref, confidence,
                 expires_at, created_at, updated_at, job_id, extractor, model, prompt_version, evidence_id)
             VALUES ($1, $2, $3, $4, NULL, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24)
             ON CONFLICT DO NOTHING
             RETURNING id",
        )
        .bind(self.tenant)
        .bind(id)
        .bind(&self.scope.user_id)
        .bind(&self.scope.agent_id)
        .bind(c.kind.as_str())
        .bind(&c.subject)
        // A verbatim message has neither (NULL: no fact lookup finds it).
        .bind((!c.attribute.is_empty()).then_some(&c.attribute))
        .bind((!c.value.is_empty()).then_some(&c.value))
        .bind(&c.statement)
        .bind(Vector::from(embedding.to_vec()))
        .bind(engram_core::content_hash(&c.statement))
        .bind(c.importance)
        .bind(&c.sensitivity)
        .bind(ctx.source.source_type.as_str())
        .bind(&ctx.source.source_ref)
        .bind(c.confidence)
        .bind(c.expires_at)
        .bind(ctx.said_at)
        .bind(self.now)
        .bind(self.job_id)
        .bind(&ctx.extractor)
        .bind(&ctx.model)
        .bind(&ctx.prompt_version)
        .bind(ctx.evidence_id)
        .fetch_optional(&mut *self.tx)
        .await?;
        if let Some(id) = inserted {
            self.history(id, "ADD", None, Some(&c.statement), c, ctx, event_reason)
                .await?;
        }
        Ok(inserted)
    }

    /// The text of these pieces of what was said that are still kept.
    pub async fn pieces(&mut self, ids: &[Uuid]) -> Result<Vec<(Uuid, String)>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        Ok(sqlx::query_as(
            "SELECT id, content FROM memories
             WHERE tenant_id = $1 AND id = ANY($2) AND deleted_at IS NULL ORDER BY turn_piece, id",
        )
        .bind(self.tenant)
        .bind(ids)
        .fetch_all(&mut *self.tx)
        .await?)
    }

    /// Retires `targets` in favour of `new_id`, each with a SUPERSEDE history row.
    pub async fn supersede(
        &mut self,
        targets: &[Uuid],
        new_id: Uuid,
        c: &Candidate,
        ctx: &FactContext,
        reason: &str,
    ) -> Result<Vec<(Uuid, String)>, StoreError> {
        let old: Vec<(Uuid, String)> = sqlx::query_as(
            "UPDATE memories SET superseded_by = $3, updated_at = $4
             WHERE tenant_id = $1 AND id = ANY($2) AND superseded_by IS NULL AND deleted_at IS NULL
             RETURNING id, content",
        )
        .bind(self.tenant)
        .bind(targets)
        .bind(new_id)
        .bind(self.now)
        .fetch_all(&mut *self.tx)
        .await?;
        for (id, content) in &old {
            self.history(
                *id,
                "SUPERSEDE",
                Some(content),
                Some(&c.statement),
                c,
                ctx,
                reason,
            )
            .await?;
        }
        let replaced: Vec<Uuid> = old.iter().map(|(id, _)| *id).collect();
        self.supersede_evidence(&replaced, new_id, ctx).await?;
        Ok(old)
    }

    /// What was said of the facts `of`, replaced with them: the pieces that
    /// state them (their evidence, and any piece of the user's saying the
    /// same value) are superseded by `by` (the new fact, or the piece that
    /// took them back), so a search for where the user lives no longer
    /// finds "I live in Dallas" beside "I moved to Austin". Kept, with their
    /// history, for `include_superseded` and a revert; the piece the new
    /// statement was read from is never among them.
    async fn supersede_evidence(
        &mut self,
        of: &[Uuid],
        by: Uuid,
        ctx: &FactContext,
    ) -> Result<(), StoreError> {
        let Some(user) = self.scope.user_id.clone() else {
            return Ok(());
        };
        if of.is_empty() {
            return Ok(());
        }
        let facts: Vec<(String, Option<String>, Option<Uuid>, bool)> = sqlx::query_as(
            "SELECT content, value, evidence_id, coalesce(subject, 'user') = 'user'
             FROM memories WHERE tenant_id = $1 AND id = ANY($2)",
        )
        .bind(self.tenant)
        .bind(of)
        .fetch_all(&mut *self.tx)
        .await?;
        let keep: Vec<Uuid> = [Some(by), ctx.evidence_id].into_iter().flatten().collect();
        let mut pieces: Vec<Uuid> = Vec::new();
        for (content, value, evidence_id, about_user) in facts {
            let trace = engram_core::forget::FactTrace::new(&content, value.as_deref());
            let states = |piece: &str| {
                engram_core::said::restates(piece, &trace, value.as_deref(), about_user)
            };
            pieces.extend(
                crate::derived::pieces_stating(
                    &mut self.tx,
                    self.tenant,
                    &keep,
                    &user,
                    value.as_deref(),
                    evidence_id,
                    states,
                )
                .await?,
            );
        }
        pieces.sort_unstable();
        pieces.dedup();
        let replaced: Vec<(Uuid, String)> = sqlx::query_as(
            "UPDATE memories SET superseded_by = $3, updated_at = $4
             WHERE tenant_id = $1 AND id = ANY($2) AND superseded_by IS NULL AND deleted_at IS NULL
             RETURNING id, content",
        )
        .bind(self.tenant)
        .bind(&pieces)
        .bind(by)
        .bind(self.now)
        .fetch_all(&mut *self.tx)
        .await?;
        for (id, content) in replaced {
            crate::history::HistoryRow {
                memory: id,
                event: "SUPERSEDE",
                old: Some(&content),
                new: None,
                actor: &ctx.actor,
                reason: "what it said was replaced or taken back by a later statement",
                job: Some(self.job_id),
            }
            .write(&mut self.tx, self.tenant)
            .await?;
        }
        Ok(())
    }

    /// Replaces a memory's content with the merged statement (re-embedded when
    /// the candidate's wording wins).
    pub async fn merge(
        &mut self,
        target: Uuid,
        content: &str,
        embedding: Option<&[f32]>,
        c: &Candidate,
        ctx: &FactContext,
        reason: &str,
    ) -> Result<String, StoreError> {
        let (old, restored): (String, bool) = sqlx::query_as(&format!(
            "UPDATE memories m SET content = $3, content_hash = $4, embedding = coalesce($5, m.embedding), value = $6,
                    importance = greatest(coalesce(o.base_importance, o.importance), $7), {}, updated_at = $8
             FROM memories o WHERE o.tenant_id = m.tenant_id AND o.id = m.id AND m.tenant_id = $1 AND m.id = $2
             RETURNING o.content, o.archived_at IS NOT NULL",
            restated("$8")
        ))
        .bind(self.tenant)
        .bind(target)
        .bind(content)
        .bind(engram_core::content_hash(content))
        .bind(embedding.map(|e| Vector::from(e.to_vec())))
        .bind(&c.value)
        .bind(c.importance)
        .bind(self.now)
        .fetch_one(&mut *self.tx)
        .await?;
        let reason = restored_reason(reason, restored);
        self.history(target, "MERGE", Some(&old), Some(content), c, ctx, &reason)
            .await?;
        Ok(old)
    }

    /// Retires `targets` (a soft delete: revert undoes it) because the user
    /// took the fact back (`action` Retract) or asked that it be forgotten
    /// (Forget). Forgetting also redacts what they stated from the sessions
    /// they came from and from this job's (the request itself): a taken-back
    /// fact was said, a forgotten one is to leave no trace. Returns the ids
    /// and contents retired.
    pub async fn retire(
        &mut self,
        targets: &[Uuid],
        action: engram_core::extract::FactAction,
        c: &Candidate,
        ctx: &FactContext,
        reason: &str,
    ) -> Result<Vec<(Uuid, String)>, StoreError> {
        let forget = action == engram_core::extract::FactAction::Forget;
        let event = if forget {
            engram_core::HistoryEvent::Forget
        } else {
            engram_core::HistoryEvent::Retract
        }
        .as_str();
        let mut targets = targets.to_vec();
        let mut earlier: Vec<(Uuid, String)> = Vec::new();
        if forget {
            // The verbatim copies of the messages these facts came from
            // (`store_raw`), found by the jobs that wrote the facts, not by
            // likeness: they hold the same words.
            let copies: Vec<Uuid> = sqlx::query_scalar(
                "SELECT id FROM memories
                 WHERE tenant_id = $1 AND attribute IS NULL AND NOT id = ANY($2)
                   AND job_id IN (SELECT job_id FROM memories WHERE tenant_id = $1 AND id = ANY($2) AND job_id IS NOT NULL
                                  UNION SELECT job_id FROM memory_history WHERE tenant_id = $1 AND memory_id = ANY($2) AND job_id IS NOT NULL)",
            )
            .bind(self.tenant)
            .bind(&targets)
            .fetch_all(&mut *self.tx)
            .await?;
            targets.extend(copies);
            let mut counts = crate::Counts::new();
            crate::derived::redact_derived(
                &mut self.tx,
                self.tenant,
                &targets,
                Some(self.job_id),
                &mut counts,
            )
            .await?;
            // Taken back or deleted before: forgotten now too (history says so).
            earlier = sqlx::query_as(
                "SELECT id, content FROM memories
                 WHERE tenant_id = $1 AND id = ANY($2) AND deleted_at IS NOT NULL",
            )
            .bind(self.tenant)
            .bind(&targets)
            .fetch_all(&mut *self.tx)
            .await?;
        }
        let mut old: Vec<(Uuid, String)> = sqlx::query_as(
            "UPDATE memories SET deleted_at = $3, updated_at = $3
             WHERE tenant_id = $1 AND id = ANY($2) AND deleted_at IS NULL
             RETURNING id, content",
        )
        .bind(self.tenant)
        .bind(&targets)
        .bind(self.now)
        .fetch_all(&mut *self.tx)
        .await?;
        old.extend(earlier);
        for (id, content) in &old {
            self.history(*id, event, Some(content), None, c, ctx, reason)
                .await?;
        }
        // Taken back: the piece that took it back replaces what was said
        // of it. (Forgotten: those pieces were deleted above.)
        if let (false, Some(by)) = (forget, ctx.evidence_id) {
            let retired: Vec<Uuid> = old.iter().map(|(id, _)| *id).collect();
            self.supersede_evidence(&retired, by, ctx).await?;
        }
        Ok(old)
    }

    /// Known again: importance reinforced, `updated_at` refreshed, history noted.
    pub async fn reinforce(
        &mut self,
        target: Uuid,
        c: &Candidate,
        ctx: &FactContext,
        reason: &str,
    ) -> Result<String, StoreError> {
        let (content, restored): (String, bool) = sqlx::query_as(&format!(
            "UPDATE memories m SET importance = least(1, greatest(coalesce(o.base_importance, o.importance), $3) + 0.05),
                    {}, updated_at = $4
             FROM memories o WHERE o.tenant_id = m.tenant_id AND o.id = m.id AND m.tenant_id = $1 AND m.id = $2
             RETURNING m.content, o.archived_at IS NOT NULL",
            restated("$4")
        ))
        .bind(self.tenant)
        .bind(target)
        .bind(c.importance)
        .bind(self.now)
        .fetch_one(&mut *self.tx)
        .await?;
        self.history(
            target,
            "NOOP",
            Some(&content),
            Some(&c.statement),
            c,
            ctx,
            &restored_reason(reason, restored),
        )
        .await?;
        Ok(content)
    }

    #[allow(clippy::too_many_arguments)]
    async fn history(
        &mut self,
        memory: Uuid,
        event: &str,
        old: Option<&str>,
        new: Option<&str>,
        c: &Candidate,
        ctx: &FactContext,
        reason: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO memory_history (tenant_id, id, memory_id, event, old_content, new_content, actor, reason,
                 created_at, job_id, source_message, extractor, model, prompt_version, confidence)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
        )
        .bind(self.tenant)
        .bind(Uuid::now_v7())
        .bind(memory)
        .bind(event)
        .bind(old)
        .bind(new)
        .bind(&ctx.actor)
        .bind(reason)
        // Wall time, not the injected clock: history orders what was recorded when.
        .bind(Utc::now())
        .bind(self.job_id)
        .bind(&ctx.source_message)
        .bind(&ctx.extractor)
        .bind(&ctx.model)
        .bind(&ctx.prompt_version)
        .bind(c.confidence)
        .execute(&mut *self.tx)
        .await?;
        Ok(())
    }

    /// Marks the job done with its results (payload cleared) and commits all.
    pub async fn finish(mut self, results: &Value) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE jobs SET status = 'done', results = $3, payload = NULL, finished_at = now(),
                    locked_by = NULL, locked_until = NULL, last_error = NULL, updated_at = now()
             WHERE tenant_id = $1 AND id = $2",
        )
        .bind(self.tenant)
        .bind(self.job_id)
        .bind(results)
        .execute(&mut *self.tx)
        .await?;
        self.tx.commit().await?;
        Ok(())
    }
}
