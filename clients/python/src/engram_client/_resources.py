"""The API's resources as method groups. Each method describes one call
(`Call`); the client runs it (at once for `Engram`, as a coroutine for
`AsyncEngram`). Keyword arguments are named as the API's fields."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from . import models as m
from ._core import Call, body, params, path


def _model(cls: Any) -> Any:
    return lambda status, b: cls.model_validate(b)


class _Group:
    def __init__(self, client: Any) -> None:
        self._c = client

    def _run(self, call: Call) -> Any:
        return self._c._run(call)


class Memories(_Group):
    def add(
        self,
        *,
        user_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        session_id: Optional[str] = None,
        text: Optional[str] = None,
        messages: Optional[Sequence[Dict[str, Any]]] = None,
        infer: Optional[bool] = None,
        wait: Optional[bool] = None,
        metadata: Optional[Dict[str, Any]] = None,
        importance: Optional[float] = None,
        kind: Optional[str] = None,
        pinned: Optional[bool] = None,
        expires_at: Optional[str] = None,
        ttl_seconds: Optional[int] = None,
        source: Optional[Dict[str, Any]] = None,
        store_raw: Optional[bool] = None,
        allow_sensitive: Optional[bool] = None,
        trusted: Optional[bool] = None,
        idempotency_key: Optional[str] = None,
    ) -> m.AddOutcome:
        """Adds a text or messages. With `wait=True` (inference on) the
        result holds the finished job however the server answered: the
        client keeps waiting if the server's own wait ran out."""
        b = body(
            user_id=user_id, agent_id=agent_id, session_id=session_id, text=text,
            messages=list(messages) if messages is not None else None, infer=infer,
            wait=wait, metadata=metadata, importance=importance, kind=kind, pinned=pinned,
            expires_at=expires_at, ttl_seconds=ttl_seconds, source=source,
            store_raw=store_raw, allow_sensitive=allow_sensitive, trusted=trusted,
        )
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
        return self._c._add(Call("POST", "/v1/memories", json=b, headers=headers), bool(wait))

    def search(
        self,
        *,
        query: str,
        user_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        session_id: Optional[str] = None,
        top_k: Optional[int] = None,
        threshold: Optional[float] = None,
        filters: Optional[Dict[str, Any]] = None,
        mode: Optional[str] = None,
        weights: Optional[Dict[str, float]] = None,
        half_life_days: Optional[float] = None,
        lexical_weight: Optional[float] = None,
        signal_weights: Optional[Dict[str, float]] = None,
        query_time: Optional[str] = None,
        reference_time: Optional[str] = None,
        include_superseded: Optional[bool] = None,
        include_expired: Optional[bool] = None,
    ) -> m.SearchResponse:
        b = body(
            query=query, user_id=user_id, agent_id=agent_id, session_id=session_id,
            top_k=top_k, threshold=threshold, filters=filters, mode=mode, weights=weights,
            half_life_days=half_life_days, lexical_weight=lexical_weight,
            signal_weights=signal_weights, query_time=query_time, reference_time=reference_time,
            include_superseded=include_superseded, include_expired=include_expired,
        )
        return self._run(Call("POST", "/v1/memories/search", json=b, parse=_model(m.SearchResponse)))

    def get(self, id: str) -> m.Memory:
        return self._run(Call("GET", path("/v1/memories/{id}", id=id), parse=_model(m.Memory)))

    def list_page(
        self,
        *,
        user_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        session_id: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        include_superseded: Optional[bool] = None,
        include_expired: Optional[bool] = None,
        said: Optional[bool] = None,
    ) -> m.ListResponse:
        """One page; `list` iterates over all of them. `said=True`: only what was
        said (the turns kept as episodic memories); `said=False`: the rest."""
        q = params(
            user_id=user_id, agent_id=agent_id, session_id=session_id, limit=limit,
            cursor=cursor, include_superseded=include_superseded, include_expired=include_expired,
            said=said,
        )
        return self._run(Call("GET", "/v1/memories", params=q, parse=_model(m.ListResponse)))

    def list(self, **filters: Any) -> Any:
        """Every memory of the scope, page after page (an iterator; an async
        iterator on `AsyncEngram`)."""
        return self._c._pages(self.list_page, filters)

    def update(
        self,
        id: str,
        *,
        memory: Optional[str] = None,
        metadata: Optional[Dict[str, Any]] = None,
        importance: Optional[float] = None,
        pinned: Optional[bool] = None,
        expires_at: Any = ...,
    ) -> m.Memory:
        b = body(memory=memory, metadata=metadata, importance=importance, pinned=pinned)
        if expires_at is not ...:
            b["expires_at"] = expires_at
        return self._run(Call("PATCH", path("/v1/memories/{id}", id=id), json=b, parse=_model(m.Memory)))

    def delete(self, id: str) -> None:
        return self._run(Call("DELETE", path("/v1/memories/{id}", id=id), parse=lambda s, b: None))

    def delete_scope(
        self,
        *,
        user_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        session_id: Optional[str] = None,
    ) -> Dict[str, Any]:
        """Hard-deletes everything the scope holds; `{deleted, counts}`."""
        q = params(user_id=user_id, agent_id=agent_id, session_id=session_id)
        return self._run(Call("DELETE", "/v1/memories", params=q))

    def history(self, id: str) -> List[m.HistoryEntry]:
        return self._run(Call(
            "GET", path("/v1/memories/{id}/history", id=id),
            parse=lambda s, b: [m.HistoryEntry.model_validate(e) for e in b["results"]],
        ))

    def revert(self, id: str) -> m.Memory:
        return self._run(Call("POST", path("/v1/memories/{id}/revert", id=id), json={}, parse=_model(m.Memory)))


class Jobs(_Group):
    def get(self, id: str) -> m.Job:
        return self._run(Call("GET", path("/v1/jobs/{id}", id=id), parse=_model(m.Job)))

    def retry(self, id: str) -> m.Job:
        """Runs a failed job again from its first attempt, with the input it kept
        (after fixing the model behind the failure); 409 if it has not failed."""
        return self._run(Call("POST", path("/v1/jobs/{id}/retry", id=id), json={}, parse=_model(m.Job)))

    def list_page(self, *, user_id: Optional[str] = None, agent_id: Optional[str] = None,
                  session_id: Optional[str] = None, status: Optional[str] = None, kind: Optional[str] = None,
                  limit: Optional[int] = None, cursor: Optional[str] = None) -> m.JobPage:
        """One page of the tenant's jobs, newest first (a bound key: its user's)."""
        q = params(user_id=user_id, agent_id=agent_id, session_id=session_id, status=status, kind=kind,
                   limit=limit, cursor=cursor)
        return self._run(Call("GET", "/v1/jobs", params=q, parse=_model(m.JobPage)))

    def wait(self, id: str, *, timeout: float = 60.0, raise_on_failure: bool = True) -> m.Job:
        """Polls the job with backoff until it ends (`JobTimeoutError` after
        `timeout` seconds; `JobFailedError` if it failed, unless told not to)."""
        return self._c._wait_job(id, timeout, raise_on_failure)


class Sessions(_Group):
    def append(
        self,
        session_id: str,
        *,
        user_id: str,
        messages: Sequence[Dict[str, Any]],
        infer: Optional[bool] = None,
        window_tokens: Optional[int] = None,
        allow_sensitive: Optional[bool] = None,
        trusted: Optional[bool] = None,
        store_raw: Optional[bool] = None,
    ) -> m.AppendMessagesResponse:
        b = body(user_id=user_id, messages=list(messages), infer=infer, window_tokens=window_tokens,
                 allow_sensitive=allow_sensitive, trusted=trusted, store_raw=store_raw)
        return self._run(Call("POST", path("/v1/sessions/{s}/messages", s=session_id), json=b,
                              parse=_model(m.AppendMessagesResponse)))

    def get(self, session_id: str) -> m.Session:
        return self._run(Call("GET", path("/v1/sessions/{s}", s=session_id), parse=_model(m.Session)))

    def messages(self, session_id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> m.SessionMessagesPage:
        q = params(limit=limit, cursor=cursor)
        return self._run(Call("GET", path("/v1/sessions/{s}/messages", s=session_id), params=q,
                              parse=_model(m.SessionMessagesPage)))

    def delete(self, session_id: str) -> m.ErasureReceipt:
        return self._run(Call("DELETE", path("/v1/sessions/{s}/messages", s=session_id),
                              parse=_model(m.ErasureReceipt)))


class Users(_Group):
    def me(self) -> m.Caller:
        """The calling key: its tenant, role, and the user it is bound to, if any."""
        return self._run(Call("GET", "/v1/me", parse=_model(m.Caller)))

    def profile(self, user_id: str, *, limit: Optional[int] = None) -> m.Profile:
        return self._run(Call("GET", path("/v1/users/{u}/profile", u=user_id), params=params(limit=limit),
                              parse=_model(m.Profile)))

    def update_profile(
        self,
        user_id: str,
        *,
        id: str,
        value: Optional[str] = None,
        memory: Optional[str] = None,
        remove: Optional[bool] = None,
    ) -> m.Profile:
        b = body(id=id, value=value, memory=memory, remove=remove)
        return self._run(Call("PATCH", path("/v1/users/{u}/profile", u=user_id), json=b, parse=_model(m.Profile)))


class Admin(_Group):
    def create_key(self, *, role: str, name: str, tenant: Optional[str] = None,
                   user_id: Optional[str] = None, agent_id: Optional[str] = None) -> m.CreatedKey:
        """A new key (shown once); with `user_id` (and `agent_id`) it acts only for that user."""
        b = body(role=role, name=name, tenant=tenant, user_id=user_id, agent_id=agent_id)
        return self._run(Call("POST", "/v1/admin/keys", json=b, parse=_model(m.CreatedKey)))

    def keys(self) -> List[m.Key]:
        return self._run(Call("GET", "/v1/admin/keys", parse=lambda s, b: [m.Key.model_validate(k) for k in b["results"]]))

    def revoke_key(self, id: str) -> None:
        return self._run(Call("DELETE", path("/v1/admin/keys/{id}", id=id), parse=lambda s, b: None))

    def user_memories(self, user_id: str, *, states: Optional[Sequence[str]] = None,
                      limit: Optional[int] = None, cursor: Optional[str] = None) -> m.AdminList:
        q = params(states=states, limit=limit, cursor=cursor)
        return self._run(Call("GET", path("/v1/admin/users/{u}/memories", u=user_id), params=q,
                              parse=_model(m.AdminList)))

    def search_user(self, user_id: str, *, query: str, states: Optional[Sequence[str]] = None,
                    top_k: Optional[int] = None) -> m.AdminList:
        b = body(query=query, states=list(states) if states else None, top_k=top_k)
        return self._run(Call("POST", path("/v1/admin/users/{u}/search", u=user_id), json=b,
                              parse=_model(m.AdminList)))

    def purge_memory(self, user_id: str, id: str) -> m.ErasureReceipt:
        return self._run(Call("DELETE", path("/v1/admin/users/{u}/memories/{id}", u=user_id, id=id),
                              parse=_model(m.ErasureReceipt)))

    def export(self, user_id: str, file: Any = None) -> Any:
        """The user's export document: parsed, or written to `file` (a path
        or a binary file object) as it streams."""
        return self._c._export(path("/v1/admin/users/{u}/export", u=user_id), file)

    def user_overview(self, user_id: str) -> m.UserOverview:
        """Counts by state and kind, last activity, sessions."""
        return self._run(Call("GET", path("/v1/admin/users/{u}", u=user_id), parse=_model(m.UserOverview)))

    def erase_user(self, user_id: str, *, dry_run: Optional[bool] = None) -> m.ErasureReceipt:
        """`dry_run=True` counts what would go and changes nothing."""
        return self._run(Call("DELETE", path("/v1/admin/users/{u}", u=user_id), params=params(dry_run=dry_run),
                              parse=_model(m.ErasureReceipt)))

    def purge_source(self, source_ref: str, *, dry_run: Optional[bool] = None) -> m.ErasureReceipt:
        return self._run(Call("DELETE", path("/v1/admin/sources/{r}", r=source_ref), params=params(dry_run=dry_run),
                              parse=_model(m.ErasureReceipt)))

    def consolidate(self, *, user_id: Optional[str] = None, dry_run: Optional[bool] = None,
                    wait: Optional[bool] = None) -> Any:
        """A finished run (`ConsolidationRun`) with `wait=True`, else `{job_id, status}`."""
        b = body(user_id=user_id, dry_run=dry_run, wait=wait)
        return self._run(Call("POST", "/v1/admin/consolidate", json=b,
                              parse=lambda s, b: m.ConsolidationRun.model_validate(b) if s == 200 else b))

    def consolidation_runs(self, *, limit: Optional[int] = None) -> List[m.ConsolidationRun]:
        return self._run(Call("GET", "/v1/admin/consolidation-runs", params=params(limit=limit),
                              parse=lambda s, b: [m.ConsolidationRun.model_validate(r) for r in b["runs"]]))

    def audit(self, *, action: Optional[str] = None, user_id: Optional[str] = None,
              actor: Optional[str] = None, since: Optional[str] = None, until: Optional[str] = None,
              limit: Optional[int] = None, cursor: Optional[str] = None) -> m.AuditList:
        q = params(action=action, user_id=user_id, actor=actor, since=since, until=until, limit=limit, cursor=cursor)
        return self._run(Call("GET", "/v1/admin/audit", params=q, parse=_model(m.AuditList)))


class Context(_Group):
    def __call__(
        self,
        *,
        user_id: str,
        query: str,
        token_budget: int,
        session_id: Optional[str] = None,
        top_k: Optional[int] = None,
        include: Optional[Sequence[str]] = None,
        reference_time: Optional[str] = None,
    ) -> m.ContextResponse:
        """The memory block to put in a prompt, within `token_budget` tokens."""
        b = body(user_id=user_id, query=query, token_budget=token_budget, session_id=session_id,
                 top_k=top_k, include=list(include) if include else None, reference_time=reference_time)
        return self._run(Call("POST", "/v1/context", json=b, parse=_model(m.ContextResponse)))

    build = __call__
