-- Hardening (issue 15): consolidation records a user as started before it
-- touches them, so a run that died on a user (a panic, a killed process) is
-- resumed past that user instead of failing on it again.

ALTER TABLE consolidation_progress ADD COLUMN status text NOT NULL DEFAULT 'done';

ALTER TABLE consolidation_progress ADD CONSTRAINT consolidation_progress_status_check
    CHECK (status IN ('started', 'done', 'failed'));

ALTER TABLE consolidation_progress ALTER COLUMN finished_at DROP NOT NULL;

ALTER TABLE consolidation_progress ALTER COLUMN finished_at DROP DEFAULT;
