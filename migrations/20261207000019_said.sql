-- The episodic layer (issue 50): every turn a conversation sends is kept as
-- it was said, cut into pieces the embedder reads whole; each piece names the
-- turn it came from, and a fact names the piece it was read from.
ALTER TABLE memories DROP CONSTRAINT memories_source_type_check;
ALTER TABLE memories ADD CONSTRAINT memories_source_type_check
    CHECK (source_type IN ('user_stated', 'inferred', 'tool', 'document', 'api', 'assistant'));

ALTER TABLE memories
    ADD COLUMN said_by text CHECK (said_by IN ('user', 'assistant')),
    ADD COLUMN turn_seq bigint CHECK (turn_seq >= 0),
    ADD COLUMN turn_piece integer CHECK (turn_piece >= 0),
    ADD COLUMN turn_pieces integer CHECK (turn_pieces >= 1),
    -- The speaker's name, when the message gave one (OpenAI's `name`).
    ADD COLUMN said_as text CHECK (length(said_as) BETWEEN 1 AND 64),
    ADD COLUMN evidence_id uuid;

-- The same words said again by the same speaker are one memory, whichever
-- session they were said in (a later saying reinforces it).
CREATE UNIQUE INDEX memories_said_uniq ON memories (
    tenant_id, (coalesce(user_id, '')), (coalesce(agent_id, '')), said_by, content_hash
) WHERE said_by IS NOT NULL AND deleted_at IS NULL AND superseded_by IS NULL;

-- A turn's pieces: replaced when a later turn redacts it, read for a fact's
-- evidence.
CREATE INDEX memories_turn_idx ON memories (tenant_id, session_id, turn_seq)
    WHERE turn_seq IS NOT NULL;
