/**
 * Typed client for Engram, the self-hosted memory server for LLM
 * applications. fetch-based, no runtime dependencies: Node 18+, browsers,
 * edge runtimes.
 *
 *     import { Engram } from "@engram/client";
 *     const client = new Engram({ baseUrl: "http://127.0.0.1:8420", apiKey });
 *     await client.memories.add({ user_id: "alice", text: "I live in Berlin.", wait: true });
 *     const { results } = await client.memories.search({ query: "where do I live", user_id: "alice" });
 */

import type { components, operations } from "./schema.js";

type S = components["schemas"];
export type Memory = S["Memory"];
export type SearchHit = S["SearchHit"];
export type SearchResponse = S["SearchResponse"];
export type ListResponse = S["ListResponse"];
export type AddResult = S["AddResult"];
export type Job = S["Job"];
export type JobResult = S["JobResult"];
export type HistoryEntry = S["HistoryEntry"];
export type Turn = S["Turn"];
export type Session = S["Session"];
export type SessionMessagesPage = S["SessionMessagesPage"];
export type AppendMessagesResponse = S["AppendMessagesResponse"];
export type ContextResponse = S["ContextResponse"];
export type Profile = S["Profile"];
export type Key = S["Key"];
export type CreatedKey = S["CreatedKey"];
export type Caller = S["Caller"];
export type AdminList = S["AdminList"];
export type ErasureReceipt = S["ErasureReceipt"];
export type UserOverview = S["UserOverview"];
export type JobQuery = NonNullable<operations["list_jobs"]["parameters"]["query"]>;
export type JobPage = { results: Job[]; next_cursor: string | null };
export type AuditList = S["AuditList"];
export type ConsolidationRun = S["ConsolidationRun"];
export type Problem = S["Problem"];
export type AddRequest = S["AddMemoriesRequest"] & { idempotency_key?: string };
export type SearchRequest = S["SearchRequest"];
export type ContextRequest = S["ContextRequest"];

/** An error answer from Engram: the RFC 9457 problem document. */
export class EngramError extends Error {
  readonly status: number;
  readonly type: string;
  readonly title: string;
  readonly detail: string;
  readonly field?: string;
  readonly body: unknown;
  constructor(status: number, body: unknown) {
    const p = (body && typeof body === "object" ? body : {}) as Partial<Problem>;
    const detail = p.detail ?? (typeof body === "string" ? body : "");
    super(`${status} ${p.type ?? "about:blank"}: ${detail}${p.field ? ` (${p.field})` : ""}`);
    this.name = "EngramError";
    this.status = status;
    this.type = p.type ?? "about:blank";
    this.title = p.title ?? "";
    this.detail = detail;
    this.field = p.field;
    this.body = body;
  }
  /** The problem type's last segment, e.g. `validation`, `session-owner`. */
  get kind(): string {
    return this.type.split(":").pop() ?? this.type;
  }
}

/** A job ended `failed`. */
export class JobFailedError extends Error {
  constructor(readonly job: Job) {
    super(`job ${job.job_id} failed: ${job.error ?? ""}`);
    this.name = "JobFailedError";
  }
}

export interface EngramOptions {
  /** Default: `http://127.0.0.1:8420` (or ENGRAM_URL in Node). */
  baseUrl?: string;
  /** Default: ENGRAM_API_KEY in Node. */
  apiKey?: string;
  /** The tenant an admin key acts in (`X-Engram-Tenant`). */
  tenant?: string;
  /** Per request, milliseconds (default 30 000). */
  timeoutMs?: number;
  /** 429 and 503 are retried at most this many times (default 3) ... */
  maxRetries?: number;
  /** ... within this many milliseconds in all (default 30 000). */
  retryBudgetMs?: number;
  /** First backoff when the server sends no Retry-After (default 250 ms). */
  backoffMs?: number;
  fetch?: typeof fetch;
}

/** What `memories.add` returns whatever the server answered: the memories
 * stored at once, and the extraction job when there is one (finished with
 * `wait: true`). */
export interface AddOutcome {
  memories: AddResult[];
  job: Job | null;
  job_id: string | null;
  /** The finished job's outcome per fact. */
  results: JobResult[];
}

interface Call {
  method: string;
  path: string;
  query?: Record<string, string | number | boolean | string[] | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
}

const env = (name: string): string | undefined =>
  (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];

const seg = (s: string) => encodeURIComponent(s);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Engram {
  readonly memories: Memories;
  readonly jobs: Jobs;
  readonly sessions: Sessions;
  readonly users: Users;
  readonly admin: Admin;
  private readonly baseUrl: string;
  private readonly opts: Required<Omit<EngramOptions, "apiKey" | "tenant" | "baseUrl" | "fetch">> &
    Pick<EngramOptions, "apiKey" | "tenant">;
  private readonly fetchImpl: typeof fetch;

  constructor(options: EngramOptions = {}) {
    this.baseUrl = (options.baseUrl ?? env("ENGRAM_URL") ?? "http://127.0.0.1:8420").replace(/\/+$/, "");
    this.opts = {
      apiKey: options.apiKey ?? env("ENGRAM_API_KEY"),
      tenant: options.tenant,
      timeoutMs: options.timeoutMs ?? 30_000,
      maxRetries: options.maxRetries ?? 3,
      retryBudgetMs: options.retryBudgetMs ?? 30_000,
      backoffMs: options.backoffMs ?? 250,
    };
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.memories = new Memories(this);
    this.jobs = new Jobs(this);
    this.sessions = new Sessions(this);
    this.users = new Users(this);
    this.admin = new Admin(this);
  }

  /** The memory block to put in a prompt, within `token_budget` tokens. */
  context(req: ContextRequest): Promise<ContextResponse> {
    return this.call({ method: "POST", path: "/v1/context", body: req });
  }

  /** Sends a call, retrying 429 and 503 as Retry-After says; the status and parsed body. */
  async send(call: Call): Promise<{ status: number; body: any }> {
    const url = new URL(this.baseUrl + call.path);
    for (const [k, v] of Object.entries(call.query ?? {})) {
      if (v === undefined) continue;
      url.searchParams.set(k, Array.isArray(v) ? v.join(",") : String(v));
    }
    const headers: Record<string, string> = { Accept: "application/json", ...call.headers };
    if (this.opts.apiKey) headers.Authorization = `Bearer ${this.opts.apiKey}`;
    if (this.opts.tenant) headers["X-Engram-Tenant"] = this.opts.tenant;
    if (call.body !== undefined) headers["Content-Type"] = "application/json";
    let spent = 0;
    for (let attempt = 0; ; attempt++) {
      const res = await this.fetchImpl(url, {
        method: call.method,
        headers,
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
      const text = await res.text();
      let body: unknown = text;
      if (text && (res.headers.get("content-type") ?? "").includes("json")) {
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
      }
      if (res.ok) return { status: res.status, body };
      const delay = this.retryDelay(res.status, res.headers.get("retry-after"), attempt, spent);
      if (delay === null) throw new EngramError(res.status, body);
      await sleep(delay);
      spent += delay;
    }
  }

  /** A call's parsed body (errors thrown as EngramError). */
  async call<T>(call: Call): Promise<T> {
    return (await this.send(call)).body as T;
  }

  private retryDelay(status: number, retryAfter: string | null, attempt: number, spent: number): number | null {
    if ((status !== 429 && status !== 503) || attempt >= this.opts.maxRetries) return null;
    let delay = retryAfter !== null && retryAfter !== "" && !Number.isNaN(Number(retryAfter))
      ? Math.max(0, Number(retryAfter) * 1000)
      : this.opts.backoffMs * 2 ** attempt * (0.5 + Math.random() / 2);
    if (spent + delay > this.opts.retryBudgetMs) return null;
    return delay;
  }
}

class Group {
  constructor(protected readonly c: Engram) {}
}

export class Memories extends Group {
  /** Adds a text or messages; with `wait: true` the outcome holds the finished job. */
  async add(req: AddRequest): Promise<AddOutcome> {
    const { idempotency_key, ...body } = req;
    const headers = idempotency_key ? { "Idempotency-Key": idempotency_key } : undefined;
    const { status, body: b } = await this.c.send({ method: "POST", path: "/v1/memories", body, headers });
    let memories: AddResult[] = [];
    let job: Job | null = null;
    let jobId: string | null = null;
    if (status === 201) memories = b.results;
    else if (status === 200) {
      job = b;
      jobId = b.job_id;
    } else {
      memories = b.raw ?? [];
      jobId = b.job_id;
    }
    if (req.wait && job === null && jobId) job = await this.c.jobs.wait(jobId, { raiseOnFailure: false });
    const results = (job?.results ?? []).filter((r: any) => "event" in r) as JobResult[];
    return { memories, job, job_id: jobId, results };
  }

  search(req: SearchRequest): Promise<SearchResponse> {
    return this.c.call({ method: "POST", path: "/v1/memories/search", body: req });
  }

  get(id: string): Promise<Memory> {
    return this.c.call({ method: "GET", path: `/v1/memories/${seg(id)}` });
  }

  /** One page; `list` iterates over them all. */
  listPage(query: ListQuery = {}): Promise<ListResponse> {
    return this.c.call({ method: "GET", path: "/v1/memories", query: { ...query } });
  }

  /** Every memory of the scope, page after page. */
  async *list(query: ListQuery = {}): AsyncGenerator<Memory> {
    let cursor = query.cursor;
    for (;;) {
      const page = await this.listPage({ ...query, cursor });
      yield* page.results;
      if (!page.next_cursor) return;
      cursor = page.next_cursor;
    }
  }

  update(id: string, patch: S["PatchMemoryRequest"]): Promise<Memory> {
    return this.c.call({ method: "PATCH", path: `/v1/memories/${seg(id)}`, body: patch });
  }

  async delete(id: string): Promise<void> {
    await this.c.send({ method: "DELETE", path: `/v1/memories/${seg(id)}` });
  }

  /** Hard-deletes everything the scope holds. */
  deleteScope(scope: { user_id?: string; agent_id?: string; session_id?: string }): Promise<{ deleted: number; counts: Record<string, number> }> {
    return this.c.call({ method: "DELETE", path: "/v1/memories", query: scope });
  }

  async history(id: string): Promise<HistoryEntry[]> {
    return (await this.c.call<{ results: HistoryEntry[] }>({ method: "GET", path: `/v1/memories/${seg(id)}/history` })).results;
  }

  revert(id: string): Promise<Memory> {
    return this.c.call({ method: "POST", path: `/v1/memories/${seg(id)}/revert`, body: {} });
  }
}

export interface ListQuery {
  user_id?: string;
  agent_id?: string;
  session_id?: string;
  limit?: number;
  cursor?: string;
  include_superseded?: boolean;
  include_expired?: boolean;
  /** true: only what was said (turns kept as episodic memories); false: the rest. */
  said?: boolean;
}

export class Jobs extends Group {
  get(id: string): Promise<Job> {
    return this.c.call({ method: "GET", path: `/v1/jobs/${seg(id)}` });
  }
  /** Runs a failed job again from its first attempt, with the input it kept
   * (after fixing the model behind the failure); 409 if it has not failed. */
  retry(id: string): Promise<Job> {
    return this.c.call({ method: "POST", path: `/v1/jobs/${seg(id)}/retry`, body: {} });
  }
  /** One page of the tenant's jobs, newest first (a bound key: its user's). */
  list(query: JobQuery = {}): Promise<JobPage> {
    return this.c.call({ method: "GET", path: "/v1/jobs", query });
  }

  /** Polls with backoff until the job ends (rejects after `timeoutMs`). */
  async wait(id: string, opts: { timeoutMs?: number; raiseOnFailure?: boolean } = {}): Promise<Job> {
    const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
    for (let attempt = 0; ; attempt++) {
      const job = await this.get(id);
      if (job.status === "done" || job.status === "failed") {
        if (job.status === "failed" && (opts.raiseOnFailure ?? true)) throw new JobFailedError(job);
        return job;
      }
      if (Date.now() >= deadline) throw new Error(`job ${id} is still ${job.status}`);
      await sleep(Math.min(1000, 50 * 2 ** attempt));
    }
  }
}

export class Sessions extends Group {
  append(sessionId: string, req: S["AppendMessagesRequest"]): Promise<AppendMessagesResponse> {
    return this.c.call({ method: "POST", path: `/v1/sessions/${seg(sessionId)}/messages`, body: req });
  }
  get(sessionId: string): Promise<Session> {
    return this.c.call({ method: "GET", path: `/v1/sessions/${seg(sessionId)}` });
  }
  messages(sessionId: string, query: { limit?: number; cursor?: string } = {}): Promise<SessionMessagesPage> {
    return this.c.call({ method: "GET", path: `/v1/sessions/${seg(sessionId)}/messages`, query });
  }
  delete(sessionId: string): Promise<ErasureReceipt> {
    return this.c.call({ method: "DELETE", path: `/v1/sessions/${seg(sessionId)}/messages` });
  }
}

export class Users extends Group {
  /** The calling key: its tenant, role, and the user (and agent) it is bound to, if any. */
  me(): Promise<Caller> {
    return this.c.call({ method: "GET", path: "/v1/me" });
  }
  profile(userId: string, query: { limit?: number } = {}): Promise<Profile> {
    return this.c.call({ method: "GET", path: `/v1/users/${seg(userId)}/profile`, query });
  }
  updateProfile(userId: string, req: S["PatchProfileRequest"]): Promise<Profile> {
    return this.c.call({ method: "PATCH", path: `/v1/users/${seg(userId)}/profile`, body: req });
  }
}

export class Admin extends Group {
  createKey(req: S["CreateKeyRequest"]): Promise<CreatedKey> {
    return this.c.call({ method: "POST", path: "/v1/admin/keys", body: req });
  }
  async keys(): Promise<Key[]> {
    return (await this.c.call<{ results: Key[] }>({ method: "GET", path: "/v1/admin/keys" })).results;
  }
  async revokeKey(id: string): Promise<void> {
    await this.c.send({ method: "DELETE", path: `/v1/admin/keys/${seg(id)}` });
  }
  userMemories(userId: string, query: { states?: string[]; limit?: number; cursor?: string } = {}): Promise<AdminList> {
    return this.c.call({ method: "GET", path: `/v1/admin/users/${seg(userId)}/memories`, query });
  }
  searchUser(userId: string, req: S["AdminSearchRequest"]): Promise<AdminList> {
    return this.c.call({ method: "POST", path: `/v1/admin/users/${seg(userId)}/search`, body: req });
  }
  purgeMemory(userId: string, id: string): Promise<ErasureReceipt> {
    return this.c.call({ method: "DELETE", path: `/v1/admin/users/${seg(userId)}/memories/${seg(id)}` });
  }
  /** The user's export document (parsed). */
  export(userId: string): Promise<S["UserExport"]> {
    return this.c.call({ method: "GET", path: `/v1/admin/users/${seg(userId)}/export` });
  }
  /** Counts by state and kind, last activity, sessions. */
  userOverview(userId: string): Promise<UserOverview> {
    return this.c.call({ method: "GET", path: `/v1/admin/users/${seg(userId)}` });
  }
  /** `{ dry_run: true }` counts what would go and changes nothing. */
  eraseUser(userId: string, query: { dry_run?: boolean } = {}): Promise<ErasureReceipt> {
    return this.c.call({ method: "DELETE", path: `/v1/admin/users/${seg(userId)}`, query });
  }
  purgeSource(sourceRef: string, query: { dry_run?: boolean } = {}): Promise<ErasureReceipt> {
    return this.c.call({ method: "DELETE", path: `/v1/admin/sources/${seg(sourceRef)}`, query });
  }
  /** The finished run with `wait: true`, else `{ job_id, status }`. */
  consolidate(req: S["ConsolidateRequest"]): Promise<ConsolidationRun | { job_id: string; status: "queued" }> {
    return this.c.call({ method: "POST", path: "/v1/admin/consolidate", body: req });
  }
  async consolidationRuns(query: { limit?: number } = {}): Promise<ConsolidationRun[]> {
    return (await this.c.call<{ runs: ConsolidationRun[] }>({ method: "GET", path: "/v1/admin/consolidation-runs", query })).runs;
  }
  audit(query: { action?: string; actor?: string; user_id?: string; since?: string; until?: string; limit?: number; cursor?: string } = {}): Promise<AuditList> {
    return this.c.call({ method: "GET", path: "/v1/admin/audit", query });
  }
}
