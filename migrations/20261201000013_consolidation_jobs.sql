-- Consolidation runs as a job the workers take (issue 18): the API enqueues
-- it like any other background work instead of running it in the request's
-- process.
ALTER TABLE jobs DROP CONSTRAINT jobs_kind_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_kind_check CHECK (kind IN ('extract', 'summarize', 'consolidate'));
