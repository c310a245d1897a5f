// Mem0's released TypeScript client (npm mem0ai 3.3.1, pinned by
// package-lock.json) against a live Engram: only `host` points at Engram's
// /mem0 routes and the key is an Engram key. The objects checked are the
// camelCased ones the client returns. Run by scripts/test-mem0-clients.sh.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { MemoryClient } from "mem0ai";

const URL = process.env.ENGRAM_URL;
const ADMIN = process.env.ENGRAM_API_KEY;
const HOST = `${URL}/mem0`;

async function engramKey(binding = {}) {
  const r = await fetch(`${URL}/v1/admin/keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    body: JSON.stringify({ role: "tenant", tenant: "default", name: "mem0-ts", ...binding }),
  });
  assert.equal(r.status, 201);
  return (await r.json()).key;
}

async function waitForEvent(key, id) {
  for (let i = 0; i < 200; i++) {
    const r = await fetch(`${HOST}/v1/event/${id}/`, { headers: { authorization: `Token ${key}` } });
    const e = await r.json();
    if (e.status === "SUCCEEDED" || e.status === "FAILED") return e;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`event ${id} did not finish`);
}

function assertMemory(m) {
  assert.equal(typeof m.id, "string");
  assert.equal(typeof m.memory, "string");
  assert.ok(!Number.isNaN(Date.parse(m.createdAt)), JSON.stringify(m));
  assert.ok(!Number.isNaN(Date.parse(m.updatedAt)));
  assert.ok(Array.isArray(m.categories));
  assert.ok(m.metadata === null || typeof m.metadata === "object");
  if (m.score !== undefined) assert.ok(m.score >= 0 && m.score <= 1);
}

test("a wrong key is the client's AuthenticationError at ping", async () => {
  const client = new MemoryClient({ apiKey: "not-a-key", host: HOST });
  await assert.rejects(client.ping(), (e) => e.name === "AuthenticationError");
});

test("add, event, search, list, get, update, history, delete", async () => {
  const key = await engramKey();
  const client = new MemoryClient({ apiKey: key, host: HOST });
  await client.ping();
  const user = `ts-${randomUUID().slice(0, 8)}`;
  const added = await client.add([{ role: "user", content: "I live in Lisbon." }], {
    userId: user, infer: false, metadata: { topic: "home" },
  });
  assert.equal(added.status, "SUCCEEDED");
  const lisbon = added.results[0].id;
  const queued = await client.add([{ role: "user", content: "I work at Acme as a nurse." }], { userId: user });
  assert.equal(queued.status, "PENDING");
  const event = await waitForEvent(key, queued.eventId);
  assert.equal(event.status, "SUCCEEDED");
  assert.ok(event.results.length >= 1 && event.results.every((r) => r.event === "ADD"));

  const found = await client.search("which city do I live in", { filters: { user_id: user }, topK: 3 });
  const lisbonHit = found.results.find((m) => m.memory === "I live in Lisbon.");
  assert.ok(lisbonHit, JSON.stringify(found));
  assert.equal(lisbonHit.userId, user);
  found.results.forEach(assertMemory);

  const page = await client.getAll({ filters: { user_id: user }, page: 1, pageSize: 1 });
  // The verbatim add, the facts, and the inferred message kept as it was said.
  assert.equal(page.count, 1 + event.results.length + 1);
  assert.equal(page.results.length, 1);
  assert.ok(page.next);
  page.results.forEach(assertMemory);

  const got = await client.get(lisbon);
  assert.equal(got.memory, "I live in Lisbon.");
  assert.deepEqual(got.metadata, { topic: "home" });
  const updated = await client.update(lisbon, { text: "I live in Porto." });
  assert.equal(updated.memory, "I live in Porto.");
  const history = await client.history(lisbon);
  assert.deepEqual(history.map((h) => h.event), ["ADD", "UPDATE"]);
  assert.equal(history[1].oldMemory, "I live in Lisbon.");
  assert.equal(history[1].newMemory, "I live in Porto.");
  assert.equal(history[1].memoryId, lisbon);

  await client.delete(lisbon);
  await assert.rejects(client.get(lisbon), (e) => e.name === "MemoryNotFoundError");
  await client.deleteAll({ userId: user });
  assert.equal((await client.getAll({ filters: { user_id: user } })).count, 0);
});

test("users, batch and the errors the client raises", async () => {
  const key = await engramKey();
  const client = new MemoryClient({ apiKey: key, host: HOST });
  const user = `tsb-${randomUUID().slice(0, 8)}`;
  const a = (await client.add([{ role: "user", content: "I like tea." }], { userId: user, infer: false })).results[0].id;
  const b = (await client.add([{ role: "user", content: "I like jazz." }], { userId: user, infer: false })).results[0].id;
  const users = await client.users();
  const mine = users.results.find((u) => u.name === user);
  assert.equal(mine.type, "user");
  assert.equal(mine.totalMemories, 2);
  await client.batchUpdate([{ memoryId: a, text: "I like green tea." }]);
  assert.equal((await client.get(a)).memory, "I like green tea.");
  await client.batchDelete([a, b]);
  await assert.rejects(client.get(b), (e) => e.name === "MemoryNotFoundError");

  await assert.rejects(
    client.search("x", { filters: { AND: [{ user_id: user }, { created_at: { between: [1, 2] } }] } }),
    (e) => e.name === "ValidationError" && e.message.includes("filters.AND[1].created_at.between"),
  );
  await assert.rejects(client.get(randomUUID()), (e) => e.name === "MemoryNotFoundError");
  await client.add([{ role: "user", content: "I like chess." }], { userId: user, infer: false });
  const res = await client.deleteUsers({ userId: user });
  assert.equal(res.message, "Entity deleted successfully.");
  assert.equal((await client.getAll({ filters: { user_id: user } })).count, 0);
});

test("a bound key reaches no other user", async () => {
  const admin = new MemoryClient({ apiKey: await engramKey(), host: HOST });
  const bob = `tsbob-${randomUUID().slice(0, 8)}`;
  const bobs = (await admin.add([{ role: "user", content: "I live in Oslo." }], { userId: bob, infer: false })).results[0].id;
  const alice = new MemoryClient({ apiKey: await engramKey({ user_id: "ts-alice" }), host: HOST });
  await assert.rejects(alice.get(bobs), (e) => e.name === "MemoryNotFoundError");
  await assert.rejects(alice.delete(bobs), (e) => e.name === "MemoryNotFoundError");
  await assert.rejects(alice.search("live", { filters: { user_id: bob } }), (e) => e.name === "AuthenticationError");
  await assert.rejects(alice.deleteAll({ userId: bob }), (e) => e.name === "AuthenticationError");
  assert.equal((await admin.get(bobs)).memory, "I live in Oslo.");
});
