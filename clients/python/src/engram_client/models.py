"""Typed models of Engram's answers, written to match `openapi.yaml` (a test
compares every model's fields with the spec's). Unknown fields a newer
server adds are ignored, not errors."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Dict, List, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class Source(_Model):
    type: str
    ref: Optional[str] = None


class Memory(_Model):
    id: str
    memory: str
    user_id: Optional[str] = None
    agent_id: Optional[str] = None
    session_id: Optional[str] = None
    kind: str
    subject: Optional[str] = None
    attribute: Optional[str] = None
    value: Optional[str] = None
    importance: float
    sensitivity: Optional[str] = None
    source: Source
    confidence: Optional[float] = None
    metadata: Dict[str, Any] = Field(default_factory=dict)
    pinned: bool = False
    access_count: int = 0
    created_at: datetime
    updated_at: datetime
    last_used_at: Optional[datetime] = None
    expires_at: Optional[datetime] = None
    superseded_by: Optional[str] = None
    archived_at: Optional[datetime] = None
    provenance: Optional[Dict[str, Any]] = None


class Scores(_Model):
    relevance: float
    dense: Optional[float] = None
    lexical: Optional[float] = None
    time: Optional[float] = None
    neighbours: Optional[float] = None
    session: Optional[float] = None
    names: Optional[float] = None
    recency: float
    importance: float


class SearchHit(Memory):
    score: float
    scores: Scores


class SearchResponse(_Model):
    results: List[SearchHit]
    query_time: Optional[Dict[str, Any]] = None


class ListResponse(_Model):
    results: List[Memory]
    next_cursor: Optional[str] = None


class AddResult(_Model):
    id: str
    memory: str
    event: str
    redacted: List[str] = Field(default_factory=list)


class JobResult(_Model):
    event: str
    memory_id: Optional[str] = None
    replaced: List[str] = Field(default_factory=list)
    old_content: Optional[str] = None
    new_content: Optional[str] = None
    attribute: Optional[str] = None
    reason: str
    message_index: Optional[int] = None


class ConsolidationOutcome(_Model):
    outcome: Literal["run", "busy"]
    run_id: Optional[str] = None


class Job(_Model):
    job_id: str
    kind: Literal["extract", "summarize", "consolidate"]
    status: Literal["queued", "running", "done", "failed"]
    attempts: int
    max_attempts: int
    error: Optional[str] = None
    results: List[Union[JobResult, ConsolidationOutcome, Dict[str, Any]]] = Field(default_factory=list)
    user_id: Optional[str] = None
    agent_id: Optional[str] = None
    session_id: Optional[str] = None
    created_at: datetime
    updated_at: datetime
    finished_at: Optional[datetime] = None

    @property
    def ended(self) -> bool:
        return self.status in ("done", "failed")


class JobPage(_Model):
    results: List[Job]
    next_cursor: Optional[str] = None


class AddOutcome(_Model):
    """What `memories.add` returns, whatever the server answered (201 for a
    verbatim add, 202 with a job, 200 with the finished job): the memories
    stored at once, and the extraction job when there is one."""

    memories: List[AddResult] = Field(default_factory=list)
    job: Optional[Job] = None
    job_id: Optional[str] = None

    @property
    def results(self) -> List[JobResult]:
        """The finished job's outcome per fact (empty while it runs)."""
        if self.job is None:
            return []
        return [r for r in self.job.results if isinstance(r, JobResult)]


class HistoryEntry(_Model):
    id: str
    memory_id: str
    event: str
    job_id: Optional[str] = None
    source_message: Optional[str] = None
    extractor: Optional[str] = None
    model: Optional[str] = None
    prompt_version: Optional[str] = None
    confidence: Optional[float] = None
    old_content: Optional[str] = None
    new_content: Optional[str] = None
    old_metadata: Optional[Dict[str, Any]] = None
    new_metadata: Optional[Dict[str, Any]] = None
    actor: str
    reason: Optional[str] = None
    created_at: datetime


class Turn(_Model):
    id: str
    seq: int
    role: str
    content: str
    tokens: int
    created_at: datetime
    summarized_at: Optional[datetime] = None


class SkippedMessage(_Model):
    """A message of the request that was not stored: its place, and why
    (\"empty\")."""
    index: int
    reason: str


class AppendMessagesResponse(_Model):
    session_id: str
    user_id: str
    messages: List[Turn]
    left_window: int
    summarize_job_id: Optional[str] = None
    extract_job_id: Optional[str] = None
    skipped: List[SkippedMessage] = Field(default_factory=list)


class SessionMessagesPage(_Model):
    session_id: str
    user_id: str
    messages: List[Turn]
    next_cursor: Optional[str] = None


class Session(_Model):
    session_id: str
    user_id: str
    window_tokens: int
    summary: Optional[Dict[str, Any]] = None
    window: List[Turn]
    created_at: datetime
    updated_at: datetime


class ContextResponse(_Model):
    text: str
    tokens_used: int
    token_budget: int
    tokenizer: str
    parts: List[Dict[str, Any]]
    query_time: Optional[Dict[str, Any]] = None


class Profile(_Model):
    user_id: str
    entries: List[Memory]
    summary: Optional[Dict[str, Any]] = None


class Key(_Model):
    id: str
    tenant_id: Optional[str] = None
    tenant: Optional[str] = None
    role: str
    name: str
    created_by: str
    created_at: datetime
    last_used_at: Optional[datetime] = None
    revoked_at: Optional[datetime] = None
    user_id: Optional[str] = None
    agent_id: Optional[str] = None


class Caller(_Model):
    """The calling key: its tenant, role, and the user (and agent) it is bound to."""

    tenant_id: str
    role: str
    key_id: Optional[str] = None
    user_id: Optional[str] = None
    agent_id: Optional[str] = None


class CreatedKey(Key):
    key: str


class AdminMemory(Memory):
    state: str
    deleted_at: Optional[datetime] = None
    history: List[HistoryEntry] = Field(default_factory=list)
    relevance: Optional[float] = None


class AdminList(_Model):
    results: List[AdminMemory]
    next_cursor: Optional[str] = None


class ErasureReceipt(_Model):
    request_id: Optional[str] = None
    tenant_id: str
    completed_at: datetime
    #: True for a dry run: nothing was changed, the counts are what would go.
    dry_run: bool = False
    counts: Dict[str, int]


class SessionOverview(_Model):
    session_id: str
    turns: int
    memories: int
    last_activity_at: datetime


class UserOverview(_Model):
    user_id: str
    memories: int
    by_state: Dict[str, int]
    by_kind: Dict[str, int]
    last_activity_at: Optional[datetime] = None
    sessions_total: int
    sessions: List[SessionOverview] = Field(default_factory=list)


class AuditEntry(_Model):
    id: str
    tenant_id: Optional[str] = None
    at: datetime
    actor: str
    action: str
    target: Optional[str] = None
    subject_hash: Optional[str] = None
    request_id: Optional[str] = None
    details: Dict[str, Any] = Field(default_factory=dict)


class AuditList(_Model):
    results: List[AuditEntry]
    next_cursor: Optional[str] = None


class ConsolidationRun(_Model):
    id: str
    tenant_id: Optional[str] = None
    scope: str
    subject_hash: Optional[str] = None
    dry_run: bool
    trigger: str
    status: str
    started_at: datetime
    heartbeat_at: datetime
    finished_at: Optional[datetime] = None
    users_done: int
    counts: Dict[str, int]
    errors: List[str]
    planned: Optional[List[Dict[str, Any]]] = None


#: Each model and the `openapi.yaml` schema it mirrors (checked by a test).
SCHEMAS = {
    Source: "Source",
    Memory: "Memory",
    Scores: "Scores",
    SearchHit: "SearchHit",
    SearchResponse: "SearchResponse",
    ListResponse: "ListResponse",
    AddResult: "AddResult",
    JobResult: "JobResult",
    ConsolidationOutcome: "ConsolidationOutcome",
    Job: "Job",
    HistoryEntry: "HistoryEntry",
    Turn: "Turn",
    AppendMessagesResponse: "AppendMessagesResponse",
    SessionMessagesPage: "SessionMessagesPage",
    Session: "Session",
    ContextResponse: "ContextResponse",
    Profile: "Profile",
    Key: "Key",
    Caller: "Caller",
    CreatedKey: "CreatedKey",
    AdminMemory: "AdminMemory",
    AdminList: "AdminList",
    ErasureReceipt: "ErasureReceipt",
    UserOverview: "UserOverview",
    AuditEntry: "AuditEntry",
    AuditList: "AuditList",
    ConsolidationRun: "ConsolidationRun",
}
