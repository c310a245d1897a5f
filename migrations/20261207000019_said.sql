-- The episodic layer (issue 50): every turn a conversation sends is kept as
-- it was said, cut into pieces the embedder reads whole; each piece names the
-- turn it came from, and a fact names the piece it was read from.
ALTER TABLE memories DROP CONSTRAINT memories_source_type_check;
ALTER TABLE memories ADD CONSTRAINT memories_source_type_check
    CHECK (source_type IN ('user_stated', 'inferred', 'tool', 'document', 'api', 'assistant'));

-- Columns first, then each constraint named and on its own: Citus refuses
-- a column added with an unnamed constraint, and constraints added together.
ALTER TABLE memories
    ADD COLUMN said_by text,
    ADD COLUMN turn_seq bigint,
    ADD COLUMN turn_piece integer,
    ADD COLUMN turn_pieces integer,
    -- The speaker's name, when the message gave one (OpenAI's `name`).
    ADD COLUMN said_as text,
    ADD COLUMN evidence_id uuid;
ALTER TABLE memories ADD CONSTRAINT memories_said_by_check CHECK (said_by IN ('user', 'assistant'));
ALTER TABLE memories ADD CONSTRAINT memories_turn_seq_check CHECK (turn_seq >= 0);
ALTER TABLE memories ADD CONSTRAINT memories_turn_piece_check CHECK (turn_piece >= 0);
ALTER TABLE memories ADD CONSTRAINT memories_turn_pieces_check CHECK (turn_pieces >= 1);
ALTER TABLE memories ADD CONSTRAINT memories_said_as_check CHECK (length(said_as) BETWEEN 1 AND 64);

-- The same words said again by the same speaker are one memory, whichever
-- session they were said in (a later saying reinforces it).
CREATE UNIQUE INDEX memories_said_uniq ON memories (
    tenant_id, (coalesce(user_id, '')), (coalesce(agent_id, '')), said_by, content_hash
) WHERE said_by IS NOT NULL AND deleted_at IS NULL AND superseded_by IS NULL;

-- A turn's pieces: replaced when a later turn redacts it, read for a fact's
-- evidence.
CREATE INDEX memories_turn_idx ON memories (tenant_id, session_id, turn_seq)
    WHERE turn_seq IS NOT NULL;
