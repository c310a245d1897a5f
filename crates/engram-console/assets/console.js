// Engram's console: every view and action is an Engram API call made with
// the key the user signed in with, so the console can do exactly what that
// key can. Memory texts and names are attacker-controlled: everything is
// rendered through text nodes (`el` below), never parsed as HTML.

const session = { key: null, tenant: null, me: null };
const STORE = "engram-console"; // sessionStorage, only when asked: this tab, until it closes

const $ = (id) => document.getElementById(id);

/** An element with attributes and children; strings become text nodes. */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "text") node.textContent = String(v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function say(text) {
  $("status").textContent = text || "";
}

/** One API call; `{status, body}`. Problems are shown as their detail. */
async function api(method, path, body) {
  const headers = { authorization: `Bearer ${session.key}` };
  if (session.tenant) headers["x-engram-tenant"] = session.tenant;
  if (body !== undefined) headers["content-type"] = "application/json";
  const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = null; }
  if (!r.ok) say(`${r.status}: ${(json && (json.detail || json.title)) || text}`);
  return { status: r.status, body: json };
}

const readOnly = () => session.me && session.me.role === "read-only";
const bound = () => session.me && session.me.user_id;
const canAdmin = () => session.me && !bound() && session.me.role !== "read-only";

function show(...nodes) {
  $("main").replaceChildren(...nodes);
  const h = $("main").querySelector("h2");
  if (h) { h.setAttribute("tabindex", "-1"); h.focus(); }
}

// --- Sign-in -------------------------------------------------------------

function signInView() {
  $("who").textContent = "";
  $("signout").hidden = true;
  const key = el("input", { id: "key", type: "password", autocomplete: "off", required: true });
  const tenant = el("input", { id: "tenant", autocomplete: "off", placeholder: "admin keys only" });
  const stay = el("input", { id: "stay", type: "checkbox" });
  const form = el("form", { id: "signin", onsubmit: async (e) => {
    e.preventDefault();
    await signIn(key.value.trim(), tenant.value.trim() || null, stay.checked);
  } },
  el("label", {}, "API key", key),
  el("label", {}, "Tenant", tenant),
  el("label", {}, el("span", {}, stay, " Stay signed in (this tab only, until it closes)")),
  el("button", { type: "submit" }, "Sign in"));
  show(el("h2", {}, "Sign in"), form,
    el("p", {}, "The key stays in this page's memory and is sent only to this server; it is never put in a URL."));
}

async function signIn(key, tenant, stay) {
  session.key = key;
  session.tenant = tenant;
  const r = await api("GET", "/v1/me");
  if (r.status !== 200) { session.key = null; return; }
  session.me = r.body;
  if (stay) sessionStorage.setItem(STORE, JSON.stringify({ key, tenant }));
  say("");
  $("who").textContent = `${r.body.role} key, tenant ${tenant || r.body.tenant_id}` +
    (r.body.user_id ? `, bound to ${r.body.user_id}` : "") + (readOnly() ? " (read-only)" : "");
  $("signout").hidden = false;
  if (bound()) personView(r.body.user_id); else peopleView();
}

function signOut() {
  session.key = session.tenant = session.me = null;
  sessionStorage.removeItem(STORE);
  say("");
  signInView();
}

// --- People --------------------------------------------------------------

function peopleView() {
  const prefix = el("input", { id: "prefix", autocomplete: "off" });
  const results = el("tbody", { id: "people" });
  let latest = 0; // only the newest search's answer is shown
  const find = async (e) => {
    if (e) e.preventDefault();
    const mine = ++latest;
    const q = new URLSearchParams({ type: "user", limit: "50" });
    if (prefix.value.trim()) q.set("prefix", prefix.value.trim());
    const r = await api("GET", `/v1/entities?${q}`);
    if (r.status !== 200 || mine !== latest) return;
    results.replaceChildren(...r.body.results.map((u) => el("tr", {},
      el("td", {}, el("button", { type: "button", class: "open-user", onclick: () => personView(u.id) }, u.id)),
      el("td", { "data-label": "Memories in view" }, String(u.memories)),
      el("td", { "data-label": "Last change" }, u.last_updated_at))));
    if (!r.body.results.length) say("No user with memories starts with that.");
  };
  show(el("h2", {}, "People"),
    el("form", { id: "find", onsubmit: find }, el("label", {}, "User id starts with", prefix),
      el("button", { type: "submit" }, "Find")),
    el("table", {}, el("thead", {}, el("tr", {}, el("th", {}, "User"), el("th", {}, "Memories in view"), el("th", {}, "Last change"))), results));
  find();
}

// --- A person's memories -------------------------------------------------

const STATES = ["", "live", "superseded", "expired", "archived", "deleted"];

/** Memories of a user, one page: every state through the GDPR view for keys
 * that may use it, else what the key can list (live, superseded, expired). */
async function memoriesPage(user, state, cursor) {
  if (canAdmin()) {
    const q = new URLSearchParams({ limit: "50" });
    if (state) q.set("states", state);
    if (cursor) q.set("cursor", cursor);
    return api("GET", `/v1/admin/users/${encodeURIComponent(user)}/memories?${q}`);
  }
  const q = new URLSearchParams({ user_id: user, limit: "50", include_superseded: "true", include_expired: "true" });
  if (cursor) q.set("cursor", cursor);
  const r = await api("GET", `/v1/memories?${q}`);
  if (r.status === 200) {
    for (const m of r.body.results) m.state = m.superseded_by ? "superseded" : (m.expires_at && Date.parse(m.expires_at) <= Date.now() ? "expired" : "live");
    if (state) r.body.results = r.body.results.filter((m) => m.state === state);
  }
  return r;
}

function personView(user) {
  const state = el("select", { id: "state" }, ...STATES.map((s) => el("option", { value: s }, s || "every state")));
  const text = el("input", { id: "text-filter", autocomplete: "off" });
  const rows = el("tbody", { id: "memories" });
  const counts = el("p", { id: "counts" });
  const more = el("button", { type: "button", id: "more", hidden: true }, "Load more");
  let cursor = null;
  let loaded = [];
  let generation = 0; // a new filter drops the answers of older ones
  const render = () => {
    const needle = text.value.trim().toLowerCase();
    const shown = loaded.filter((m) => !needle || m.memory.toLowerCase().includes(needle));
    const tally = {};
    for (const m of loaded) tally[m.state] = (tally[m.state] || 0) + 1;
    counts.textContent = `${loaded.length} loaded: ` + Object.entries(tally).map(([s, n]) => `${n} ${s}`).join(", ");
    rows.replaceChildren(...shown.map((m) => memoryRow(user, m, load)));
  };
  const load = async (reset) => {
    if (reset) { cursor = null; loaded = []; generation++; }
    const mine = generation;
    const r = await memoriesPage(user, state.value, cursor);
    if (r.status !== 200 || mine !== generation) return;
    loaded = loaded.concat(r.body.results);
    cursor = r.body.next_cursor;
    more.hidden = !cursor;
    render();
  };
  more.addEventListener("click", () => load(false));
  state.addEventListener("change", () => load(true));
  text.addEventListener("input", render);
  const back = bound() ? null : el("button", { type: "button", onclick: peopleView }, "All people");
  show(el("h2", {}, `Memories of ${user}`),
    el("div", { class: "bar" }, back, el("label", {}, "State", state), el("label", {}, "Text contains", text)),
    counts,
    el("table", {}, el("thead", {}, el("tr", {}, el("th", {}, "Memory"), el("th", {}, "State"), el("th", {}, "Kind"), el("th", {}, "Created"), el("th", {}, "Actions"))), rows),
    more);
  load(true);
}

function memoryRow(user, m, reload) {
  const write = !readOnly();
  const act = async (method, path, body, question) => {
    if (question && !window.confirm(question)) return;
    const r = await api(method, path, body);
    if (r.status < 300) { say(""); reload(true); }
  };
  const live = m.state === "live" || m.state === "expired" || m.state === "superseded";
  return el("tr", { "data-id": m.id },
    el("td", { class: "memory-text" }, m.memory),
    el("td", { "data-label": "State" }, el("span", { class: "state" }, m.state)),
    el("td", { "data-label": "Kind" }, m.kind),
    el("td", { "data-label": "Created" }, m.created_at),
    el("td", {},
      el("button", { type: "button", class: "timeline-open", onclick: () => timelineView(user, m) }, "Timeline"), " ",
      el("button", { type: "button", class: "pin", disabled: !write || !live,
        onclick: () => act("PATCH", `/v1/memories/${m.id}`, { pinned: !m.pinned }) }, m.pinned ? "Unpin" : "Pin"), " ",
      el("button", { type: "button", class: "delete", disabled: !write || !live,
        onclick: () => act("DELETE", `/v1/memories/${m.id}`, undefined, `Delete this memory?\n\n${m.memory}`) }, "Delete")));
}

// --- A memory's timeline -------------------------------------------------

async function timelineView(user, m) {
  let history = m.history;
  if (!history) {
    const r = await api("GET", `/v1/memories/${m.id}/history`);
    if (r.status !== 200) return;
    history = r.body.results;
  }
  const facts = [
    ["State", m.state], ["Kind", m.kind], ["Pinned", m.pinned ? "yes" : "no"],
    ["Expires", m.expires_at || "never"], ["Used", `${m.access_count} times, last ${m.last_used_at || "never"}`],
    ["Replaced by", m.superseded_by || "—"], ["Source", `${m.source.type}${m.source.ref ? ` (${m.source.ref})` : ""}`],
  ];
  const events = history.map((h) => el("li", { class: "event" },
    el("strong", {}, h.event), ` ${h.created_at} by ${h.actor}`,
    h.reason ? el("div", {}, `Reason: ${h.reason}`) : null,
    h.old_content !== null && h.old_content !== undefined ? el("div", { class: "memory-text" }, `Before: ${h.old_content}`) : null,
    h.new_content !== null && h.new_content !== undefined ? el("div", { class: "memory-text" }, `After: ${h.new_content}`) : null,
    h.source_message ? el("div", { class: "memory-text" }, `Said: ${h.source_message}`) : null,
    h.job_id ? el("div", {}, `Job ${h.job_id}` + (h.extractor ? `, ${h.extractor}` : "") + (h.model ? ` ${h.model}` : "") + (h.prompt_version ? ` prompt ${h.prompt_version}` : "")) : null));
  show(el("h2", {}, "Timeline"),
    el("p", { class: "memory-text", id: "timeline-memory" }, m.memory),
    el("dl", {}, ...facts.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)])),
    el("ol", { class: "timeline", id: "timeline" }, ...events),
    el("button", { type: "button", onclick: () => personView(user) }, `Back to ${user}`));
}

// --- Start ---------------------------------------------------------------

document.addEventListener("DOMContentLoaded", () => {
  $("signout").addEventListener("click", signOut);
  const kept = sessionStorage.getItem(STORE);
  if (kept) {
    const { key, tenant } = JSON.parse(kept);
    signIn(key, tenant, true);
  } else {
    signInView();
  }
});
