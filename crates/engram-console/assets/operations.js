// Operations: the job queue (queued, running, failed with its error,
// attempts), the audit log with filters, and consolidation runs with a dry
// run. Each list pages with the API's cursor.

import { api, countList, el, field, isoOf, put, row, say, select, show, when } from "./core.js";

/** A list that loads page after page of `path(cursor)` into `tbody`. */
function pager(tbody, more, fetchPage, toRow) {
  let cursor = null;
  let generation = 0;
  const load = async (reset) => {
    if (reset) { cursor = null; generation++; tbody.replaceChildren(); }
    const mine = generation;
    const r = await fetchPage(cursor);
    if (r.status !== 200 || mine !== generation) return;
    tbody.append(...r.body.results.map(toRow));
    cursor = r.body.next_cursor;
    more.hidden = !cursor;
    say(tbody.children.length ? "" : "Nothing matches.");
  };
  more.addEventListener("click", () => load(false));
  return load;
}

const head = (heads) => el("thead", {}, el("tr", {}, ...heads.map((h) => el("th", { scope: "col" }, h))));

export function jobsView(initial) {
  const [status, statusLabel] = select("Status", "job-status", [["", "any status"], ["queued", "queued"], ["running", "running"], ["done", "done"], ["failed", "failed"]]);
  const [kind, kindLabel] = select("Kind", "job-kind", [["", "any kind"], ["extract", "extract"], ["summarize", "summarize"], ["consolidate", "consolidate"]]);
  const [user, userLabel] = field("User", { id: "job-user", value: initial.user_id || "" });
  const heads = ["Created", "Kind", "Status", "Attempts", "User", "Error", "Results"];
  const tbody = el("tbody", { id: "jobs" });
  const more = el("button", { type: "button", id: "jobs-more", hidden: true }, "Load more");
  const load = pager(tbody, more, (cursor) => {
    const q = new URLSearchParams({ limit: "50" });
    if (status.value) q.set("status", status.value);
    if (kind.value) q.set("kind", kind.value);
    if (user.value.trim()) q.set("user_id", user.value.trim());
    if (cursor) q.set("cursor", cursor);
    return api("GET", `/v1/jobs?${q}`);
  }, (j) => row(heads, [when(j.created_at), j.kind, el("span", { class: `job-${j.status}` }, j.status), `${j.attempts} of ${j.max_attempts}`,
    j.user_id || "—", el("span", { class: "job-error" }, j.error || ""),
    el("details", {}, el("summary", {}, `${Array.isArray(j.results) ? j.results.length : 0} results`),
      el("pre", { class: "memory-text" }, JSON.stringify(j.results, null, 2)))], { "data-id": j.job_id }));
  for (const s of [status, kind]) s.addEventListener("change", () => load(true));
  show(el("h2", {}, "Jobs"),
    el("form", { id: "job-filters", class: "bar", onsubmit: (e) => { e.preventDefault(); load(true); } },
      statusLabel, kindLabel, userLabel, el("button", { type: "submit" }, "Apply filters")),
    el("table", {}, head(heads), tbody), more);
  load(true);
}

const AUDIT_HEADS = ["At", "Who", "What", "Target", "Subject", "Request", "Details"];

function auditRow(e) {
  return row(AUDIT_HEADS, [when(e.at), e.actor, e.action, e.target || "—",
    el("code", { title: "pseudonym: a keyed hash of the user, as stored" }, e.subject_hash ? `${e.subject_hash.slice(0, 12)}…` : "—"),
    e.request_id || "—", el("code", {}, JSON.stringify(e.details))]);
}

export function auditTable(entries) {
  return el("table", { class: "audit" }, head(AUDIT_HEADS), el("tbody", {}, ...entries.map(auditRow)));
}

export function auditView(initial) {
  const [action, actionLabel] = field("What (action)", { id: "audit-action", placeholder: "e.g. user.erase", value: initial.action || "" });
  const [actor, actorLabel] = field("Who (actor)", { id: "audit-actor", placeholder: "e.g. key:env-admin" });
  const [user, userLabel] = field("About user", { id: "audit-user" });
  const [since, sinceLabel] = field("Since", { id: "audit-since", type: "datetime-local" });
  const [until, untilLabel] = field("Until", { id: "audit-until", type: "datetime-local" });
  const tbody = el("tbody", { id: "audit" });
  const more = el("button", { type: "button", id: "audit-more", hidden: true }, "Load more");
  const load = pager(tbody, more, (cursor) => {
    const q = new URLSearchParams({ limit: "50" });
    for (const [k, input] of [["action", action], ["actor", actor], ["user_id", user]]) if (input.value.trim()) q.set(k, input.value.trim());
    if (isoOf(since)) q.set("since", isoOf(since));
    if (isoOf(until)) q.set("until", isoOf(until));
    if (cursor) q.set("cursor", cursor);
    return api("GET", `/v1/admin/audit?${q}`);
  }, auditRow);
  show(el("h2", {}, "Audit log"),
    el("p", {}, "Who did what and when, across the deployment. Entries hold no content; a person appears only as their pseudonym."),
    el("form", { id: "audit-filters", class: "bar", onsubmit: (e) => { e.preventDefault(); load(true); } },
      actionLabel, actorLabel, userLabel, sinceLabel, untilLabel, el("button", { type: "submit" }, "Apply filters")),
    el("table", { class: "audit" }, head(AUDIT_HEADS), tbody), more);
  load(true);
}

function runRow(heads, r) {
  return row(heads, [when(r.started_at), r.scope, r.dry_run ? "dry run" : "real", r.trigger, r.status, String(r.users_done),
    countList(null, r.counts), el("code", {}, r.errors && Object.keys(r.errors).length ? JSON.stringify(r.errors) : "—")], { "data-id": r.id });
}

export async function consolidationView() {
  const heads = ["Started", "Scope", "Kind", "Trigger", "Status", "Users", "Counts", "Errors"];
  const tbody = el("tbody", { id: "runs" });
  const report = el("div", { id: "consolidation-report" });
  const [user, userLabel] = field("Only user (optional)", { id: "consolidate-user" });
  const refresh = async () => {
    const r = await api("GET", "/v1/admin/consolidation-runs?limit=20");
    if (r.status === 200) tbody.replaceChildren(...r.body.runs.map((x) => runRow(heads, x)));
  };
  const dryRun = async (e) => {
    e.preventDefault();
    const body = { dry_run: true, wait: true };
    if (user.value.trim()) body.user_id = user.value.trim();
    say("Running a dry run…");
    const r = await api("POST", "/v1/admin/consolidate", body);
    if (r.status === 200) {
      say("");
      put(report, el("p", {}, `Dry run ${r.body.status}: nothing was changed. It would:`), countList("dry-run-counts", r.body.counts),
        r.body.planned ? el("details", {}, el("summary", {}, "Planned changes"), el("pre", { class: "memory-text" }, JSON.stringify(r.body.planned, null, 2))) : null);
    } else if (r.status === 202) {
      say("The dry run is queued; its report appears in the list when it has run.");
    }
    await refresh();
  };
  show(el("h2", {}, "Consolidation"),
    el("p", {}, "The nightly pass: decay, merging near-duplicates, purging what was deleted long enough ago (docs/CONSOLIDATION.md)."),
    el("form", { id: "consolidate", class: "bar", onsubmit: dryRun }, userLabel, el("button", { type: "submit" }, "Dry run")),
    report,
    el("h3", {}, "Runs, newest first"),
    el("table", {}, head(heads), tbody));
  await refresh();
}
