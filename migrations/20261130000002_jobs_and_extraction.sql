-- Background extraction: durable jobs, and the provenance of extracted facts.

ALTER TABLE memories
    ADD COLUMN value          text,
    ADD COLUMN extractor      text,
    ADD COLUMN model          text,
    ADD COLUMN prompt_version text,
    ADD COLUMN job_id         uuid;

-- Decisions look up live memories by subject + attribute within a scope.
CREATE INDEX memories_attribute_idx ON memories (tenant_id, user_id, subject, attribute)
    WHERE deleted_at IS NULL AND superseded_by IS NULL AND attribute IS NOT NULL;

ALTER TABLE memory_history
    ADD COLUMN job_id         uuid,
    ADD COLUMN source_message text,
    ADD COLUMN extractor      text,
    ADD COLUMN model          text,
    ADD COLUMN prompt_version text,
    ADD COLUMN confidence     real;
ALTER TABLE memory_history DROP CONSTRAINT memory_history_event_check;
ALTER TABLE memory_history ADD CONSTRAINT memory_history_event_check
    CHECK (event IN ('ADD', 'UPDATE', 'SUPERSEDE', 'MERGE', 'NOOP', 'DELETE', 'REVERT'));

-- Jobs are rows: claimed with FOR UPDATE SKIP LOCKED under a lease, retried with
-- backoff, failed visibly after max_attempts. The payload (the messages) is
-- cleared when the job ends, and never holds a secret (redacted at enqueue).
CREATE TABLE jobs (
    tenant_id       uuid NOT NULL REFERENCES tenants (id),
    id              uuid NOT NULL,
    kind            text NOT NULL CHECK (kind IN ('extract')),
    status          text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
    user_id         text,
    agent_id        text,
    session_id      text,
    payload         jsonb,
    results         jsonb NOT NULL DEFAULT '[]'::jsonb,
    attempts        integer NOT NULL DEFAULT 0,
    max_attempts    integer NOT NULL DEFAULT 5 CHECK (max_attempts > 0),
    run_at          timestamptz NOT NULL DEFAULT now(),
    locked_until    timestamptz,
    locked_by       text,
    last_error      text,
    idempotency_key text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    finished_at     timestamptz,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, idempotency_key)
);

CREATE INDEX jobs_ready_idx ON jobs (run_at) WHERE status IN ('queued', 'running');
CREATE INDEX jobs_user_idx ON jobs (tenant_id, user_id);
