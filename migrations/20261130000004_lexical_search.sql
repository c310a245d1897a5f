-- Lexical (BM25) search needs each memory's length in lexemes and the scope's
-- average; keeping the length in its own column spares reading every
-- tsvector of a scope on each search.
ALTER TABLE memories
    ADD COLUMN lexeme_count integer GENERATED ALWAYS AS (length(to_tsvector('english', content))) STORED;
