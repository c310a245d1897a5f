-- Search scans a half-precision copy of each embedding.
--
-- An exact top-k within a scope reads every row of the scope. A 384-float
-- vector is 1,544 bytes, which puts most rows near Postgres's 2 kB TOAST
-- threshold: about half had their vector moved out of line, so a scan paid
-- a TOAST lookup per row. The halfvec copy is 772 bytes and stays in the row
-- (PLAIN storage), while the full vector (EXTERNAL) now goes out of line and
-- is read only where full precision matters (extraction's similarity,
-- consolidation, export). A user with 20,000 memories is scanned in about
-- half the time; cosine from half precision differs from full precision by
-- about 1e-4, and ranking with it keeps the same top 10
-- (docs/BENCHMARKS.md).
--
-- Adding a stored generated column rewrites the table once (about a minute
-- per million rows).
ALTER TABLE memories
    ADD COLUMN embedding_half halfvec(384)
        GENERATED ALWAYS AS (embedding::halfvec(384)) STORED,
    ALTER COLUMN embedding_half SET STORAGE PLAIN;
