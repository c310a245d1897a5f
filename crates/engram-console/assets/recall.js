// "Why did it say that?": the search and the context block an app would
// get for this user and query, side by side: each hit's score broken into
// its parts, and whether its text made it into the block, and if not why.

import { api, el, field, put, row, say, select, show } from "./core.js";

const SCORE_PARTS = ["relevance", "dense", "lexical", "time", "neighbours", "session", "names", "recency", "importance"];
// A stored text as the block writes it (engram-context's `escape`): one
// line, with look-alikes for < and > so nothing stored can close the block.
const flat = (s) => s.replace(/\s+/g, " ").trim().replaceAll("<", "\u2039").replaceAll(">", "\u203a");
const num = (v) => (v === null || v === undefined ? "—" : Number(v).toFixed(3));

/** Where a hit's text is in the block: the section that holds it, or null. */
function placeOf(hit, parts) {
  const text = flat(hit.memory);
  for (const p of parts) if (p.lines.some((l) => l.includes(text))) return p.section;
  return null;
}

/** Why a hit is not in the block, from what the block reports of itself. */
function whyNot(rank, topK, parts, tokens, budget) {
  const mem = parts.find((p) => p.section === "memories");
  if (rank > topK) return `ranked ${rank}, below the block's top ${topK}`;
  if (mem && mem.included < mem.offered) return `budget: ${mem.included} of ${mem.offered} memory lines fit (${tokens} of ${budget} tokens used)`;
  if (!mem) return "the block has no memories section (nothing of it fit)";
  return "not offered: already stated by the profile, a duplicate, or held out by the instruction screen (it reads as an order to the assistant, or is in a language the screen cannot read)";
}

export function recallView(user, back) {
  const [query, queryLabel] = field("Query", { id: "recall-query", required: true, size: 40 });
  const [budget, budgetLabel] = field("Token budget", { id: "recall-budget", type: "number", min: 1, value: "500" });
  const [topK, topKLabel] = field("Top k", { id: "recall-top-k", type: "number", min: 1, max: 100, value: "10" });
  const [mode, modeLabel] = select("Search mode", "recall-mode", [["hybrid", "hybrid"], ["dense", "dense"], ["lexical", "lexical"]]);
  const out = el("div", { id: "recall-out" });
  const run = async (e) => {
    e.preventDefault();
    const k = Number(topK.value) || 10;
    const [s, c] = await Promise.all([
      api("POST", "/v1/memories/search", { query: query.value, user_id: user, top_k: k, mode: mode.value }),
      api("POST", "/v1/context", { query: query.value, user_id: user, token_budget: Number(budget.value), top_k: k }),
    ]);
    if (s.status !== 200 || c.status !== 200) return;
    say("");
    const heads = ["#", "Memory", "Score", ...SCORE_PARTS, "In the block"];
    const hits = s.body.results.map((h, i) => {
      const at = placeOf(h, c.body.parts);
      return row(heads, [String(i + 1), el("span", { class: "memory-text" }, h.memory), num(h.score),
        ...SCORE_PARTS.map((p) => num(h.scores[p])),
        el("span", { class: at ? "in-block" : "left-out" },
          at ? `yes (${at})` : `no: ${whyNot(i + 1, k, c.body.parts, c.body.tokens_used, c.body.token_budget)}`)]);
    });
    const when = s.body.query_time ? `The query names a period: "${s.body.query_time.phrase}", ${s.body.query_time.from} to ${s.body.query_time.to}.` : null;
    put(out,
      el("h3", {}, `Search: ${s.body.results.length} hits`),
      when ? el("p", {}, when) : null,
      el("p", {}, "score = the blend of relevance (from dense and lexical, then in hybrid the evidence around the match: the best match among the memories stored just before and after it, the best in its session, the query's names it mentions), recency and importance; time is how well the memory's date matches a period the query names."),
      el("table", { id: "recall-hits" }, el("thead", {}, el("tr", {}, ...heads.map((h) => el("th", { scope: "col" }, h)))), el("tbody", {}, ...hits)),
      el("h3", {}, `Context block: ${c.body.tokens_used} of ${c.body.token_budget} tokens (${c.body.tokenizer})`),
      el("ul", { id: "recall-parts" }, ...c.body.parts.map((p) => el("li", {}, `${p.section}: ${p.included} of ${p.offered} lines included`))),
      el("pre", { id: "recall-block", class: "memory-text" }, c.body.text || "(empty: not even the frame fits the budget)"));
  };
  show(el("h2", {}, `Why did it say that? (as ${user})`),
    el("p", {}, "Runs the search and builds the context block exactly as an app calling the API for this user would get them. ",
      "Reads with a key that is not read-only count as uses of the memories they return."),
    el("form", { id: "recall", class: "bar", onsubmit: run }, queryLabel, budgetLabel, topKLabel, modeLabel,
      el("button", { type: "submit" }, "Run")),
    out,
    el("button", { type: "button", onclick: back }, `Back to ${user}`));
}
