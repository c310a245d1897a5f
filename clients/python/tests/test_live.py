"""Every resource against a live server, through the blocking and the
async client."""

import asyncio
import io
import json
import uuid

import pytest

from engram_client import (
    AsyncEngram,
    AuthenticationError,
    ConflictError,
    Engram,
    NotFoundError,
    PermissionDeniedError,
    ValidationError,
    models,
)


def test_add_answers_one_shape_whatever_the_server_answered(client, user):
    verbatim = client.memories.add(user_id=user, text="I keep bees on my roof.", infer=False)
    assert verbatim.job is None and len(verbatim.memories) == 1
    assert verbatim.memories[0].memory == "I keep bees on my roof."
    finished = client.memories.add(user_id=user, messages=[{"role": "user", "content": "I live in Lisbon."}], wait=True)
    assert finished.job is not None and finished.job.status == "done"
    assert any(r.event == "ADD" for r in finished.results), finished
    queued = client.memories.add(user_id=user, text="I work at Initech.")
    assert queued.job is None and queued.job_id
    job = client.jobs.wait(queued.job_id, timeout=30)
    listed = client.jobs.list_page(user_id=job.user_id, kind="extract")
    assert job.job_id in [j.job_id for j in listed.results] and job.kind == "extract"
    assert job.status == "done" and isinstance(job, models.Job)
    # Only a failed job can be retried.
    with pytest.raises(ConflictError) as e:
        client.jobs.retry(job.job_id)
    assert e.value.kind == "job-not-failed"


def test_memories_search_get_list_update_history_revert_delete(client, user):
    ids = [client.memories.add(user_id=user, text=f"Note {i}: I like tea number {i}.", infer=False).memories[0].id for i in range(7)]
    hits = client.memories.search(query="tea", user_id=user, top_k=3)
    assert len(hits.results) == 3 and all(isinstance(h, models.SearchHit) for h in hits.results)
    one = client.memories.get(ids[0])
    assert one.id == ids[0] and one.user_id == user
    # Pagination: seven memories over pages of three.
    pages = client.memories.list_page(user_id=user, limit=3)
    assert len(pages.results) == 3 and pages.next_cursor
    everything = list(client.memories.list(user_id=user, limit=3))
    assert sorted(m.id for m in everything) == sorted(ids)
    updated = client.memories.update(ids[0], memory="I like green tea.", pinned=True)
    assert updated.memory == "I like green tea." and updated.pinned
    events = [h.event for h in client.memories.history(ids[0])]
    assert events[0] == "ADD" and "UPDATE" in events
    reverted = client.memories.revert(ids[0])
    assert reverted.memory == "Note 0: I like tea number 0."
    client.memories.delete(ids[1])
    with pytest.raises(NotFoundError):
        client.memories.get(ids[1])
    gone = client.memories.delete_scope(user_id=user)
    assert gone["deleted"] == 7
    assert list(client.memories.list(user_id=user)) == []


def test_sessions_context_and_profile(client, user):
    session = f"s-{uuid.uuid4().hex[:8]}"
    r = client.sessions.append(session, user_id=user, window_tokens=40, messages=[
        {"role": "user", "content": "I live in Berlin and my dog is called Rex."},
        {"role": "assistant", "content": "Noted."},
    ])
    assert r.session_id == session and len(r.messages) == 2
    if r.extract_job_id:
        client.jobs.wait(r.extract_job_id, timeout=30)
    s = client.sessions.get(session)
    assert s.user_id == user and s.window
    page = client.sessions.messages(session, limit=1)
    assert len(page.messages) == 1 and page.next_cursor
    ctx = client.context(user_id=user, session_id=session, query="where do I live", token_budget=500)
    assert "Berlin" in ctx.text and ctx.tokens_used <= 500
    profile = client.users.profile(user)
    berlin = next(e for e in profile.entries if e.value == "Berlin")
    corrected = client.users.update_profile(user, id=berlin.id, value="Hamburg")
    assert "Hamburg" in [e.value for e in corrected.entries]
    receipt = client.sessions.delete(session)
    assert receipt.counts["sessions"] == 1
    with pytest.raises(NotFoundError):
        client.sessions.get(session)


def test_admin(client, user, tmp_path):
    created = client.admin.create_key(role="read-only", name="py-reader", tenant="default")
    assert created.key.startswith("egm_")
    assert created.id in [k.id for k in client.admin.keys()]
    with Engram(client._cfg.base_url, created.key) as reader:
        assert reader.memories.list_page(user_id=user).results == []
    client.admin.revoke_key(created.id)
    with Engram(client._cfg.base_url, created.key) as revoked:
        with pytest.raises(AuthenticationError):
            revoked.memories.list_page(user_id=user)

    first = client.memories.add(user_id=user, text="I sail on Lake Constance.", infer=False).memories[0]
    client.memories.add(user_id=user, text="I read Borges.", infer=False, source={"type": "document", "ref": f"doc-{user}"})
    listed = client.admin.user_memories(user, states=["live"])
    assert len(listed.results) == 2 and listed.results[0].state == "live"
    found = client.admin.search_user(user, query="sailing")
    assert found.results[0].memory == "I sail on Lake Constance."
    path = tmp_path / "export.json"
    client.admin.export(user, path)
    doc = json.loads(path.read_text())
    assert doc["format"] == "engram.user-export" and len(doc["memories"]) == 2
    assert client.admin.export(user)["user_id"] == user
    plan = client.admin.purge_source(f"doc-{user}", dry_run=True)
    assert plan.dry_run and plan.counts["memories"] == 1
    receipt = client.admin.purge_source(f"doc-{user}")
    assert not receipt.dry_run and receipt.counts == plan.counts
    run = client.admin.consolidate(user_id=user, dry_run=True, wait=True)
    assert isinstance(run, models.ConsolidationRun) and run.scope == "user"
    assert any(r.id == run.id for r in client.admin.consolidation_runs(limit=50))
    receipt = client.admin.purge_memory(user, first.id)
    assert receipt.counts["memories"] == 1
    client.memories.add(user_id=user, text="I paint.", infer=False)
    overview = client.admin.user_overview(user)
    assert overview.memories == 1 and overview.by_state["live"] == 1
    assert client.admin.erase_user(user, dry_run=True).counts["memories"] == 1
    erased = client.admin.erase_user(user)
    assert erased.counts["memories"] == 1
    audit = client.admin.audit(action="user.erase", user_id=user)
    assert len(audit.results) == 1 and audit.results[0].subject_hash


def test_a_key_bound_to_a_user(client, user):
    bound = client.admin.create_key(role="tenant", name="device", tenant="default", user_id=user)
    assert bound.user_id == user and bound.agent_id is None
    other = client.memories.add(user_id=user + "-other", text="I hide gold in the attic.", infer=False).memories[0]
    with Engram(client._cfg.base_url, bound.key) as device:
        me = device.users.me()
        assert isinstance(me, models.Caller) and me.user_id == user and me.role == "tenant"
        mine = device.memories.add(text="I cycle to work.", infer=False).memories[0]
        assert device.memories.get(mine.id).user_id == user
        with pytest.raises(PermissionDeniedError):
            device.memories.search(query="gold", user_id=user + "-other")
        with pytest.raises(NotFoundError):
            device.memories.get(other.id)
        assert [m.id for m in device.memories.list()] == [mine.id]
    assert client.users.me().user_id is None


def test_error_paths(live, client, user):
    with Engram(live["url"], "egm_not_a_key") as wrong:
        with pytest.raises(AuthenticationError) as e:
            wrong.memories.search(query="x", user_id=user)
    assert e.value.status == 401 and e.value.kind == "unauthorized"
    with pytest.raises(NotFoundError):
        client.memories.get(str(uuid.uuid4()))
    with pytest.raises(ValidationError) as e:
        client.memories.add(user_id="", text="x", infer=False)
    assert e.value.field == "user_id"
    with pytest.raises(ValidationError) as e:
        client.memories.search(query="x", user_id=user, top_k=1000)
    assert e.value.field == "top_k"
    session = f"s-{uuid.uuid4().hex[:8]}"
    client.sessions.append(session, user_id=user, messages=[{"role": "user", "content": "hi"}], infer=False)
    with pytest.raises(ConflictError) as e:
        client.sessions.append(session, user_id=user + "-other", messages=[{"role": "user", "content": "hi"}])
    assert e.value.kind == "session-owner"


def test_the_async_client(live, user):
    async def main():
        async with AsyncEngram(live["url"], live["key"]) as c:
            out = await c.memories.add(user_id=user, text="I live in Porto.", wait=True)
            assert out.job is not None and out.job.status == "done"
            assert [r.event for r in out.results] == ["ADD"], out
            await c.memories.add(user_id=user, text="I fly kites at the beach.", infer=False)
            hits = await c.memories.search(query="kites", user_id=user)
            assert "kites" in hits.results[0].memory
            seen = [m.memory async for m in c.memories.list(user_id=user, limit=1)]
            # The fact, the message kept as it was said, and the verbatim add.
            assert len(seen) == 3
            said = [m.memory async for m in c.memories.list(user_id=user, said=True)]
            assert said == ["I live in Porto."]
            with pytest.raises(NotFoundError):
                await c.memories.get(str(uuid.uuid4()))
            await c.admin.erase_user(user)

    asyncio.run(main())
