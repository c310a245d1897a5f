// What every view shares: the signed-in session, API calls made with its
// key, and building the page from text. Memory texts, names and metadata
// are attacker-controlled: everything is rendered through text nodes (`el`),
// never parsed as HTML.

export const session = { key: null, tenant: null, me: null };

export const $ = (id) => document.getElementById(id);

/** An element with attributes and children; strings become text nodes. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "text") node.textContent = String(v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

/** The status line: what an action did, or (`error`) what went wrong. */
export function say(text, error = false) {
  $("status").textContent = text || "";
  $("status").classList.toggle("error", error);
}

function headers(json) {
  const h = { authorization: `Bearer ${session.key}` };
  if (session.tenant) h["x-engram-tenant"] = session.tenant;
  if (json) h["content-type"] = "application/json";
  return h;
}

/** One API call; `{status, body}`. Problems are shown as their detail. */
export async function api(method, path, body) {
  const r = await fetch(path, { method, headers: headers(body !== undefined), body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = null; }
  if (!r.ok) say(`${r.status}: ${(json && (json.detail || json.title)) || text}`, true);
  return { status: r.status, body: json };
}

/** A GET whose answer is a file: `{status, blob}`. */
export async function fetchFile(path) {
  const r = await fetch(path, { headers: headers(false) });
  if (!r.ok) { say(`${r.status}: ${r.statusText}`, true); return { status: r.status, blob: null }; }
  return { status: r.status, blob: await r.blob() };
}

// What the key may do, as the API decides it (the server checks again).
export const readOnly = () => session.me && session.me.role === "read-only";
export const bound = () => session.me && session.me.user_id;
/** The GDPR endpoints of the tenant: every state, export, erasure, purge. */
export const canGdpr = () => session.me && !bound() && session.me.role !== "read-only";
/** Deployment-wide: keys, the audit log, consolidation. */
export const isAdmin = () => session.me && !bound() && session.me.role === "admin";

/** Replaces `node`'s children; arrays are flattened, absent parts skipped
 * (replaceChildren itself would print them as "null"). */
export function put(node, ...children) {
  node.replaceChildren(...children.flat(2).filter((c) => c !== null && c !== undefined && c !== false));
}

/** Replaces the page's main part; focus goes to its heading. */
export function show(...nodes) {
  put($("main"), ...nodes);
  const h = $("main").querySelector("h2");
  if (h) { h.setAttribute("tabindex", "-1"); h.focus(); }
}

/** A table; each row is [cells], a cell a node or text, labelled for the narrow layout. */
export function table(id, heads, rows) {
  return el("table", { id },
    el("thead", {}, el("tr", {}, ...heads.map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, ...rows.map((cells) => row(heads, cells))));
}

export function row(heads, cells, attrs = {}) {
  return el("tr", attrs, ...cells.map((c, i) => el("td", { "data-label": heads[i] }, c)));
}

/** Counts per table (a receipt, a dry run, an overview) as a definition list. */
export function countList(id, counts) {
  const entries = Object.entries(counts || {});
  return el("dl", { id, class: "counts" },
    ...entries.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, String(v))]));
}

export const when = (t) => (t ? t.replace("T", " ").replace(/\.\d+/, "").replace("Z", " UTC") : "—");

/** A date-time input's value as RFC 3339 UTC, or null when empty. */
export function isoOf(input) {
  if (!input.value) return null;
  const t = new Date(input.value);
  return Number.isNaN(t.getTime()) ? null : t.toISOString();
}

/** A labelled input; `attrs` go to the input. */
export function field(label, attrs = {}) {
  const input = el("input", { autocomplete: "off", ...attrs });
  return [input, el("label", {}, label, input)];
}

export function select(label, id, options) {
  const s = el("select", { id }, ...options.map(([v, t]) => el("option", { value: v }, t)));
  return [s, el("label", {}, label, s)];
}

/** A button that asks first when `question` is given. */
export function action(text, attrs, question, run) {
  return el("button", { type: "button", ...attrs, onclick: async () => {
    if (question && !window.confirm(question)) return;
    await run();
  } }, text);
}
