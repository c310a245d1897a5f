// The TypeScript client: its generated types are current, errors and
// retries behave (scripted fetch), and every resource works against a live
// server (ENGRAM_URL / ENGRAM_API_KEY, set by scripts/test-clients.sh).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { randomUUID } from "node:crypto";
import { Engram, EngramError } from "../dist/index.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const live = process.env.ENGRAM_URL && process.env.ENGRAM_API_KEY;
const user = () => `ts-${randomUUID().slice(0, 12)}`;

test("the checked-in types are what openapi.yaml generates", () => {
  const out = join(mkdtempSync(join(tmpdir(), "engram-ts-")), "schema.ts");
  const spec = process.env.ENGRAM_OPENAPI ?? join(root, "..", "..", "openapi.yaml");
  execFileSync(join(root, "node_modules", ".bin", "openapi-typescript"), [spec, "-o", out], { stdio: "pipe" });
  assert.equal(readFileSync(out, "utf8"), readFileSync(join(root, "src", "schema.ts"), "utf8"),
    "openapi.yaml changed: run `npm run generate` in clients/typescript");
});

function scripted(answers) {
  const seen = [];
  const fetch = async (url, init) => {
    seen.push({ url: String(url), init });
    const [status, headers, body] = answers[Math.min(seen.length - 1, answers.length - 1)];
    return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
  };
  return { seen, fetch };
}
const P429 = { type: "urn:engram:problem:rate-limited", title: "Too many requests", status: 429, detail: "slow down" };
const P503 = { type: "urn:engram:problem:overloaded", title: "Overloaded", status: 503, detail: "busy" };

test("429 and 503 are retried as Retry-After says, within the budget", async () => {
  let { seen, fetch } = scripted([[429, { "retry-after": "0" }, P429], [503, { "retry-after": "0" }, P503], [200, {}, { results: [], next_cursor: null }]]);
  let c = new Engram({ baseUrl: "http://engram.test", apiKey: "k", fetch });
  assert.deepEqual((await c.memories.listPage({ user_id: "u" })).results, []);
  assert.equal(seen.length, 3);
  assert.equal(seen[0].init.headers.Authorization, "Bearer k");
  ({ seen, fetch } = scripted([[503, { "retry-after": "60" }, P503]]));
  c = new Engram({ baseUrl: "http://engram.test", apiKey: "k", fetch, retryBudgetMs: 2000 });
  const started = Date.now();
  await assert.rejects(c.memories.listPage({ user_id: "u" }), (e) => e instanceof EngramError && e.status === 503 && e.kind === "overloaded");
  assert.ok(Date.now() - started < 1000, "a Retry-After past the budget is not waited");
  ({ seen, fetch } = scripted([[429, {}, P429]]));
  c = new Engram({ baseUrl: "http://engram.test", apiKey: "k", fetch, maxRetries: 2, backoffMs: 1 });
  await assert.rejects(c.memories.listPage({ user_id: "u" }), (e) => e.status === 429);
  assert.equal(seen.length, 3);
});

test("every resource against a live server", { skip: !live && "no live server" }, async () => {
  const c = new Engram();
  const u = user();
  const verbatim = await c.memories.add({ user_id: u, text: "I keep bees on my roof.", infer: false });
  assert.equal(verbatim.job, null);
  assert.equal(verbatim.memories[0].memory, "I keep bees on my roof.");
  const finished = await c.memories.add({ user_id: u, text: "I live in Lisbon.", wait: true });
  assert.equal(finished.job?.status, "done");
  assert.deepEqual(finished.results.map((r) => r.event), ["ADD"]);
  const queued = await c.memories.add({ user_id: u, text: "I work at Initech." });
  assert.ok(queued.job_id);
  assert.equal((await c.jobs.wait(queued.job_id)).status, "done");
  await assert.rejects(c.jobs.retry(queued.job_id), (e) => e.status === 409);
  for (let i = 0; i < 4; i++) await c.memories.add({ user_id: u, text: `Note ${i} about tea.`, infer: false });
  const hits = await c.memories.search({ query: "bees", user_id: u, top_k: 2 });
  assert.equal(hits.results[0].memory, "I keep bees on my roof.");
  const all = [];
  for await (const m of c.memories.list({ user_id: u, limit: 2 })) all.push(m);
  // Five verbatim adds, two facts, and the two inferred messages kept as said.
  assert.equal(all.length, 9);
  const said = [];
  for await (const m of c.memories.list({ user_id: u, said: true })) said.push(m.memory);
  assert.deepEqual(said.sort(), ["I live in Lisbon.", "I work at Initech."]);
  const id = verbatim.memories[0].id;
  assert.equal((await c.memories.get(id)).id, id);
  assert.equal((await c.memories.update(id, { memory: "I keep two hives." })).memory, "I keep two hives.");
  assert.deepEqual((await c.memories.history(id)).map((h) => h.event), ["ADD", "UPDATE"]);
  assert.equal((await c.memories.revert(id)).memory, "I keep bees on my roof.");

  const s = `s-${randomUUID().slice(0, 8)}`;
  const appended = await c.sessions.append(s, { user_id: u, messages: [{ role: "user", content: "My dog is called Rex." }] });
  if (appended.extract_job_id) await c.jobs.wait(appended.extract_job_id);
  assert.equal((await c.sessions.get(s)).user_id, u);
  assert.equal((await c.sessions.messages(s)).messages.length, 1);
  const block = await c.context({ user_id: u, session_id: s, query: "where do I live?", token_budget: 400 });
  assert.match(block.text, /Lisbon/);
  const profile = await c.users.profile(u);
  const lisbon = profile.entries.find((e) => e.value === "Lisbon");
  assert.ok(lisbon, JSON.stringify(profile));
  const corrected = await c.users.updateProfile(u, { id: lisbon.id, value: "Porto" });
  assert.ok(corrected.entries.some((e) => e.value === "Porto"));

  const key = await c.admin.createKey({ role: "read-only", name: "ts-reader", tenant: "default" });
  assert.ok((await c.admin.keys()).some((k) => k.id === key.id));
  await c.admin.revokeKey(key.id);
  const run = await c.admin.consolidate({ user_id: u, dry_run: true, wait: true });
  assert.equal(run.scope, "user");
  assert.ok((await c.admin.consolidationRuns({ limit: 50 })).some((r) => r.id === run.id));
  assert.equal((await c.admin.userMemories(u, { states: ["live"] })).results.length >= 7, true);
  assert.equal((await c.admin.export(u)).user_id, u);
  const overview = await c.admin.userOverview(u);
  assert.ok(overview.memories >= 7 && overview.by_state.live >= 7, JSON.stringify(overview));
  const plan = await c.admin.eraseUser(u, { dry_run: true });
  assert.equal(plan.dry_run, true);
  assert.equal((await c.admin.userOverview(u)).memories, overview.memories);
  const jobs = await c.jobs.list({ user_id: u, kind: "extract" });
  assert.ok(jobs.results.length >= 1 && jobs.results.every((j) => j.kind === "extract"));
  assert.equal((await c.sessions.delete(s)).counts.sessions, 1);
  const gone = await c.memories.deleteScope({ user_id: u });
  assert.ok(gone.deleted >= 7);
  assert.equal((await c.admin.eraseUser(u)).tenant_id.length, 36);
  assert.ok((await c.admin.audit({ action: "user.erase", user_id: u })).results.length === 1);
});

test("a key bound to a user acts only for them", { skip: !live && "no live server" }, async () => {
  const c = new Engram();
  const u = user();
  const bound = await c.admin.createKey({ role: "tenant", name: "device", tenant: "default", user_id: u });
  assert.equal(bound.user_id, u);
  const device = new Engram({ apiKey: bound.key });
  assert.equal((await device.users.me()).user_id, u);
  const mine = await device.memories.add({ text: "I cycle to work.", infer: false });
  assert.equal((await device.memories.get(mine.memories[0].id)).user_id, u);
  await assert.rejects(device.memories.search({ query: "x", user_id: `${u}-other` }), (e) => e.status === 403);
  assert.equal((await c.users.me()).user_id, null);
  await c.admin.eraseUser(u);
  await assert.rejects(device.users.me(), (e) => e.status === 401);
});

test("errors carry the problem document", { skip: !live && "no live server" }, async () => {
  const wrong = new Engram({ apiKey: "egm_not_a_key" });
  await assert.rejects(wrong.memories.search({ query: "x", user_id: "u" }), (e) => e.status === 401 && e.kind === "unauthorized");
  const c = new Engram();
  await assert.rejects(c.memories.get(randomUUID()), (e) => e.status === 404);
  await assert.rejects(c.memories.add({ user_id: "", text: "x", infer: false }), (e) => e.status === 422 && e.field === "user_id");
  const s = `s-${randomUUID().slice(0, 8)}`;
  const u = user();
  await c.sessions.append(s, { user_id: u, infer: false, messages: [{ role: "user", content: "hi" }] });
  await assert.rejects(c.sessions.append(s, { user_id: `${u}-x`, messages: [{ role: "user", content: "hi" }] }), (e) => e.status === 409 && e.kind === "session-owner");
  await c.admin.eraseUser(u);
});

test("the README's snippets run as written", { skip: !live && "no live server" }, async () => {
  const ts = (await import("typescript")).default;
  const readmes = [join(root, "README.md")];
  let ran = 0;
  for (const readme of readmes) {
    for (const [, block] of readFileSync(readme, "utf8").matchAll(/```ts\n([\s\S]*?)```/g)) {
      if (!block.includes("@engram/client")) continue;
      const js = ts.transpileModule(block, { compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 } }).outputText
        .replace(/from "@engram\/client"/g, `from ${JSON.stringify(join(root, "dist", "index.js"))}`);
      const file = join(mkdtempSync(join(tmpdir(), "engram-readme-")), "snippet.mjs");
      (await import("node:fs")).writeFileSync(file, js);
      const out = execFileSync(process.execPath, [file], { env: process.env, encoding: "utf8" });
      assert.match(out, /Berlin/);
      assert.match(out, /422 validation user_id/);
      ran++;
    }
  }
  assert.ok(ran >= 1, "the snippets are found");
});
