-- Forgetting without residue (issue 17).

-- Secrets of the deployment, generated once by the first process that needs
-- them (engram-store `subject_key`). Read as the table owner only: the
-- tenant role (engram_app) has no grant on this table.
CREATE TABLE deployment_secrets (
    name       text PRIMARY KEY,
    secret     bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- Consolidation records name no one. A run for one user keeps the user's
-- keyed pseudonym (as the audit log does), progress rows the same, and a dry
-- run's plan only operations, memory ids and rules (no text). Erasure
-- deletes a user's progress rows, user-scoped runs and planned entries.
ALTER TABLE consolidation_runs ADD COLUMN scope text NOT NULL DEFAULT 'everyone'
    CHECK (scope IN ('everyone', 'user'));
ALTER TABLE consolidation_runs ADD COLUMN subject_hash text;
UPDATE consolidation_runs SET scope = 'user' WHERE user_id IS NOT NULL;
ALTER TABLE consolidation_runs DROP COLUMN user_id;
-- Plans written before this version quote memory text: dropped.
UPDATE consolidation_runs SET planned = NULL WHERE planned IS NOT NULL;
-- Errors named users by an unkeyed hash, which a guess reproduces.
UPDATE consolidation_runs SET errors = (
    SELECT coalesce(jsonb_agg(to_jsonb(regexp_replace(e, '^user [0-9a-f]{64}: ', 'a user: '))), '[]'::jsonb)
    FROM jsonb_array_elements_text(errors) e)
WHERE jsonb_array_length(errors) > 0;
-- Progress is kept only to resume a run; rows of earlier versions name
-- users. A run still going is ended (the next scheduled run starts afresh).
UPDATE consolidation_runs SET status = 'failed', finished_at = now(),
       errors = errors || '["stopped by the upgrade that removed user ids from consolidation records"]'::jsonb
WHERE status = 'running';
DELETE FROM consolidation_progress;
ALTER TABLE consolidation_progress DROP CONSTRAINT consolidation_progress_pkey;
ALTER TABLE consolidation_progress DROP COLUMN user_id;
ALTER TABLE consolidation_progress ADD COLUMN subject_hash text NOT NULL;
ALTER TABLE consolidation_progress ADD PRIMARY KEY (run_id, tenant_id, subject_hash);
CREATE INDEX consolidation_progress_subject_idx ON consolidation_progress (tenant_id, subject_hash);

-- A turn whose content was redacted because a fact drawn from it was
-- deleted keeps its place in the conversation as a marker. A session counts
-- its redactions: a summary built from turns read before one is not saved
-- (its job retries on the redacted turns).
ALTER TABLE session_messages ADD COLUMN redacted_at timestamptz;
ALTER TABLE sessions ADD COLUMN redactions bigint NOT NULL DEFAULT 0;

-- Erasure runs as the tenant role, which has no grant on the consolidation
-- tables (their runs span tenants). These functions, owned by the table
-- owner, remove exactly one tenant's records about one subject (or about
-- some memories): the tenant is the transaction's own (`engram.tenant_id`),
-- never an argument, so the wall between tenants holds.
CREATE FUNCTION engram_forget_consolidation_subject(subject text,
    OUT progress bigint, OUT runs bigint, OUT plans bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    tenant uuid := nullif(current_setting('engram.tenant_id', true), '')::uuid;
BEGIN
    IF tenant IS NULL THEN
        RAISE EXCEPTION 'engram_forget_consolidation_subject needs engram.tenant_id';
    END IF;
    DELETE FROM consolidation_progress p WHERE p.tenant_id = tenant AND p.subject_hash = subject;
    GET DIAGNOSTICS progress = ROW_COUNT;
    DELETE FROM consolidation_runs r WHERE r.tenant_id = tenant AND r.subject_hash = subject;
    GET DIAGNOSTICS runs = ROW_COUNT;
    UPDATE consolidation_runs r SET planned = (
        SELECT coalesce(jsonb_agg(e), '[]'::jsonb) FROM jsonb_array_elements(r.planned) e
        WHERE NOT (e->>'tenant_id' = tenant::text AND e->>'subject_hash' = subject))
    WHERE r.planned @> jsonb_build_array(jsonb_build_object('tenant_id', tenant, 'subject_hash', subject));
    GET DIAGNOSTICS plans = ROW_COUNT;
END
$$;

CREATE FUNCTION engram_forget_planned_memories(ids uuid[]) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    tenant uuid := nullif(current_setting('engram.tenant_id', true), '')::uuid;
    names text[] := ids::text[];
    n bigint;
BEGIN
    IF tenant IS NULL THEN
        RAISE EXCEPTION 'engram_forget_planned_memories needs engram.tenant_id';
    END IF;
    IF coalesce(array_length(ids, 1), 0) = 0 THEN
        RETURN 0;
    END IF;
    UPDATE consolidation_runs r SET planned = (
        SELECT jsonb_agg(CASE WHEN e->>'tenant_id' = tenant::text
            THEN jsonb_set(e, '{operations}', (
                SELECT coalesce(jsonb_agg(o), '[]'::jsonb) FROM jsonb_array_elements(e->'operations') o
                WHERE NOT (o->'memory_ids') ?| names))
            ELSE e END)
        FROM jsonb_array_elements(r.planned) e)
    WHERE r.planned IS NOT NULL AND (r.tenant_id IS NULL OR r.tenant_id = tenant)
      AND EXISTS (SELECT 1 FROM jsonb_array_elements(r.planned) e, jsonb_array_elements(e->'operations') o
                  WHERE e->>'tenant_id' = tenant::text AND (o->'memory_ids') ?| names);
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END
$$;

REVOKE ALL ON FUNCTION engram_forget_consolidation_subject(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION engram_forget_planned_memories(uuid[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION engram_forget_consolidation_subject(text) TO engram_app;
GRANT EXECUTE ON FUNCTION engram_forget_planned_memories(uuid[]) TO engram_app;
