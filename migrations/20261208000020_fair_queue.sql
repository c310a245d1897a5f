-- A fair queue (issue 51): one tenant's burst must not delay every other
-- tenant's extraction. Workers serve the tenant served longest ago first
-- (`job_turns`, one row per tenant: no personal data), and within a tenant
-- each user in turn: a job's `user_turn` is its place in its user's queue,
-- never behind the tenant's oldest waiting turn (start-time fair queuing),
-- so a user who queues 300 jobs takes one turn in each round, not 300.
ALTER TABLE jobs ADD COLUMN user_turn bigint NOT NULL DEFAULT 0;

CREATE TABLE job_turns (
    tenant_id uuid NOT NULL,
    served_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id)
);

-- What a claim reads: a tenant's waiting jobs by turn, and a user's last turn.
CREATE INDEX jobs_fair_idx ON jobs (tenant_id, user_turn, run_at)
    WHERE status IN ('queued', 'running');
CREATE INDEX jobs_user_turn_idx ON jobs (tenant_id, user_id, user_turn)
    WHERE status IN ('queued', 'running');

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_extension WHERE extname = 'citus') THEN
        PERFORM create_distributed_table('job_turns', 'tenant_id', colocate_with => 'jobs');
    END IF;
END
$$;
