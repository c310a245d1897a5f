-- Sessions: the turns of one conversation, its short-term window (the newest
-- turns within a token budget) and the running summary of the turns that
-- left it. A session belongs to the user who opened it.
CREATE TABLE sessions (
    tenant_id     uuid NOT NULL REFERENCES tenants (id),
    session_id    text NOT NULL,
    user_id       text NOT NULL,
    window_tokens integer NOT NULL CHECK (window_tokens > 0),
    next_seq      bigint NOT NULL DEFAULT 0,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, session_id)
);
CREATE INDEX sessions_user_idx ON sessions (tenant_id, user_id);

CREATE TABLE session_messages (
    tenant_id   uuid NOT NULL,
    session_id  text NOT NULL,
    seq         bigint NOT NULL,
    id          uuid NOT NULL,
    role        text NOT NULL CHECK (role IN ('user', 'assistant', 'system', 'tool')),
    content     text NOT NULL,
    tokens      integer NOT NULL CHECK (tokens >= 0),
    created_at  timestamptz NOT NULL,
    -- Set when the turn left the window and was folded into the summary.
    summarized_at timestamptz,
    PRIMARY KEY (tenant_id, session_id, seq),
    UNIQUE (tenant_id, id),
    FOREIGN KEY (tenant_id, session_id) REFERENCES sessions (tenant_id, session_id) ON DELETE CASCADE
);

-- One running summary per session; first_seq..last_seq are the turns it covers.
CREATE TABLE session_summaries (
    tenant_id   uuid NOT NULL,
    session_id  text NOT NULL,
    content     text NOT NULL,
    tokens      integer NOT NULL,
    first_seq   bigint NOT NULL,
    last_seq    bigint NOT NULL,
    summarizer  text NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, session_id),
    FOREIGN KEY (tenant_id, session_id) REFERENCES sessions (tenant_id, session_id) ON DELETE CASCADE
);

ALTER TABLE jobs DROP CONSTRAINT jobs_kind_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_kind_check CHECK (kind IN ('extract', 'summarize'));

GRANT SELECT, INSERT, UPDATE, DELETE ON sessions, session_messages, session_summaries TO engram_app;
ALTER TABLE sessions ENABLE ROW LEVEL SECURITY;
ALTER TABLE session_messages ENABLE ROW LEVEL SECURITY;
ALTER TABLE session_summaries ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON sessions TO engram_app
    USING (tenant_id = nullif(current_setting('engram.tenant_id', true), '')::uuid)
    WITH CHECK (tenant_id = nullif(current_setting('engram.tenant_id', true), '')::uuid);
CREATE POLICY tenant_isolation ON session_messages TO engram_app
    USING (tenant_id = nullif(current_setting('engram.tenant_id', true), '')::uuid)
    WITH CHECK (tenant_id = nullif(current_setting('engram.tenant_id', true), '')::uuid);
CREATE POLICY tenant_isolation ON session_summaries TO engram_app
    USING (tenant_id = nullif(current_setting('engram.tenant_id', true), '')::uuid)
    WITH CHECK (tenant_id = nullif(current_setting('engram.tenant_id', true), '')::uuid);
