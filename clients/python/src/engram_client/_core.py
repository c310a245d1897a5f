"""What the sync and async clients share: configuration, the request a call
makes, how an answer is read, and when to retry. No I/O here."""

from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Mapping, Optional, Tuple
from urllib.parse import quote

from ._errors import error_from

DEFAULT_URL = "http://127.0.0.1:8420"
RETRIED = (429, 503)


@dataclass
class Config:
    base_url: str
    api_key: Optional[str]
    tenant: Optional[str]
    timeout: float
    max_retries: int
    retry_budget: float
    backoff: float

    @classmethod
    def resolve(
        cls,
        base_url: Optional[str],
        api_key: Optional[str],
        tenant: Optional[str],
        timeout: float,
        max_retries: int,
        retry_budget: float,
        backoff: float,
    ) -> "Config":
        url = base_url or os.environ.get("ENGRAM_URL") or DEFAULT_URL
        return cls(
            base_url=url.rstrip("/"),
            api_key=api_key if api_key is not None else os.environ.get("ENGRAM_API_KEY"),
            tenant=tenant,
            timeout=timeout,
            max_retries=max_retries,
            retry_budget=retry_budget,
            backoff=backoff,
        )

    def headers(self) -> Dict[str, str]:
        h = {"Accept": "application/json", "User-Agent": "engram-client-python/0.1.0"}
        if self.api_key:
            h["Authorization"] = f"Bearer {self.api_key}"
        if self.tenant:
            h["X-Engram-Tenant"] = self.tenant
        return h


@dataclass
class Call:
    """One API call: what to send and how to read the answer."""

    method: str
    path: str
    params: Optional[Mapping[str, Any]] = None
    json: Any = None
    headers: Dict[str, str] = field(default_factory=dict)
    parse: Callable[[int, Any], Any] = lambda status, body: body


def path(template: str, **segments: str) -> str:
    """`/v1/memories/{id}` with each segment percent-encoded."""
    return template.format(**{k: quote(str(v), safe="") for k, v in segments.items()})


def body(**fields: Any) -> Dict[str, Any]:
    """A request body of the fields given (None means "not sent")."""
    return {k: v for k, v in fields.items() if v is not None}


def params(**fields: Any) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for k, v in fields.items():
        if v is None:
            continue
        if isinstance(v, bool):
            out[k] = "true" if v else "false"
        elif isinstance(v, (list, tuple)):
            out[k] = ",".join(str(x) for x in v)
        else:
            out[k] = v
    return out


def read(status: int, content: bytes, content_type: str) -> Any:
    if not content:
        return None
    if "json" in content_type:
        try:
            return json.loads(content)
        except ValueError:
            return content.decode("utf-8", "replace")
    return content.decode("utf-8", "replace")


def check(status: int, parsed: Any) -> None:
    if status >= 400:
        raise error_from(status, parsed)


def retry_delay(
    cfg: Config, status: int, retry_after: Optional[str], attempt: int, spent: float
) -> Optional[float]:
    """Seconds to wait before retrying a 429 or 503, or None to give up: at
    most `max_retries` retries within `retry_budget` seconds in all; the
    server's Retry-After when it sends one, else exponential backoff with
    jitter."""
    if status not in RETRIED or attempt >= cfg.max_retries:
        return None
    delay: Optional[float] = None
    if retry_after:
        try:
            delay = max(0.0, float(retry_after))
        except ValueError:
            delay = None
    if delay is None:
        delay = cfg.backoff * (2**attempt) * (0.5 + random.random() / 2)
    if spent + delay > cfg.retry_budget:
        return None
    return delay


def job_backoff(attempt: int) -> float:
    """Polling interval for a job: 50 ms doubling to 1 s."""
    return min(1.0, 0.05 * (2**attempt))


def split_add(status: int, body: Any) -> Tuple[list, Optional[dict], Optional[str]]:
    """The three answers of POST /v1/memories as (stored memories, finished
    job, job id): 201 verbatim, 200 finished job, 202 queued job."""
    if status == 201:
        return body.get("results", []), None, None
    if status == 200:
        return [], body, body.get("job_id")
    return body.get("raw", []), None, body.get("job_id")
