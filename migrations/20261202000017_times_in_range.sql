-- Every stored instant within the range the API accepts (engram-core
-- `time`: 0001-01-01 to 9999-12-31 UTC). Postgres also holds 'infinity',
-- '-infinity' and years up to 294276, which the chrono decoder cannot
-- represent: one such row made every read of it fail. Rows already out of
-- range are clamped to the nearest end first; the constraints then keep new
-- ones out, whatever writes them (the API, an import, hand-written SQL).
UPDATE memories SET created_at = least(greatest(created_at, '0001-01-01 00:00:00+00'), '9999-12-31 23:59:59.999999+00') WHERE created_at NOT BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00';
UPDATE memories SET updated_at = least(greatest(updated_at, '0001-01-01 00:00:00+00'), '9999-12-31 23:59:59.999999+00') WHERE updated_at NOT BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00';
UPDATE memories SET last_used_at = least(greatest(last_used_at, '0001-01-01 00:00:00+00'), '9999-12-31 23:59:59.999999+00') WHERE last_used_at NOT BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00';
UPDATE memories SET expires_at = least(greatest(expires_at, '0001-01-01 00:00:00+00'), '9999-12-31 23:59:59.999999+00') WHERE expires_at NOT BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00';
UPDATE memories SET deleted_at = least(greatest(deleted_at, '0001-01-01 00:00:00+00'), '9999-12-31 23:59:59.999999+00') WHERE deleted_at NOT BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00';
UPDATE memories SET archived_at = least(greatest(archived_at, '0001-01-01 00:00:00+00'), '9999-12-31 23:59:59.999999+00') WHERE archived_at NOT BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00';
UPDATE memory_history SET created_at = least(greatest(created_at, '0001-01-01 00:00:00+00'), '9999-12-31 23:59:59.999999+00') WHERE created_at NOT BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00';
UPDATE jobs SET run_at = least(greatest(run_at, '0001-01-01 00:00:00+00'), '9999-12-31 23:59:59.999999+00') WHERE run_at NOT BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00';
UPDATE jobs SET locked_until = least(greatest(locked_until, '0001-01-01 00:00:00+00'), '9999-12-31 23:59:59.999999+00') WHERE locked_until NOT BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00';
UPDATE jobs SET created_at = least(greatest(created_at, '0001-01-01 00:00:00+00'), '9999-12-31 23:59:59.999999+00') WHERE created_at NOT BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00';
UPDATE jobs SET updated_at = least(greatest(updated_at, '0001-01-01 00:00:00+00'), '9999-12-31 23:59:59.999999+00') WHERE updated_at NOT BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00';
UPDATE jobs SET finished_at = least(greatest(finished_at, '0001-01-01 00:00:00+00'), '9999-12-31 23:59:59.999999+00') WHERE finished_at NOT BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00';
UPDATE sessions SET created_at = least(greatest(created_at, '0001-01-01 00:00:00+00'), '9999-12-31 23:59:59.999999+00') WHERE created_at NOT BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00';
UPDATE sessions SET updated_at = least(greatest(updated_at, '0001-01-01 00:00:00+00'), '9999-12-31 23:59:59.999999+00') WHERE updated_at NOT BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00';
UPDATE session_messages SET created_at = least(greatest(created_at, '0001-01-01 00:00:00+00'), '9999-12-31 23:59:59.999999+00') WHERE created_at NOT BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00';
UPDATE session_messages SET summarized_at = least(greatest(summarized_at, '0001-01-01 00:00:00+00'), '9999-12-31 23:59:59.999999+00') WHERE summarized_at NOT BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00';
UPDATE session_messages SET redacted_at = least(greatest(redacted_at, '0001-01-01 00:00:00+00'), '9999-12-31 23:59:59.999999+00') WHERE redacted_at NOT BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00';
UPDATE session_summaries SET updated_at = least(greatest(updated_at, '0001-01-01 00:00:00+00'), '9999-12-31 23:59:59.999999+00') WHERE updated_at NOT BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00';
UPDATE api_keys SET created_at = least(greatest(created_at, '0001-01-01 00:00:00+00'), '9999-12-31 23:59:59.999999+00') WHERE created_at NOT BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00';
UPDATE api_keys SET last_used_at = least(greatest(last_used_at, '0001-01-01 00:00:00+00'), '9999-12-31 23:59:59.999999+00') WHERE last_used_at NOT BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00';
UPDATE api_keys SET revoked_at = least(greatest(revoked_at, '0001-01-01 00:00:00+00'), '9999-12-31 23:59:59.999999+00') WHERE revoked_at NOT BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00';
UPDATE audit_log SET at = least(greatest(at, '0001-01-01 00:00:00+00'), '9999-12-31 23:59:59.999999+00') WHERE at NOT BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00';
ALTER TABLE memories ADD CONSTRAINT memories_times_in_range CHECK (
    created_at BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00'
    AND updated_at BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00'
    AND (last_used_at IS NULL OR last_used_at BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00')
    AND (expires_at IS NULL OR expires_at BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00')
    AND (deleted_at IS NULL OR deleted_at BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00')
    AND (archived_at IS NULL OR archived_at BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00'));
ALTER TABLE memory_history ADD CONSTRAINT memory_history_times_in_range CHECK (
    created_at BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00');
ALTER TABLE jobs ADD CONSTRAINT jobs_times_in_range CHECK (
    run_at BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00'
    AND created_at BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00'
    AND updated_at BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00'
    AND (locked_until IS NULL OR locked_until BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00')
    AND (finished_at IS NULL OR finished_at BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00'));
ALTER TABLE sessions ADD CONSTRAINT sessions_times_in_range CHECK (
    created_at BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00'
    AND updated_at BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00');
ALTER TABLE session_messages ADD CONSTRAINT session_messages_times_in_range CHECK (
    created_at BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00'
    AND (summarized_at IS NULL OR summarized_at BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00')
    AND (redacted_at IS NULL OR redacted_at BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00'));
ALTER TABLE session_summaries ADD CONSTRAINT session_summaries_times_in_range CHECK (
    updated_at BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00');
ALTER TABLE api_keys ADD CONSTRAINT api_keys_times_in_range CHECK (
    created_at BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00'
    AND (last_used_at IS NULL OR last_used_at BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00')
    AND (revoked_at IS NULL OR revoked_at BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00'));
ALTER TABLE audit_log ADD CONSTRAINT audit_log_times_in_range CHECK (
    at BETWEEN '0001-01-01 00:00:00+00' AND '9999-12-31 23:59:59.999999+00');
