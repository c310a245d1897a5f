-- Outgrowing one machine (issue 21): on Citus, shard every tenant table by
-- tenant_id, so a tenant's (and so a user's) rows and queries stay on one
-- shard. On plain PostgreSQL (no `citus` extension) this does nothing.
--
-- Decisions for the tables without tenant_id in their keys:
-- - tenants: a reference table (copied to every node), the target of the
--   distributed tables' foreign keys.
-- - api_keys, consolidation_runs, consolidation_progress: stay on the
--   coordinator (their foreign key to tenants makes them Citus local tables):
--   few rows, read only by the coordinator, keys that span tenants.
-- - audit_log, deployment_secrets, embedder_settings: plain coordinator
--   tables, for the same reasons.
--
-- The coordinator must be in Citus's metadata first
-- (`SELECT citus_set_coordinator_host(...)`), and the role engram_app must be
-- able to log in to the workers with a password they accept: Citus opens
-- worker connections as the current role (docs/SCALING.md).
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'citus') THEN
        RETURN;
    END IF;
    -- Foreign keys to tenants are added back after distribution: Citus
    -- refuses a reference table's incoming keys from local tables that are
    -- then distributed.
    ALTER TABLE memories DROP CONSTRAINT memories_tenant_id_fkey;
    ALTER TABLE jobs DROP CONSTRAINT jobs_tenant_id_fkey;
    ALTER TABLE sessions DROP CONSTRAINT sessions_tenant_id_fkey;
    PERFORM create_reference_table('tenants');
    PERFORM create_distributed_table('memories', 'tenant_id');
    PERFORM create_distributed_table('memory_history', 'tenant_id', colocate_with => 'memories');
    PERFORM create_distributed_table('jobs', 'tenant_id', colocate_with => 'memories');
    PERFORM create_distributed_table('sessions', 'tenant_id', colocate_with => 'memories');
    PERFORM create_distributed_table('session_messages', 'tenant_id', colocate_with => 'memories');
    PERFORM create_distributed_table('session_summaries', 'tenant_id', colocate_with => 'memories');
    ALTER TABLE memories ADD CONSTRAINT memories_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants (id);
    ALTER TABLE jobs ADD CONSTRAINT jobs_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants (id);
    ALTER TABLE sessions ADD CONSTRAINT sessions_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants (id);
    -- The tenant setting of a transaction (SET LOCAL engram.tenant_id) must
    -- reach the workers its statements run on.
    EXECUTE format('ALTER DATABASE %I SET citus.propagate_set_commands = %L', current_database(), 'local');
    -- Citus connects to the workers as the role running the statement.
    ALTER ROLE engram_app LOGIN;
END
$$;
