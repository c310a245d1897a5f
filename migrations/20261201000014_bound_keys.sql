-- Keys bound to one user (and optionally one agent) of their tenant (issue
-- 20): a key that lives on an end user's device or in one agent's settings
-- acts only in that scope. Only tenant and read-only keys can be bound; an
-- agent binding needs a user.
ALTER TABLE api_keys ADD COLUMN user_id text;
ALTER TABLE api_keys ADD COLUMN agent_id text;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_binding_check
    CHECK ((user_id IS NULL OR role <> 'admin') AND (agent_id IS NULL OR user_id IS NOT NULL));
CREATE INDEX api_keys_user_idx ON api_keys (tenant_id, user_id) WHERE user_id IS NOT NULL;

-- A bound key holds its user's id, so erasing the user deletes the keys
-- bound to them. Erasure runs as the tenant role, which has no grant on
-- api_keys (keys span tenants): this function, owned by the table owner,
-- deletes only the transaction's own tenant's keys (`engram.tenant_id`).
CREATE FUNCTION engram_forget_subject_keys(subject_user text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    tenant uuid := nullif(current_setting('engram.tenant_id', true), '')::uuid;
    n bigint;
BEGIN
    IF tenant IS NULL THEN
        RAISE EXCEPTION 'engram_forget_subject_keys needs engram.tenant_id';
    END IF;
    DELETE FROM api_keys k WHERE k.tenant_id = tenant AND k.user_id = subject_user;
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END
$$;

REVOKE ALL ON FUNCTION engram_forget_subject_keys(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION engram_forget_subject_keys(text) TO engram_app;
