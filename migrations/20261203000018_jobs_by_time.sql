-- The operations view lists a tenant's jobs newest first (GET /v1/jobs).
CREATE INDEX jobs_tenant_created_idx ON jobs (tenant_id, created_at, id);
