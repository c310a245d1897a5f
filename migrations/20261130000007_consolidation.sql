-- Consolidation: decay works from the importance as stated (base_importance;
-- NULL means "importance as it is"), archived memories are kept out of
-- default search but restorable, and every run is recorded with its progress
-- per user so a run killed midway resumes without redoing finished users.
ALTER TABLE memories
    ADD COLUMN base_importance real CHECK (base_importance BETWEEN 0 AND 1),
    ADD COLUMN archived_at     timestamptz;

CREATE TABLE consolidation_runs (
    id           uuid PRIMARY KEY,
    -- NULL: every tenant; user_id NULL: every user.
    tenant_id    uuid REFERENCES tenants (id),
    user_id      text,
    dry_run      boolean NOT NULL,
    trigger      text NOT NULL CHECK (trigger IN ('schedule', 'cli', 'api')),
    status       text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'failed')),
    started_at   timestamptz NOT NULL DEFAULT now(),
    heartbeat_at timestamptz NOT NULL DEFAULT now(),
    finished_at  timestamptz,
    users_done   integer NOT NULL DEFAULT 0,
    counts       jsonb NOT NULL DEFAULT '{}'::jsonb,
    errors       jsonb NOT NULL DEFAULT '[]'::jsonb,
    -- A dry run's planned operations.
    planned      jsonb
);
CREATE INDEX consolidation_runs_started_idx ON consolidation_runs (started_at DESC);

CREATE TABLE consolidation_progress (
    run_id      uuid NOT NULL REFERENCES consolidation_runs (id) ON DELETE CASCADE,
    tenant_id   uuid NOT NULL,
    user_id     text NOT NULL,
    finished_at timestamptz NOT NULL DEFAULT now(),
    counts      jsonb NOT NULL,
    PRIMARY KEY (run_id, tenant_id, user_id)
);

ALTER TABLE memory_history DROP CONSTRAINT memory_history_event_check;
ALTER TABLE memory_history ADD CONSTRAINT memory_history_event_check
    CHECK (event IN ('ADD', 'UPDATE', 'SUPERSEDE', 'MERGE', 'NOOP', 'DELETE', 'REVERT', 'ARCHIVE'));
