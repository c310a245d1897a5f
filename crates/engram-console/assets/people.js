// People and one person's memories, in every state the key may see, with
// filters the database applies and paging (a person may hold tens of
// thousands).

import { action, api, bound, canGdpr, el, field, isoOf, readOnly, row, say, select, show, table, when } from "./core.js";
import { timelineView } from "./memory.js";
import { recallView } from "./recall.js";
import { requestsView } from "./requests.js";
import { jobsView } from "./operations.js";

export function peopleView() {
  const [prefix, prefixLabel] = field("User id starts with", { id: "prefix" });
  const heads = ["User", "Memories in view", "Last change"];
  const results = el("tbody", { id: "people" });
  const more = el("button", { type: "button", id: "people-more", hidden: true }, "More people");
  let latest = 0; // only the newest search's answer is shown
  let after = null;
  const find = async (e, next) => {
    if (e) e.preventDefault();
    const mine = ++latest;
    const q = new URLSearchParams({ type: "user", limit: "50" });
    if (prefix.value.trim()) q.set("prefix", prefix.value.trim());
    if (next) q.set("after", after);
    const r = await api("GET", `/v1/entities?${q}`);
    if (r.status !== 200 || mine !== latest) return;
    const rows = r.body.results.map((u) => row(heads, [
      el("button", { type: "button", class: "open-user", onclick: () => personView(u.id) }, u.id),
      String(u.memories), when(u.last_updated_at)]));
    if (next) results.append(...rows); else results.replaceChildren(...rows);
    after = r.body.next_after;
    more.hidden = !after;
    say(r.body.results.length || next ? "" : "No user with memories starts with that.");
  };
  more.addEventListener("click", () => find(null, true));
  show(el("h2", {}, "People"),
    el("form", { id: "find", onsubmit: find }, prefixLabel, el("button", { type: "submit" }, "Find"),
      // The list shows people with memories in view; someone whose memories
      // are all deleted or superseded is opened by their exact id.
      el("button", { type: "button", id: "open-exact", onclick: () => prefix.value.trim() && personView(prefix.value.trim()) }, "Open this exact id")),
    el("table", {}, el("thead", {}, el("tr", {}, ...heads.map((h) => el("th", { scope: "col" }, h)))), results),
    more);
  find();
}

const STATES = ["live", "superseded", "expired", "archived", "deleted"];
const KINDS = ["semantic", "episodic", "procedural"];
const SOURCES = ["user_stated", "inferred", "tool", "document", "api"];

/** The person at a glance (GDPR keys): counts by state and kind, sessions. */
async function overview(user) {
  const box = el("section", { id: "overview", "aria-label": "Overview" });
  if (!canGdpr()) return box;
  const r = await api("GET", `/v1/admin/users/${encodeURIComponent(user)}`);
  if (r.status !== 200) return box;
  const o = r.body;
  const list = (obj) => Object.entries(obj).map(([k, n]) => `${n} ${k}`).join(", ");
  box.append(
    el("p", { id: "overview-states" }, `${o.memories} memories: ${list(o.by_state)}`),
    el("p", { id: "overview-kinds" }, `By kind: ${list(o.by_kind)}. Last activity ${when(o.last_activity_at)}.`));
  if (o.sessions.length) {
    const heads = ["Session", "Turns", "Memories", "Last activity"];
    box.append(el("details", {}, el("summary", {}, `${o.sessions_total} sessions`),
      table("sessions", heads, o.sessions.map((s) => [s.session_id, String(s.turns), String(s.memories), when(s.last_activity_at)]))));
  }
  return box;
}

/** One page of a user's memories: every state through the GDPR view for keys
 * that may use it (filtered by the database), else what the key can list
 * (live, superseded, expired), filtered here. */
async function memoriesPage(user, f, cursor) {
  if (canGdpr()) {
    const q = new URLSearchParams({ limit: "50" });
    for (const [k, v] of Object.entries(f)) if (v) q.set(k, v);
    if (cursor) q.set("cursor", cursor);
    return api("GET", `/v1/admin/users/${encodeURIComponent(user)}/memories?${q}`);
  }
  const q = new URLSearchParams({ user_id: user, limit: "50", include_superseded: "true", include_expired: "true" });
  if (cursor) q.set("cursor", cursor);
  const r = await api("GET", `/v1/memories?${q}`);
  if (r.status === 200) {
    for (const m of r.body.results) m.state = m.superseded_by ? "superseded" : (m.expires_at && Date.parse(m.expires_at) <= Date.now() ? "expired" : "live");
    const needle = (f.text || "").toLowerCase();
    r.body.results = r.body.results.filter((m) => (!f.states || m.state === f.states) && (!f.kinds || m.kind === f.kinds) &&
      (!needle || m.memory.toLowerCase().includes(needle)));
  }
  return r;
}

export async function personView(user) {
  const [state, stateLabel] = select("State", "state", [["", "every state"], ...STATES.map((s) => [s, s])]);
  const [kind, kindLabel] = select("Kind", "kind", [["", "every kind"], ...KINDS.map((k) => [k, k])]);
  const [text, textLabel] = field("Text contains", { id: "text-filter" });
  const gdpr = canGdpr();
  const [source, sourceLabel] = select("Source", "source-type", [["", "any source"], ...SOURCES.map((s) => [s, s])]);
  const [sourceRef, sourceRefLabel] = field("Source ref", { id: "source-ref" });
  const [attribute, attributeLabel] = field("Attribute", { id: "attribute", placeholder: "e.g. location.city" });
  const [after, afterLabel] = field("Created after", { id: "created-after", type: "datetime-local" });
  const [before, beforeLabel] = field("Created before", { id: "created-before", type: "datetime-local" });
  const heads = ["Memory", "State", "Kind", "Created", "Actions"];
  const rows = el("tbody", { id: "memories" });
  const counts = el("p", { id: "counts" });
  const more = el("button", { type: "button", id: "more", hidden: true }, "Load more");
  let cursor = null;
  let loaded = [];
  let generation = 0; // a new filter drops the answers of older ones
  const filters = () => ({
    states: state.value, kinds: kind.value, text: text.value.trim(),
    ...(gdpr ? { source_type: source.value, source_ref: sourceRef.value.trim(), attribute: attribute.value.trim(),
      created_after: isoOf(after), created_before: isoOf(before) } : {}),
  });
  const render = () => {
    const tally = {};
    for (const m of loaded) tally[m.state] = (tally[m.state] || 0) + 1;
    counts.textContent = `${loaded.length} shown${cursor ? " (more to load)" : ""}: ` + Object.entries(tally).map(([s, n]) => `${n} ${s}`).join(", ");
    rows.replaceChildren(...loaded.map((m) => memoryRow(user, m, heads, () => load(true), loaded)));
  };
  const load = async (reset) => {
    if (reset) { cursor = null; loaded = []; generation++; }
    const mine = generation;
    const r = await memoriesPage(user, filters(), cursor);
    if (r.status !== 200 || mine !== generation) return;
    loaded = loaded.concat(r.body.results);
    cursor = r.body.next_cursor;
    more.hidden = !cursor;
    render();
  };
  more.addEventListener("click", () => load(false));
  for (const s of [state, kind, source]) s.addEventListener("change", () => load(true));
  const form = el("form", { id: "filters", class: "bar", onsubmit: (e) => { e.preventDefault(); load(true); } },
    stateLabel, kindLabel, textLabel, gdpr ? [sourceLabel, sourceRefLabel, attributeLabel, afterLabel, beforeLabel] : null,
    el("button", { type: "submit" }, "Apply filters"));
  const tools = el("div", { class: "bar" },
    bound() ? null : el("button", { type: "button", onclick: peopleView }, "All people"),
    el("button", { type: "button", id: "open-recall", onclick: () => recallView(user, () => personView(user)) }, "Why did it say that?"),
    gdpr ? el("button", { type: "button", id: "open-requests", onclick: () => requestsView(user, () => personView(user)) }, "Export and erasure") : null,
    el("button", { type: "button", id: "open-jobs", onclick: () => jobsView({ user_id: user }) }, "Jobs"));
  show(el("h2", {}, `Memories of ${user}`), tools, await overview(user), form, counts,
    el("table", {}, el("thead", {}, el("tr", {}, ...heads.map((h) => el("th", { scope: "col" }, h)))), rows), more);
  load(true);
}

/** The state, naming how a deleted memory went: retracted by the user
 * ("that's not true any more"), forgotten on request, or deleted. */
export function stateLabel(m) {
  if (m.state !== "deleted" || !m.history || !m.history.length) return m.state;
  const last = m.history[m.history.length - 1].event;
  return last === "RETRACT" ? "deleted (retracted)" : last === "FORGET" ? "deleted (forgotten)" : "deleted";
}

function memoryRow(user, m, heads, reload, loaded) {
  const write = !readOnly();
  const inView = m.state === "live" || m.state === "expired" || m.state === "superseded";
  const done = async (r) => { if (r.status < 300) { say(""); await reload(); } };
  return row(heads, [
    el("span", { class: "memory-text" }, m.memory),
    el("span", { class: "state" }, stateLabel(m)),
    m.kind,
    when(m.created_at),
    el("span", { class: "actions" },
      el("button", { type: "button", class: "timeline-open", onclick: () => timelineView(user, m, loaded, () => personView(user)) }, "Timeline"),
      action(m.pinned ? "Unpin" : "Pin", { class: "pin", disabled: !write || !inView }, null,
        async () => done(await api("PATCH", `/v1/memories/${m.id}`, { pinned: !m.pinned }))),
      action("Forget", { class: "delete", disabled: !write || !inView, title: "Soft delete: gone from every read, revertible until consolidation purges it" },
        `Forget this memory? It leaves every search at once; Revert brings it back until it is purged.\n\n${m.memory}`,
        async () => done(await api("DELETE", `/v1/memories/${m.id}`)))),
  ], { "data-id": m.id });
}
