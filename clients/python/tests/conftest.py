"""The client suite runs against a live `engram serve` that
`scripts/test-clients.sh` starts (ENGRAM_URL, ENGRAM_API_KEY); without one
the live tests are skipped."""

import os
import uuid

import pytest

from engram_client import Engram


@pytest.fixture(scope="session")
def live() -> dict:
    url, key = os.environ.get("ENGRAM_URL"), os.environ.get("ENGRAM_API_KEY")
    if not url or not key:
        pytest.skip("no live server: run through scripts/test-clients.sh (make test)")
    return {"url": url, "key": key}


@pytest.fixture()
def client(live):
    with Engram(live["url"], live["key"]) as c:
        yield c


@pytest.fixture()
def user() -> str:
    """A user of its own per test: tests share one server, never data."""
    return f"py-{uuid.uuid4().hex[:12]}"
