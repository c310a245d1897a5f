"""Mem0's released Python client (mem0ai 2.2.1, pinned) against a live Engram.

Nothing of the client is changed: only `host` points at Engram's /mem0 routes
and the key is an Engram key. Run by scripts/test-mem0-clients.sh (part of
`make test`) with ENGRAM_URL and ENGRAM_API_KEY (the server's admin key).
"""

import os
import time
import uuid
from datetime import datetime

import httpx
import pytest
from mem0 import MemoryClient
from mem0.exceptions import AuthenticationError, MemoryNotFoundError, ValidationError

URL = os.environ["ENGRAM_URL"]
ADMIN = os.environ["ENGRAM_API_KEY"]
HOST = f"{URL}/mem0"


def engram_key(**binding):
    """A key made through Engram's own admin API."""
    body = {"role": "tenant", "tenant": "default", "name": "mem0-client", **binding}
    r = httpx.post(f"{URL}/v1/admin/keys", json=body, headers={"Authorization": f"Bearer {ADMIN}"})
    assert r.status_code == 201, r.text
    return r.json()["key"]


@pytest.fixture(scope="module")
def client():
    return MemoryClient(api_key=engram_key(), host=HOST)


def wait_for_event(client, event_id):
    for _ in range(200):
        event = client.client.get(f"/v1/event/{event_id}/").json()
        if event["status"] in ("SUCCEEDED", "FAILED"):
            return event
        time.sleep(0.05)
    raise AssertionError(f"event {event_id} did not finish")


def assert_memory_shape(m):
    assert isinstance(m["id"], str) and uuid.UUID(m["id"])
    assert isinstance(m["memory"], str) and m["memory"]
    datetime.fromisoformat(m["created_at"].replace("Z", "+00:00"))
    datetime.fromisoformat(m["updated_at"].replace("Z", "+00:00"))
    assert m["metadata"] is None or isinstance(m["metadata"], dict)
    assert isinstance(m["categories"], list)
    if "score" in m:
        assert 0.0 <= m["score"] <= 1.0


def test_a_wrong_key_fails_in_the_constructor():
    with pytest.raises(ValueError, match="Error: "):
        MemoryClient(api_key="not-a-key", host=HOST)


def test_add_search_list_get_update_history_delete(client):
    user = f"alice-{uuid.uuid4().hex[:8]}"
    added = client.add([{"role": "user", "content": "I live in Lisbon."}], user_id=user, infer=False,
                       metadata={"topic": "home"})
    assert added["status"] == "SUCCEEDED"
    lisbon = added["results"][0]["id"]
    client.add("I play the cello.", user_id=user, infer=False)

    queued = client.add([{"role": "user", "content": "I work at Acme as a nurse."}], user_id=user)
    assert queued["status"] == "PENDING" and queued["event_id"]
    event = wait_for_event(client, queued["event_id"])
    assert event["status"] == "SUCCEEDED", event
    assert event["results"] and all(r["event"] == "ADD" for r in event["results"]), event

    found = client.search("which city do I live in", filters={"user_id": user}, top_k=3)
    assert "I live in Lisbon." in [m["memory"] for m in found["results"]], found
    assert len(found["results"]) <= 3
    for m in found["results"]:
        assert_memory_shape(m)
    only_home = client.search("anything", filters={"AND": [{"user_id": user}, {"metadata": {"topic": "home"}}]})
    assert [m["memory"] for m in only_home["results"]] == ["I live in Lisbon."]

    # The two verbatim adds, the facts, and the inferred message kept as it
    # was said (Engram's episodic layer: nothing said is lost).
    total = 2 + len(event["results"]) + 1
    page = client.get_all(filters={"user_id": user}, page=1, page_size=2)
    assert page["count"] == total and len(page["results"]) == 2 and page["next"] and page["previous"] is None
    last = client.get_all(filters={"user_id": user}, page=2, page_size=2)
    assert len(last["results"]) == min(2, total - 2) and last["previous"]
    for m in page["results"] + last["results"]:
        assert_memory_shape(m)

    got = client.get(lisbon)
    assert got["memory"] == "I live in Lisbon." and got["user_id"] == user and got["metadata"] == {"topic": "home"}
    updated = client.update(lisbon, text="I live in Porto.")
    assert updated["memory"] == "I live in Porto."
    history = client.history(lisbon)
    assert [h["event"] for h in history] == ["ADD", "UPDATE"]
    assert history[1]["old_memory"] == "I live in Lisbon." and history[1]["new_memory"] == "I live in Porto."

    assert "deleted" in client.delete(lisbon)["message"]
    with pytest.raises(MemoryNotFoundError):
        client.get(lisbon)
    client.delete_all(user_id=user)
    assert client.get_all(filters={"user_id": user})["count"] == 0


def test_supersession_shows_as_an_update_with_its_reason(client):
    user = f"ben-{uuid.uuid4().hex[:8]}"
    wait_for_event(client, client.add("I live in Berlin.", user_id=user)["event_id"])
    event = wait_for_event(client, client.add("I moved to Hamburg.", user_id=user)["event_id"])
    result = event["results"][0]
    assert result["event"] == "UPDATE" and result["engram_event"] == "SUPERSEDE", event
    assert result["reason"]
    memories = [m["memory"] for m in client.get_all(filters={"user_id": user})["results"]]
    assert not any("Berlin" in m for m in memories), memories


def test_users_batch_and_reset():
    client = MemoryClient(api_key=engram_key(), host=HOST)
    carl, helper = f"carl-{uuid.uuid4().hex[:8]}", f"helper-{uuid.uuid4().hex[:8]}"
    ids = [client.add(f"I like {thing}.", user_id=carl, infer=False)["results"][0]["id"]
           for thing in ("tea", "jazz")]
    client.add("I like chess.", agent_id=helper, infer=False)
    users = client.users()
    names = {(e["type"], e["name"]) for e in users["results"]}
    assert {("user", carl), ("agent", helper)} <= names, names
    assert all(e["total_memories"] >= 1 for e in users["results"])

    assert "2" in client.batch_update([{"memory_id": ids[0], "text": "I like green tea."},
                                       {"memory_id": ids[1], "text": "I like cool jazz."}])["message"]
    assert client.get(ids[0])["memory"] == "I like green tea."
    with pytest.raises(MemoryNotFoundError):
        client.batch_delete([{"memory_id": ids[0]}, {"memory_id": str(uuid.uuid4())}])
    assert client.get(ids[0])["memory"] == "I like green tea.", "nothing was half-deleted"
    client.batch_delete([{"memory_id": i} for i in ids])
    with pytest.raises(MemoryNotFoundError):
        client.get(ids[1])

    client.delete_users(agent_id=helper)
    names = {e["name"] for e in client.users()["results"]}
    assert carl not in names and helper not in names, names
    client.add("I like opera.", user_id="zed", infer=False)
    assert client.reset()["message"]
    assert client.users()["results"] == []


def test_errors_are_the_clients_own():
    client = MemoryClient(api_key=engram_key(), host=HOST)
    with pytest.raises(MemoryNotFoundError):
        client.get(str(uuid.uuid4()))
    with pytest.raises(ValidationError, match=r"filters\.AND\[1\]\.created_at\.between"):
        client.search("x", filters={"AND": [{"user_id": "dora"}, {"created_at": {"between": [1, 2]}}]})
    with pytest.raises(ValidationError, match="top_k"):
        client.search("x", filters={"user_id": "dora"}, top_k=0)
    with pytest.raises(ValueError, match="Top-level entity parameters"):
        client.search("x", user_id="dora")  # the client's own check


def test_a_bound_key_reaches_no_other_user():
    admin = MemoryClient(api_key=engram_key(), host=HOST)
    bobs = admin.add("I live in Oslo.", user_id="bob-bound", infer=False)["results"][0]["id"]
    alice = MemoryClient(api_key=engram_key(user_id="alice-bound"), host=HOST)
    alice.add("I live in Rome.", user_id="alice-bound", infer=False)
    with pytest.raises(MemoryNotFoundError):
        alice.get(bobs)
    with pytest.raises(MemoryNotFoundError):
        alice.update(bobs, text="I live in Paris.")
    with pytest.raises(MemoryNotFoundError):
        alice.delete(bobs)
    with pytest.raises(AuthenticationError):
        alice.search("live", filters={"user_id": "bob-bound"})
    with pytest.raises(AuthenticationError):
        alice.get_all(filters={"user_id": "bob-bound"})
    with pytest.raises(AuthenticationError):
        alice.delete_all(user_id="bob-bound")
    with pytest.raises(AuthenticationError):
        alice.add("I live in Paris.", user_id="bob-bound", infer=False)
    assert [e["name"] for e in alice.users()["results"]] == ["alice-bound"]
    assert admin.get(bobs)["memory"] == "I live in Oslo."


def test_migrate_copies_counts_and_is_idempotent():
    """migrate.py with Engram's /mem0 of one tenant as the Mem0 source and
    another tenant as the destination: a dry run writes nothing, the copy
    keeps text, scope and metadata, and a second copy adds nothing."""
    import json as _json
    import subprocess
    import sys

    suffix = uuid.uuid4().hex[:8]
    body = {"role": "tenant", "tenant": f"mem0src{suffix}", "name": "src"}
    headers = {"Authorization": f"Bearer {ADMIN}"}
    src_key = httpx.post(f"{URL}/v1/admin/keys", json=body, headers=headers).json()["key"]
    dst_key = httpx.post(f"{URL}/v1/admin/keys", json={**body, "tenant": f"mem0dst{suffix}"}, headers=headers).json()["key"]
    src = MemoryClient(api_key=src_key, host=HOST)
    for text in ("I live in Lisbon.", "I play the cello.", "I am vegetarian."):
        src.add(text, user_id="mia", run_id="chat-1", infer=False, metadata={"from": "mem0"})
    src.add("I like chess.", user_id="noa", infer=False)
    script = os.path.join(os.path.dirname(__file__), "..", "migrate.py")

    def run(*extra):
        out = subprocess.run([sys.executable, script, "--from-host", HOST, "--from-key", src_key,
                              "--to-host", HOST, "--to-key", dst_key, "--all-users", *extra],
                             capture_output=True, text=True, check=True).stdout
        return _json.loads(out.strip().splitlines()[-1])["total"]

    assert run("--dry-run") == {"users": 2, "read": 4, "written": 0, "already": 0, "would write": 4}
    dst = MemoryClient(api_key=dst_key, host=HOST)
    assert dst.get_all(filters={"user_id": "mia"})["count"] == 0, "a dry run writes nothing"
    assert run() == {"users": 2, "read": 4, "written": 4, "already": 0, "would write": 0}
    copied = dst.get_all(filters={"user_id": "mia"})["results"]
    assert sorted(m["memory"] for m in copied) == ["I am vegetarian.", "I live in Lisbon.", "I play the cello."]
    assert all(m["run_id"] == "chat-1" and m["metadata"] == {"from": "mem0"} for m in copied)
    assert run() == {"users": 2, "read": 4, "written": 0, "already": 4, "would write": 0}
