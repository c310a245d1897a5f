"""`Engram` (blocking) and `AsyncEngram` (asyncio), on httpx."""

from __future__ import annotations

import asyncio
import time
from typing import Any, AsyncIterator, Callable, Dict, Iterator, Optional

import httpx

from . import models as m
from ._core import Call, Config, check, job_backoff, read, retry_delay, split_add
from ._errors import JobFailedError, JobTimeoutError
from . import _resources, _resources_async


class _Base:
    def __init__(
        self,
        base_url: Optional[str],
        api_key: Optional[str],
        tenant: Optional[str],
        timeout: float,
        max_retries: int,
        retry_budget: float,
        backoff: float,
    ) -> None:
        self._cfg = Config.resolve(base_url, api_key, tenant, timeout, max_retries, retry_budget, backoff)

    def _request(self, call: Call) -> httpx.Request:
        headers = {**self._cfg.headers(), **call.headers}
        return httpx.Request(
            call.method,
            self._cfg.base_url + call.path,
            params=call.params,
            json=call.json if call.json is not None else None,
            headers=headers,
        )


class Engram(_Base):
    """A blocking client. `base_url` and `api_key` default to `ENGRAM_URL`
    and `ENGRAM_API_KEY`; 429 and 503 answers are retried (honouring
    Retry-After) up to `max_retries` times within `retry_budget` seconds."""

    def __init__(
        self,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        *,
        tenant: Optional[str] = None,
        timeout: float = 30.0,
        max_retries: int = 3,
        retry_budget: float = 30.0,
        backoff: float = 0.25,
        http_client: Optional[httpx.Client] = None,
    ) -> None:
        super().__init__(base_url, api_key, tenant, timeout, max_retries, retry_budget, backoff)
        self._http = http_client or httpx.Client(timeout=timeout)
        self.memories = _resources.Memories(self)
        self.jobs = _resources.Jobs(self)
        self.sessions = _resources.Sessions(self)
        self.users = _resources.Users(self)
        self.context = _resources.Context(self)
        self.admin = _resources.Admin(self)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "Engram":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _send(self, call: Call) -> "tuple[int, Any]":
        spent, attempt = 0.0, 0
        while True:
            r = self._http.send(self._request(call))
            parsed = read(r.status_code, r.content, r.headers.get("content-type", ""))
            delay = retry_delay(self._cfg, r.status_code, r.headers.get("retry-after"), attempt, spent)
            if delay is None:
                check(r.status_code, parsed)
                return r.status_code, parsed
            time.sleep(delay)
            spent += delay
            attempt += 1

    def _run(self, call: Call) -> Any:
        status, parsed = self._send(call)
        return call.parse(status, parsed)

    def _add(self, call: Call, wait: bool) -> m.AddOutcome:
        status, b = self._send(call)
        memories, job, job_id = split_add(status, b)
        if wait and job is None and job_id:
            job = self._wait_job(job_id, 120.0, False).model_dump()
        return m.AddOutcome.model_validate({"memories": memories, "job": job, "job_id": job_id})

    def _wait_job(self, id: str, timeout: float, raise_on_failure: bool) -> m.Job:
        deadline = time.monotonic() + timeout
        attempt = 0
        while True:
            job = self.jobs.get(id)
            if job.ended:
                if job.status == "failed" and raise_on_failure:
                    raise JobFailedError(job)
                return job
            if time.monotonic() >= deadline:
                raise JobTimeoutError(f"job {id} is still {job.status} after {timeout} s")
            time.sleep(job_backoff(attempt))
            attempt += 1

    def _pages(self, page: Callable[..., m.ListResponse], filters: Dict[str, Any]) -> Iterator[m.Memory]:
        cursor = filters.pop("cursor", None)
        while True:
            p = page(cursor=cursor, **filters)
            yield from p.results
            if not p.next_cursor:
                return
            cursor = p.next_cursor

    def _export(self, path: str, file: Any) -> Any:
        if file is None:
            return self._run(Call("GET", path))
        req = self._request(Call("GET", path))
        r = self._http.send(req, stream=True)
        try:
            if r.status_code >= 400:
                r.read()
                check(r.status_code, read(r.status_code, r.content, r.headers.get("content-type", "")))
            if hasattr(file, "write"):
                for chunk in r.iter_bytes():
                    file.write(chunk)
            else:
                with open(file, "wb") as f:
                    for chunk in r.iter_bytes():
                        f.write(chunk)
        finally:
            r.close()
        return None


class AsyncEngram(_Base):
    """The asyncio client: the same resources and methods, each awaited
    (`await client.memories.search(...)`; `async for m in client.memories.list(...)`)."""

    def __init__(
        self,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        *,
        tenant: Optional[str] = None,
        timeout: float = 30.0,
        max_retries: int = 3,
        retry_budget: float = 30.0,
        backoff: float = 0.25,
        http_client: Optional[httpx.AsyncClient] = None,
    ) -> None:
        super().__init__(base_url, api_key, tenant, timeout, max_retries, retry_budget, backoff)
        self._http = http_client or httpx.AsyncClient(timeout=timeout)
        self.memories = _resources_async.Memories(self)
        self.jobs = _resources_async.Jobs(self)
        self.sessions = _resources_async.Sessions(self)
        self.users = _resources_async.Users(self)
        self.context = _resources_async.Context(self)
        self.admin = _resources_async.Admin(self)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> "AsyncEngram":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def _send(self, call: Call) -> "tuple[int, Any]":
        spent, attempt = 0.0, 0
        while True:
            r = await self._http.send(self._request(call))
            parsed = read(r.status_code, r.content, r.headers.get("content-type", ""))
            delay = retry_delay(self._cfg, r.status_code, r.headers.get("retry-after"), attempt, spent)
            if delay is None:
                check(r.status_code, parsed)
                return r.status_code, parsed
            await asyncio.sleep(delay)
            spent += delay
            attempt += 1

    async def _run(self, call: Call) -> Any:
        status, parsed = await self._send(call)
        return call.parse(status, parsed)

    async def _add(self, call: Call, wait: bool) -> m.AddOutcome:
        status, b = await self._send(call)
        memories, job, job_id = split_add(status, b)
        if wait and job is None and job_id:
            job = (await self._wait_job(job_id, 120.0, False)).model_dump()
        return m.AddOutcome.model_validate({"memories": memories, "job": job, "job_id": job_id})

    async def _wait_job(self, id: str, timeout: float, raise_on_failure: bool) -> m.Job:
        deadline = time.monotonic() + timeout
        attempt = 0
        while True:
            job = await self.jobs.get(id)
            if job.ended:
                if job.status == "failed" and raise_on_failure:
                    raise JobFailedError(job)
                return job
            if time.monotonic() >= deadline:
                raise JobTimeoutError(f"job {id} is still {job.status} after {timeout} s")
            await asyncio.sleep(job_backoff(attempt))
            attempt += 1

    async def _pages(self, page: Callable[..., Any], filters: Dict[str, Any]) -> AsyncIterator[m.Memory]:
        cursor = filters.pop("cursor", None)
        while True:
            p = await page(cursor=cursor, **filters)
            for item in p.results:
                yield item
            if not p.next_cursor:
                return
            cursor = p.next_cursor

    async def _export(self, path: str, file: Any) -> Any:
        if file is None:
            return await self._run(Call("GET", path))
        req = self._request(Call("GET", path))
        r = await self._http.send(req, stream=True)
        try:
            if r.status_code >= 400:
                await r.aread()
                check(r.status_code, read(r.status_code, r.content, r.headers.get("content-type", "")))
            with open(file, "wb") as f:
                async for chunk in r.aiter_bytes():
                    f.write(chunk)
        finally:
            await r.aclose()
        return None
