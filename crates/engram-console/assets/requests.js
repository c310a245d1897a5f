// Requests from people: a subject-access export (downloaded as the JSON
// document), an erasure shown first as a dry run (what will go, per table)
// and then its receipt, a purge of one source the same way, and what the
// audit log holds about the person.

import { action, api, countList, el, fetchFile, field, isAdmin, say, show } from "./core.js";
import { auditTable } from "./operations.js";

function receiptBox(id, r) {
  return el("div", { id, class: "receipt" },
    el("p", {}, r.dry_run ? "Dry run: nothing was changed. This is what would go:" : `Done at ${r.completed_at}, request ${r.request_id || "—"}. Keep this receipt.`),
    countList(`${id}-counts`, r.counts));
}

export async function requestsView(user, back) {
  const u = encodeURIComponent(user);
  const exported = el("p", { id: "export-result" });
  const doExport = async () => {
    const r = await fetchFile(`/v1/admin/users/${u}/export`);
    if (!r.blob) return;
    const doc = JSON.parse(await r.blob.text());
    const url = URL.createObjectURL(r.blob);
    const a = el("a", { href: url, download: `engram-export-${user}.json`, id: "export-link" }, "Download again");
    a.click();
    exported.replaceChildren(`Exported ${doc.memories.length} memories, ${doc.jobs.length} jobs, ${doc.sessions.length} sessions, ${doc.audit.length} audit entries (${r.blob.size} bytes). `, a);
  };

  const erasure = el("div", { id: "erasure" });
  const erase = el("button", { type: "button", id: "erase", class: "danger", disabled: true }, `Erase ${user}`);
  const planErasure = async () => {
    const r = await api("DELETE", `/v1/admin/users/${u}?dry_run=true`);
    if (r.status !== 200) return;
    erasure.replaceChildren(receiptBox("erase-plan", r.body));
    erase.disabled = false;
  };
  erase.addEventListener("click", async () => {
    if (!window.confirm(`Erase everything held about ${user}? Memories, history, jobs, sessions and keys bound to them go for good.`)) return;
    const r = await api("DELETE", `/v1/admin/users/${u}`);
    if (r.status !== 200) return;
    erase.disabled = true;
    erasure.replaceChildren(receiptBox("erase-receipt", r.body));
    say(`${user} erased.`);
  });

  const [source, sourceLabel] = field("Source ref", { id: "purge-source" });
  const purged = el("div", { id: "purge" });
  const purgeRun = async (dry) => {
    const ref = source.value.trim();
    if (!ref) { say("Name the source (its source.ref).", true); return; }
    if (!dry && !window.confirm(`Purge everything derived from ${ref}?`)) return;
    const r = await api("DELETE", `/v1/admin/sources/${encodeURIComponent(ref)}${dry ? "?dry_run=true" : ""}`);
    if (r.status === 200) purged.replaceChildren(receiptBox(dry ? "purge-plan" : "purge-receipt", r.body));
  };

  const audit = el("div", { id: "person-audit" });
  if (isAdmin()) {
    const r = await api("GET", `/v1/admin/audit?user_id=${u}&limit=50`);
    if (r.status === 200) audit.append(auditTable(r.body.results));
  }
  show(el("h2", {}, `Export and erasure: ${user}`),
    el("h3", {}, "Export (subject access)"),
    el("p", {}, "Everything held about the person, in every state, with history, jobs, sessions and audit entries (docs/GDPR.md)."),
    el("button", { type: "button", id: "export", onclick: doExport }, "Download export"), exported,
    el("h3", {}, "Erasure"),
    el("p", {}, "First a dry run: the same statements, rolled back, so the counts are exactly what would go."),
    el("div", { class: "bar" }, el("button", { type: "button", id: "erase-dry-run", onclick: planErasure }, "Dry run"), erase),
    erasure,
    el("h3", {}, "Purge one source"),
    el("p", {}, "For a poisoned document or a deleted conversation: its memories and jobs go, what it replaced comes back."),
    el("div", { class: "bar" }, sourceLabel,
      el("button", { type: "button", id: "purge-dry-run", onclick: () => purgeRun(true) }, "Dry run"),
      action("Purge", { id: "purge-run", class: "danger" }, null, () => purgeRun(false))),
    purged,
    isAdmin() ? [el("h3", {}, "Audit entries about the person"), audit] : null,
    el("button", { type: "button", onclick: back }, `Back to ${user}`));
}
