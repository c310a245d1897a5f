// A memory's timeline (every history event with its reason, job, source
// message, extractor, model and prompt), its supersession chain both ways,
// and the actions on it, each asking first when it removes something.

import { action, api, canGdpr, el, isoOf, readOnly, say, show, when } from "./core.js";

/** The memory's state from its fields (as the server computes it). */
function stateOf(m) {
  if (m.state) return m.state;
  if (m.deleted_at) return "deleted";
  if (m.superseded_by) return "superseded";
  if (m.archived_at) return "archived";
  if (m.expires_at && Date.parse(m.expires_at) <= Date.now()) return "expired";
  return "live";
}

function eventItem(h) {
  const has = (v) => v !== null && v !== undefined;
  const made = [h.extractor, h.model, h.prompt_version ? `prompt ${h.prompt_version}` : null].filter(Boolean).join(", ");
  return el("li", { class: "event" },
    el("strong", {}, h.event), ` ${when(h.created_at)} by ${h.actor}`,
    h.reason ? el("div", {}, `Reason: ${h.reason}`) : null,
    has(h.old_content) ? el("div", { class: "memory-text" }, `Before: ${h.old_content}`) : null,
    has(h.new_content) ? el("div", { class: "memory-text" }, `After: ${h.new_content}`) : null,
    has(h.source_message) ? el("div", { class: "memory-text said" }, `Said: ${h.source_message}`) : null,
    h.job_id ? el("div", {}, `Job ${h.job_id}${made ? ` (${made})` : ""}`) : null);
}

export async function timelineView(user, m, loaded, back) {
  let history = m.history;
  if (!history) {
    const r = await api("GET", `/v1/memories/${m.id}/history`);
    if (r.status !== 200) return;
    history = r.body.results;
  }
  const state = stateOf(m);
  const open = (other) => other && timelineView(user, other, loaded, back);
  const byId = (id) => (loaded || []).find((x) => x.id === id);
  const replaces = (loaded || []).filter((x) => x.superseded_by === m.id);
  const link = (id) => (byId(id) ? el("button", { type: "button", class: "chain", onclick: () => open(byId(id)) }, id) : id);
  const facts = [
    ["State", el("span", { id: "timeline-state" }, state)], ["Kind", m.kind],
    ["Fact", m.attribute ? `${m.subject || "user"} · ${m.attribute} = ${m.value}` : "—"],
    ["Pinned", m.pinned ? "yes" : "no"], ["Expires", when(m.expires_at) === "—" ? "never" : when(m.expires_at)],
    ["Used", `${m.access_count} times, last ${when(m.last_used_at)}`],
    ["Importance", String(m.importance)], ["Source", `${m.source.type}${m.source.ref ? ` (${m.source.ref})` : ""}`],
    ["Replaced by", m.superseded_by ? link(m.superseded_by) : "—"],
    ["Replaces", replaces.length ? replaces.map((x) => link(x.id)) : "—"],
    ["Metadata", el("code", {}, JSON.stringify(m.metadata))],
  ];
  show(el("h2", {}, "Timeline"),
    el("p", { class: "memory-text", id: "timeline-memory" }, m.memory),
    el("dl", {}, ...facts.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)])),
    actions(user, m, state, back),
    el("h3", {}, "History"),
    el("ol", { class: "timeline", id: "timeline" }, ...history.map(eventItem)),
    el("button", { type: "button", onclick: back }, `Back to ${user}`));
}

/** What the key may do to this memory; every change is the API's own call. */
function actions(user, m, state, back) {
  if (readOnly()) return el("p", {}, "This key is read-only: nothing here can change.");
  const inView = state !== "deleted";
  const after = async (r, what) => { if (r.status < 300) { await back(); say(what); } };
  const patch = (body, what) => async () => after(await api("PATCH", `/v1/memories/${m.id}`, body), what);
  const text = el("textarea", { id: "edit-text", rows: 2, cols: 60 });
  text.value = m.memory;
  const expires = el("input", { id: "expires-at", type: "datetime-local" });
  const box = el("section", { id: "memory-actions", "aria-label": "Actions" },
    el("div", { class: "bar" },
      action("Revert latest change", { id: "revert" }, "Undo the latest change to this memory?",
        async () => after(await api("POST", `/v1/memories/${m.id}/revert`), "Reverted.")),
      inView ? action(m.pinned ? "Unpin" : "Pin", { id: "pin-one" }, null, patch({ pinned: !m.pinned }, m.pinned ? "Unpinned." : "Pinned.")) : null,
      inView ? action("Forget", { id: "forget" }, `Forget this memory? It leaves every search at once; Revert brings it back until it is purged.\n\n${m.memory}`,
        async () => after(await api("DELETE", `/v1/memories/${m.id}`), "Forgotten.")) : null,
      canGdpr() ? action("Delete permanently", { id: "purge", class: "danger" },
        `Delete this memory and its history for good? This cannot be undone.\n\n${m.memory}`,
        async () => after(await api("DELETE", `/v1/admin/users/${encodeURIComponent(user)}/memories/${m.id}`), "Deleted permanently.")) : null));
  if (inView) {
    box.append(
      el("form", { class: "bar", id: "edit", onsubmit: async (e) => { e.preventDefault(); await patch({ memory: text.value }, "Saved.")(); } },
        el("label", {}, "Text", text), el("button", { type: "submit" }, "Save text")),
      el("form", { class: "bar", id: "ttl", onsubmit: async (e) => {
        e.preventDefault();
        const at = isoOf(expires);
        if (!at) { say("Pick when it expires, or choose Never expire.", true); return; }
        await patch({ expires_at: at }, "Expiry set.")();
      } },
      el("label", {}, "Expires at", expires), el("button", { type: "submit" }, "Set expiry"),
      action("Never expire", { id: "no-expiry" }, null, patch({ expires_at: null }, "Expiry cleared."))));
  }
  return box;
}
