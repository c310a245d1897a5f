"""Engram's MCP endpoint through a client nobody here wrote: the official
MCP Python SDK (pinned in requirements.txt), against a live `engram serve`
that scripts/test-mcp.sh starts (ENGRAM_URL, ENGRAM_API_KEY: an admin key;
ENGRAM_BIN: the binary whose `engram mcp` the stdio tests spawn)."""

import contextlib
import os
import uuid

import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture(scope="session")
def live() -> dict:
    url, key, binary = (os.environ.get(n) for n in ("ENGRAM_URL", "ENGRAM_API_KEY", "ENGRAM_BIN"))
    if not url or not key or not binary:
        pytest.skip("no live server: run through scripts/test-mcp.sh (make test)")
    return {"url": url.rstrip("/"), "key": key, "bin": binary}


class Admin:
    """The REST API with the admin key: to set up data and to check, from
    outside MCP, what a tool did or did not change."""

    def __init__(self, live: dict):
        self.http = httpx2.Client(base_url=live["url"], headers={"Authorization": f"Bearer {live['key']}"}, timeout=30)

    def key(self, user=None, agent=None, role="tenant") -> str:
        body = {"role": role, "tenant": "default", "name": "mcp-test", "user_id": user, "agent_id": agent}
        r = self.http.post("/v1/admin/keys", json={k: v for k, v in body.items() if v is not None})
        assert r.status_code == 201, r.text
        return r.json()["key"]

    def add(self, user: str, text: str) -> str:
        r = self.http.post("/v1/memories", json={"user_id": user, "text": text, "infer": False})
        assert r.status_code == 201, r.text
        return r.json()["results"][0]["id"]

    def rows(self, user: str) -> list:
        """Every memory of the user in every state, with its history: what a
        write through any tool would change."""
        r = self.http.get(f"/v1/admin/users/{user}/memories", params={"limit": 1000})
        assert r.status_code == 200, r.text
        return sorted(
            (m["id"], m["memory"], m["state"], m["pinned"], m["importance"], len(m["history"]))
            for m in r.json()["results"]
        )


@pytest.fixture(scope="session")
def admin(live) -> Admin:
    return Admin(live)


@pytest.fixture
def user() -> str:
    """A user of its own per test: tests share one server, never data."""
    return f"mcp-{uuid.uuid4().hex[:12]}"


def over_http(live: dict, key: str, mode: str = "legacy", **headers: "str | bytes") -> Client:
    """An SDK client on /mcp with this key (and any X-Engram-* header)."""
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}", **headers}, timeout=60)
    return Client(streamable_http_client(f"{live['url']}/mcp", http_client=http), mode=mode)


def over_stdio(live: dict, key: str, **env: str) -> Client:
    """An SDK client that spawns `engram mcp`, as a desktop client would."""
    params = StdioServerParameters(
        command=live["bin"],
        args=["mcp"],
        env={"ENGRAM_URL": live["url"], "ENGRAM_API_KEY": key, "RUST_LOG": "warn", **env},
    )
    return Client(params, mode="legacy")


@contextlib.contextmanager
def no_leak(admin: Admin, user: str):
    """Asserts that nothing of `user`'s changed inside the block."""
    before = admin.rows(user)
    yield
    assert admin.rows(user) == before
