-- Source purges and the provenance of a deleted fact look up history rows by
-- the job that wrote them: an index for it. Two statements, each executed on
-- its own (engram-store migrate.rs): on Citus this is the first migration
-- applied after distribution.
CREATE INDEX memory_history_job_idx ON memory_history (tenant_id, job_id) WHERE job_id IS NOT NULL;
COMMENT ON INDEX memory_history_job_idx IS 'source purges and provenance: history rows by the job that wrote them';
