-- Restating an archived memory restores it: an add looks its text up among
-- the archived ones. Under row-level security the planner cannot use the
-- live-content index's coalesce(...) columns, so without this small index
-- (archived rows only) that lookup read every row of the tenant.
CREATE INDEX memories_archived_content_idx ON memories (tenant_id, content_hash)
    WHERE archived_at IS NOT NULL AND deleted_at IS NULL AND superseded_by IS NULL;
