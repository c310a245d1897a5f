"""Engram on a 3-node Citus cluster (scripts/test-citus.sh): the HTTP
walk-through with the Python client, tenants isolated, inferred adds through
the queue (the server's workers and a second `engram worker`), and per-user
statements on one shard."""

import os
import subprocess
import uuid

import pytest

from engram_client import Engram, NotFoundError


@pytest.fixture(scope="module")
def live():
    if not os.environ.get("ENGRAM_CITUS_DB"):
        pytest.skip("run through scripts/test-citus.sh")
    return {"url": os.environ["ENGRAM_URL"], "key": os.environ["ENGRAM_API_KEY"]}


@pytest.fixture(scope="module")
def admin(live):
    with Engram(live["url"], live["key"]) as c:
        yield c


def tenant_client(admin, live, tenant):
    key = admin.admin.create_key(role="tenant", tenant=tenant, name="citus-walk")
    return Engram(live["url"], key.key)


def test_the_walk_through(admin, live):
    app = tenant_client(admin, live, "walk-a")
    user = f"u-{uuid.uuid4().hex[:8]}"
    first = app.memories.add(user_id=user, text="I keep bees on my roof.", infer=False).memories[0]
    assert app.memories.add(user_id=user, text="I keep bees on my roof.", infer=False).memories[0].event == "NOOP"
    for mode in ["hybrid", "dense", "lexical"]:
        hits = app.memories.search(query="bees", user_id=user, mode=mode)
        assert hits.results[0].id == first.id, mode
    assert [m.id for m in app.memories.list(user_id=user)] == [first.id]
    assert app.memories.get(first.id).memory == "I keep bees on my roof."
    assert app.memories.update(first.id, memory="I keep two hives.").memory == "I keep two hives."
    assert [h.event for h in app.memories.history(first.id)] == ["ADD", "UPDATE"]
    assert app.memories.revert(first.id).memory == "I keep bees on my roof."

    # Inferred adds through the queue, taken by whichever worker claims them.
    done = [app.memories.add(user_id=user, messages=[{"role": "user", "content": t}], wait=True)
            for t in ["I live in Dallas.", "I moved to Austin.", "My dog is called Rex."]]
    assert all(d.job.status == "done" for d in done)
    assert [r.event for r in done[1].results] == ["SUPERSEDE"]
    session = f"s-{uuid.uuid4().hex[:8]}"
    appended = app.sessions.append(session, user_id=user, messages=[{"role": "user", "content": "I work at Initech."}])
    if appended.extract_job_id:
        app.jobs.wait(appended.extract_job_id, timeout=60)
    assert app.sessions.get(session).user_id == user
    block = app.context(user_id=user, session_id=session, query="where do I live?", token_budget=400)
    assert "Austin" in block.text and "Dallas" not in block.text
    assert any(e.value == "Austin" for e in app.users.profile(user).entries)

    # The GDPR path: export, source purge, erase.
    app.memories.add(user_id=user, text="I read Borges.", infer=False, source={"type": "document", "ref": f"doc-{user}"})
    assert len(app.admin.export(user)["memories"]) >= 5
    assert app.admin.purge_source(f"doc-{user}").counts["memories"] == 1
    victim = app.memories.add(user_id=user, text="I paint.", infer=False).memories[0]
    app.memories.delete(victim.id)
    with pytest.raises(NotFoundError):
        app.memories.get(victim.id)
    assert app.sessions.delete(session).counts["sessions"] == 1
    run = admin.admin.consolidate(wait=True)
    assert run.status == "done", run
    erased = app.admin.erase_user(user)
    assert erased.counts["memories"] >= 4
    assert app.memories.list_page(user_id=user).results == []


def test_tenants_stay_apart(admin, live):
    a, b = tenant_client(admin, live, "iso-a"), tenant_client(admin, live, "iso-b")
    kept = a.memories.add(user_id="same-user", text="Tenant A's favourite colour is blue.", infer=False).memories[0]
    b.memories.add(user_id="same-user", text="Tenant B likes green.", infer=False)
    seen_by_b = b.memories.search(query="favourite colour blue", user_id="same-user", threshold=-1).results
    assert [h.memory for h in seen_by_b] == ["Tenant B likes green."]
    with pytest.raises(NotFoundError):
        b.memories.get(kept.id)
    assert [m.memory for m in a.memories.list(user_id="same-user")] == ["Tenant A's favourite colour is blue."]


def psql(sql: str) -> str:
    port = os.environ.get("ENGRAM_CITUS_PORTS", "54340").split()[0]
    return subprocess.run(
        [os.path.join(os.environ["ENGRAM_CITUS_PGBIN"], "psql"), "-X", "-At", "-h", "127.0.0.1", "-p", port,
         "-U", "engram", "-d", os.environ["ENGRAM_CITUS_DB"], "-c", sql],
        env=dict(os.environ, PGPASSWORD=os.environ["ENGRAM_CITUS_PASSWORD"]),
        check=True, capture_output=True, text=True,
    ).stdout


def test_per_user_statements_run_on_one_shard(admin, live):
    app = tenant_client(admin, live, "shard-a")
    app.memories.add(user_id="one", text="I like tea.", infer=False)
    tenant = psql("SELECT id FROM tenants WHERE name = 'shard-a'").strip()
    assert psql("SELECT partmethod FROM pg_dist_partition WHERE logicalrelid = 'memories'::regclass").strip() == "h"
    for sql in [
        f"SELECT id FROM memories WHERE tenant_id = '{tenant}' AND user_id = 'one' ORDER BY created_at DESC LIMIT 10",
        f"SELECT id FROM memories WHERE tenant_id = '{tenant}' AND user_id = 'one' "
        f"ORDER BY embedding_half <=> (SELECT embedding_half FROM memories WHERE tenant_id = '{tenant}' LIMIT 1) LIMIT 10",
    ]:
        plan = psql("EXPLAIN " + sql)
        assert "Task Count: 1" in plan, plan


def test_migrations_after_distribution_reached_every_shard(live):
    # Migration 15 distributes; 16 (two statements, an index and its
    # comment) is applied after it, one statement at a time.
    assert psql("SELECT max(version) FROM _sqlx_migrations WHERE success").strip() >= "20261202000017"
    per_worker = psql(
        "SELECT result FROM run_command_on_workers("
        "$$SELECT count(*) FROM pg_indexes WHERE indexname ~ '^memory_history_job_idx_[0-9]+$'$$)"
    ).split()
    shards = int(psql("SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 'memory_history'::regclass"))
    assert sum(int(n) for n in per_worker) == shards and shards > 0, (per_worker, shards)
    # 17 (clamps out-of-range times, then CHECKs every timestamp column)
    # reaches every shard too, and the shards refuse an out-of-range time.
    per_worker = psql(
        "SELECT result FROM run_command_on_workers("
        "$$SELECT count(*) FROM pg_constraint WHERE conname ~ '^memories_times_in_range_[0-9]+$'$$)"
    ).split()
    shards = int(psql("SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 'memories'::regclass"))
    assert sum(int(n) for n in per_worker) == shards and shards > 0, (per_worker, shards)
    with pytest.raises(subprocess.CalledProcessError) as refused:
        psql("UPDATE memories SET created_at = 'infinity'")
    assert "memories_times_in_range" in refused.value.stderr, refused.value.stderr
