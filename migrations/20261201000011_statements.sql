-- Remember only what is true and safe (issue 16).

-- Two more ways a memory leaves: the user takes the fact back (RETRACT: "I
-- no longer work at X") or asks that it be forgotten (FORGET). Both are
-- soft deletes that revert undoes.
ALTER TABLE memory_history DROP CONSTRAINT memory_history_event_check;

ALTER TABLE memory_history ADD CONSTRAINT memory_history_event_check
    CHECK (event IN ('ADD', 'UPDATE', 'SUPERSEDE', 'MERGE', 'NOOP', 'DELETE', 'REVERT', 'ARCHIVE', 'RETRACT', 'FORGET'));

-- An Idempotency-Key names one request: its fingerprint (scope and body) is
-- kept, so the same key with a different request is refused instead of
-- answered with another request's job.
ALTER TABLE jobs ADD COLUMN request_fingerprint text;
