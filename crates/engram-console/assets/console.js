// Engram's console: every view and action is an Engram API call made with
// the key the user signed in with, so the console can do exactly what that
// key can. This module signs in and out and holds the navigation; each view
// lives in a module of its own.

import { $, api, bound, el, isAdmin, say, session, show } from "./core.js";
import { peopleView, personView } from "./people.js";
import { auditView, consolidationView, jobsView } from "./operations.js";

const STORE = "engram-console"; // sessionStorage, only when asked: this tab, until it closes

function signInView() {
  $("who").textContent = "";
  $("signout").hidden = true;
  $("nav").replaceChildren();
  const key = el("input", { id: "key", type: "password", autocomplete: "off", required: true });
  const tenant = el("input", { id: "tenant", autocomplete: "off", placeholder: "admin keys only" });
  const stay = el("input", { id: "stay", type: "checkbox" });
  const form = el("form", { id: "signin", onsubmit: async (e) => {
    e.preventDefault();
    await signIn(key.value.trim(), tenant.value.trim() || null, stay.checked);
  } },
  el("label", {}, "API key", key),
  el("label", {}, "Tenant (id or name)", tenant),
  el("label", {}, el("span", {}, stay, " Stay signed in (this tab only, until it closes)")),
  el("button", { type: "submit" }, "Sign in"));
  show(el("h2", {}, "Sign in"), form,
    el("p", {}, "The key stays in this page's memory and is sent only to this server, in a header; it is never put in a URL. ",
      "An admin key acts in the default tenant unless you name one here or pick one after signing in."));
}

async function signIn(key, tenant, stay) {
  session.key = key;
  session.tenant = tenant;
  const r = await api("GET", "/v1/me");
  if (r.status !== 200) { session.key = null; session.tenant = null; return; }
  session.me = r.body;
  if (stay) sessionStorage.setItem(STORE, JSON.stringify({ key, tenant }));
  say("");
  describeKey();
  $("signout").hidden = false;
  await navigation();
  if (bound()) personView(r.body.user_id); else peopleView();
}

function describeKey() {
  const me = session.me;
  $("who").textContent = `${me.role} key, tenant ${session.tenant || me.tenant_id}` +
    (me.user_id ? `, bound to ${me.user_id}` : "") + (me.role === "read-only" ? " (read-only)" : "");
}

/** The views this key may open; an admin also picks the tenant to act in. */
async function navigation() {
  const items = [];
  if (!bound()) items.push(el("button", { type: "button", id: "nav-people", onclick: () => peopleView() }, "People"));
  else items.push(el("button", { type: "button", id: "nav-people", onclick: () => personView(bound()) }, "My memories"));
  items.push(el("button", { type: "button", id: "nav-jobs", onclick: () => jobsView({}) }, "Jobs"));
  if (isAdmin()) {
    items.push(el("button", { type: "button", id: "nav-audit", onclick: () => auditView({}) }, "Audit log"));
    items.push(el("button", { type: "button", id: "nav-consolidation", onclick: consolidationView }, "Consolidation"));
    items.push(await tenantPicker());
  }
  $("nav").replaceChildren(...items);
}

/** Tenants an admin can act in: the default one and every tenant that has keys. */
async function tenantPicker() {
  const picker = el("select", { id: "tenant-pick" }, el("option", { value: "" }, "default tenant"));
  const r = await api("GET", "/v1/admin/keys");
  const seen = new Set();
  for (const k of (r.status === 200 ? r.body.results : [])) {
    const name = k.tenant || k.tenant_id;
    if (!name || seen.has(name) || name === "default") continue;
    seen.add(name);
    picker.append(el("option", { value: name }, name));
  }
  if (session.tenant) {
    if (!seen.has(session.tenant)) picker.append(el("option", { value: session.tenant }, session.tenant));
    picker.value = session.tenant;
  }
  picker.addEventListener("change", () => {
    session.tenant = picker.value || null;
    const kept = sessionStorage.getItem(STORE);
    if (kept) sessionStorage.setItem(STORE, JSON.stringify({ key: session.key, tenant: session.tenant }));
    describeKey();
    say("");
    peopleView();
  });
  return el("label", { class: "inline" }, "Tenant ", picker);
}

function signOut() {
  session.key = session.tenant = session.me = null;
  sessionStorage.removeItem(STORE);
  say("");
  signInView();
}

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
