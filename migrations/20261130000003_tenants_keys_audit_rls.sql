-- Tenants, API keys, the audit log, and row-level security as the second wall
-- between tenants (the first is the `tenant_id = $1` in every query).

-- API keys: random, shown once, stored as SHA-256 (the key has 256 bits of
-- entropy, so a slow password hash would add latency and no protection).
-- Admin keys belong to no tenant; tenant and read-only keys to exactly one.
CREATE TABLE api_keys (
    id           uuid PRIMARY KEY,
    tenant_id    uuid REFERENCES tenants (id),
    role         text NOT NULL CHECK (role IN ('admin', 'tenant', 'read-only')),
    name         text NOT NULL CHECK (length(btrim(name)) > 0),
    key_hash     bytea NOT NULL,
    created_by   text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz,
    CHECK ((role = 'admin') = (tenant_id IS NULL))
);

-- Who did what, when: admin actions, deletions, erasures. Never content: the
-- user a record is about is kept only as a hash (`subject_hash`, see
-- engram-core audit.rs), so erasing the user leaves no id behind, and `details`
-- holds counts and ids of rows, not text.
CREATE TABLE audit_log (
    tenant_id    uuid,
    id           uuid NOT NULL,
    at           timestamptz NOT NULL DEFAULT now(),
    actor        text NOT NULL,
    action       text NOT NULL,
    target       text,
    subject_hash text,
    request_id   text,
    details      jsonb NOT NULL DEFAULT '{}'::jsonb,
    PRIMARY KEY (id)
);

CREATE INDEX audit_log_at_idx ON audit_log (at DESC, id DESC);
CREATE INDEX audit_log_subject_idx ON audit_log (tenant_id, subject_hash) WHERE subject_hash IS NOT NULL;

-- Source purges find what one source produced: its memories, and the jobs that
-- read it (kept on the job, as the payload is cleared when the job ends).
CREATE INDEX memories_source_ref_idx ON memories (tenant_id, source_ref) WHERE source_ref IS NOT NULL;
ALTER TABLE jobs ADD COLUMN source_ref text;
CREATE INDEX jobs_source_ref_idx ON jobs (tenant_id, source_ref) WHERE source_ref IS NOT NULL;
-- Erasure and the admin view read a user's rows in every state.
CREATE INDEX memories_user_all_idx ON memories (tenant_id, user_id) WHERE user_id IS NOT NULL;

-- Row-level security. Tenant-scoped work runs as the role `engram_app` with
-- `engram.tenant_id` set for the transaction (engram-store `enter_tenant`); the
-- policies then hide every other tenant's rows even from a query that forgot
-- its tenant filter, and refuse writes into another tenant. Cross-tenant work
-- (claiming jobs, migrations, key lookups) runs as the connecting role, which
-- owns the tables and so is not subject to these policies.
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'engram_app') THEN
        CREATE ROLE engram_app NOLOGIN;
    END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
    -- Another database of this cluster created it at the same moment.
    NULL;
END
$$;

DO $$
BEGIN
    -- A superuser may SET ROLE to anything; any other owner needs membership.
    IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
        EXECUTE format('GRANT engram_app TO %I', current_user);
    END IF;
END
$$;

GRANT SELECT ON tenants TO engram_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON memories, memory_history, jobs TO engram_app;
GRANT SELECT, INSERT ON audit_log TO engram_app;

ALTER TABLE memories ENABLE ROW LEVEL SECURITY;
ALTER TABLE memory_history ENABLE ROW LEVEL SECURITY;
ALTER TABLE jobs ENABLE ROW LEVEL SECURITY;
ALTER TABLE audit_log ENABLE ROW LEVEL SECURITY;

CREATE POLICY tenant_isolation ON memories TO engram_app
    USING (tenant_id = nullif(current_setting('engram.tenant_id', true), '')::uuid)
    WITH CHECK (tenant_id = nullif(current_setting('engram.tenant_id', true), '')::uuid);
CREATE POLICY tenant_isolation ON memory_history TO engram_app
    USING (tenant_id = nullif(current_setting('engram.tenant_id', true), '')::uuid)
    WITH CHECK (tenant_id = nullif(current_setting('engram.tenant_id', true), '')::uuid);
CREATE POLICY tenant_isolation ON jobs TO engram_app
    USING (tenant_id = nullif(current_setting('engram.tenant_id', true), '')::uuid)
    WITH CHECK (tenant_id = nullif(current_setting('engram.tenant_id', true), '')::uuid);
CREATE POLICY tenant_isolation ON audit_log TO engram_app
    USING (tenant_id = nullif(current_setting('engram.tenant_id', true), '')::uuid)
    WITH CHECK (tenant_id = nullif(current_setting('engram.tenant_id', true), '')::uuid);
