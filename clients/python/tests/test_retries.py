"""Errors and retries, against a scripted transport: every answer is
deterministic here (the live suite covers the real server's answers)."""

import time

import httpx
import pytest

from engram_client import Engram, RateLimitError, UnavailableError, ValidationError


def scripted(answers):
    """A client whose transport answers with `answers` in turn, recording requests."""
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        status, headers, body = answers[min(len(seen) - 1, len(answers) - 1)]
        return httpx.Response(status, headers=headers, json=body)

    http = httpx.Client(transport=httpx.MockTransport(handler))
    return seen, http


PROBLEM_429 = {"type": "urn:engram:problem:rate-limited", "title": "Too many requests", "status": 429, "detail": "slow down"}
PROBLEM_503 = {"type": "urn:engram:problem:overloaded", "title": "Overloaded", "status": 503, "detail": "busy"}
EMPTY_LIST = {"results": [], "next_cursor": None}


def test_429_and_503_are_retried_honouring_retry_after():
    seen, http = scripted([
        (429, {"retry-after": "0"}, PROBLEM_429),
        (503, {"retry-after": "0"}, PROBLEM_503),
        (200, {}, EMPTY_LIST),
    ])
    c = Engram("http://engram.test", "k", http_client=http, max_retries=3)
    assert c.memories.list_page(user_id="u").results == []
    assert len(seen) == 3
    assert seen[0].headers["authorization"] == "Bearer k"


def test_retry_after_is_waited_and_the_budget_bounds_it():
    seen, http = scripted([(429, {"retry-after": "1"}, PROBLEM_429), (200, {}, EMPTY_LIST)])
    c = Engram("http://engram.test", "k", http_client=http, retry_budget=5)
    start = time.monotonic()
    c.memories.list_page(user_id="u")
    assert time.monotonic() - start >= 0.95, "Retry-After: 1 was honoured"
    # A Retry-After past the budget is not waited: the error comes at once.
    seen, http = scripted([(503, {"retry-after": "60"}, PROBLEM_503)])
    c = Engram("http://engram.test", "k", http_client=http, retry_budget=2)
    start = time.monotonic()
    with pytest.raises(UnavailableError) as e:
        c.memories.list_page(user_id="u")
    assert time.monotonic() - start < 1
    assert e.value.kind == "overloaded" and e.value.status == 503
    assert len(seen) == 1


def test_retries_stop_at_max_retries():
    seen, http = scripted([(429, {}, PROBLEM_429)])
    c = Engram("http://engram.test", "k", http_client=http, max_retries=2, backoff=0.001)
    with pytest.raises(RateLimitError):
        c.memories.list_page(user_id="u")
    assert len(seen) == 3, "the first try and two retries"


def test_other_errors_are_not_retried_and_carry_the_problem():
    problem = {"type": "urn:engram:problem:validation", "title": "Invalid request", "status": 422,
               "detail": "user_id: must not be empty", "field": "user_id"}
    seen, http = scripted([(422, {}, problem)])
    c = Engram("http://engram.test", "k", http_client=http)
    with pytest.raises(ValidationError) as e:
        c.memories.add(user_id="", text="x")
    assert (e.value.status, e.value.field, e.value.kind) == (422, "user_id", "validation")
    assert len(seen) == 1
