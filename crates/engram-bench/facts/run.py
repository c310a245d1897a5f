#!/usr/bin/env python3
"""Fact precision and recall on real user turns (issue 50): each turn of
the fact set (`sample.py`, labelled in `labels.jsonl`) is added for a user
of its own through `POST /v1/memories` with the defaults (inference on),
its job waited for, and the user's facts read back (episodic memories, the
turn kept as it was said, are not facts and are not scored).

A stored fact is right when it holds one of the `match` strings of a fact
labelled for its turn (either tier); precision = right / stored. Recall
counts the `core` facts (a plain statement a careful reader would want
remembered) found by some stored fact; `weak` facts (a project behind a
request, a passing detail) may be stored without cost but are not required.

  run.py --url URL --key KEY --part dev[,report] --label L --out F.json [--data DIR]
  run.py --report F.json [F.json ...]     # the table, and every stored fact
  FACTS_BEARING=1 run.py --report …       # the table on the fact-bearing turns only

`--bearing` runs only the turns that hold a labelled fact (53 of the 200 in
the development and report parts): the local models take ~10-60 s a turn on
two cores. Precision there still counts what a model makes up around a real
fact, not what it makes up from a turn with none.
"""

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import sample  # noqa: E402


def call(url, key, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url + path, data=data, method=method)
    req.add_header("Authorization", f"Bearer {key}")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=900) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:
        return {"http_error": e.code, "body": e.read().decode()[:300]}


def facts_of(url, key, user, turn):
    """Adds the turn, waits for its job, returns (status, stored facts, reasons)."""
    r = call(url, key, "POST", "/v1/memories",
             {"user_id": user, "messages": [{"role": "user", "content": turn}]})
    if "http_error" in r:
        return f"refused {r['http_error']}", [], [r["body"]]
    job = r["job_id"]
    while True:
        j = call(url, key, "GET", f"/v1/jobs/{job}")
        if j.get("status") in ("done", "failed"):
            break
        time.sleep(0.05)
    reasons = [f"{x.get('event')}: {x.get('reason')}" for x in j.get("results") or []]
    listed = call(url, key, "GET", f"/v1/memories?user_id={user}&limit=100")
    facts = []
    for m in listed.get("results", []):
        if m.get("kind") == "episodic":
            continue
        text = m["memory"]
        if m.get("subject") and m["subject"] not in ("user", "self"):
            text = f"[{m['subject']}] {text}"
        facts.append(text)
    return j["status"], facts, reasons


def holds(fact, label):
    text = fact.lower()
    return any(s in text for s in label["match"])


def score(labels, facts):
    right = [f for f in facts if any(holds(f, l) for l in labels)]
    core = [l for l in labels if l["tier"] == "core"]
    found = [l for l in core if any(holds(f, l) for f in facts)]
    return {"stored": len(facts), "right": len(right), "core": len(core), "found": len(found)}


def run(args):
    labels = {json.loads(l)["id"]: json.loads(l) for l in open(os.path.join(HERE, "labels.jsonl"))}
    turns = {t["id"]: t for t in list(sample.sharegpt_turns(args.data)) + list(sample.realtalk_turns(args.data))}
    parts = args.part.split(",")
    out = []
    start = time.time()
    for n, (tid, lab) in enumerate(labels.items()):
        if lab["part"] not in parts or (args.bearing and not lab["facts"]):
            continue
        text = turns[tid]["text"]
        t0 = time.time()
        status, facts, reasons = facts_of(args.url, args.key, f"facts-{args.label}-{n}", text)
        out.append({"id": tid, "part": lab["part"], "status": status, "facts": facts,
                    "reasons": reasons, "seconds": round(time.time() - t0, 2),
                    **score(lab["facts"], facts)})
    json.dump({"label": args.label, "seconds": round(time.time() - start, 1), "turns": out},
              open(args.out, "w"), indent=1)


def report(paths):
    labels = {json.loads(l)["id"]: json.loads(l) for l in open(os.path.join(HERE, "labels.jsonl"))}
    print("| system | part | turns | stored | right | precision | core facts | found | recall | failed | s/turn |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for p in paths:
        r = json.load(open(p))
        for part in ("dev", "report", "blind"):
            rows = [t for t in r["turns"] if t["part"] == part
                    and (not os.environ.get("FACTS_BEARING") or labels[t["id"]]["facts"])]
            if not rows:
                continue
            s = {k: sum(t[k] for t in rows) for k in ("stored", "right", "core", "found")}
            failed = sum(1 for t in rows if t["status"] != "done")
            prec = s["right"] / s["stored"] if s["stored"] else float("nan")
            rec = s["found"] / s["core"] if s["core"] else float("nan")
            secs = sum(t["seconds"] for t in rows) / len(rows)
            print(f"| {r['label']} | {part} | {len(rows)} | {s['stored']} | {s['right']} | {prec:.2f} | "
                  f"{s['core']} | {s['found']} | {rec:.2f} | {failed} | {secs:.1f} |")
    if os.environ.get("FACTS_SHOW"):
        for p in paths:
            for t in json.load(open(p))["turns"]:
                if os.environ["FACTS_SHOW"] not in ("all", t["part"]):
                    continue
                lab = labels[t["id"]]["facts"]
                for f in t["facts"]:
                    mark = "+" if any(holds(f, l) for l in lab) else "-"
                    print(f"{mark} {t['id']}: {f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url")
    ap.add_argument("--key")
    ap.add_argument("--part", default="dev")
    ap.add_argument("--label", default="engram")
    ap.add_argument("--out")
    ap.add_argument("--data", default=os.path.join(HERE, "..", "..", "..", "..", "shared", "data"))
    ap.add_argument("--report", nargs="*")
    ap.add_argument("--bearing", action="store_true",
                    help="only the turns that hold a labelled fact (the models are slow on two cores)")
    args = ap.parse_args()
    if args.report:
        report(args.report)
    else:
        run(args)


if __name__ == "__main__":
    main()
