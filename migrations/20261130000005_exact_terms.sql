-- Lexical search matches names, acronyms and numbers exactly as well as by
-- their English stem: `simple` keeps every word unstemmed, stop words too
-- ("May", "Will"). Only the search's own scan of a scope reads it, so no index.
ALTER TABLE memories
    ADD COLUMN content_exact_tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', content)) STORED;
