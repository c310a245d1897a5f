#!/usr/bin/env python3
"""Extraction quality: one system over the scenario set, scored the same way
for every system (issue 33). `scripts/bench-extraction.sh` runs it for
Engram (LLM or rules) and Mem0 and then `report.py`; see docs/BENCHMARKS.md.

  run.py engram --url URL --key KEY --label L --out F.json
  run.py mem0 --llm-url URL --model M --embed-url URL --dir D --label L --out F.json

Each case gets a user of its own: its earlier messages (`prior`) are added
in order, each waited for, then its message; then the user's live memories
are read and scored against the case's expectations. Only memory texts are
compared (substring, case-insensitive, number words as digits), so both
systems are judged by what they store and show, not by their internals.
"""

import argparse
import json
import os
import re
import sys
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIOS = os.path.join(HERE, "..", "data", "extraction-scenarios.json")
NUMBERS = {
    "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
    "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10",
}


def normal(text):
    text = text.lower()
    return re.sub(r"\b(" + "|".join(NUMBERS) + r")\b", lambda m: NUMBERS[m.group(1)], text)


# ---- systems -----------------------------------------------------------------


class Engram:
    """A running `engram serve` over HTTP; a job is waited for by polling."""

    def __init__(self, url, key):
        self.url, self.key = url.rstrip("/"), key
        self.events = []  # the last job's decisions, with their reasons

    def _call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Authorization", f"Bearer {self.key}")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            r = urllib.request.urlopen(req, timeout=600)
        except urllib.error.HTTPError as e:
            raise SystemExit(f"{method} {path}: {e.code} {e.read().decode()[:300]}") from None
        with r:
            raw = r.read()
            return json.loads(raw) if r.headers.get_content_type().endswith("json") else raw.decode()

    def add(self, user, text):
        """Adds one user message; returns (job status, error or None)."""
        r = self._call("POST", "/v1/memories",
                       {"user_id": user, "messages": [{"role": "user", "content": text}]})
        job = r["job_id"]
        while True:
            j = self._call("GET", f"/v1/jobs/{job}")
            if j["status"] in ("done", "failed"):
                self.events = [f"{r.get('event')}: {r.get('reason') or ''}"
                               for r in j.get("results") or []]
                return j["status"], j.get("error")
            time.sleep(0.1)

    def memories(self, user):
        r = self._call("GET", f"/v1/memories?user_id={user}&limit=100")
        out = []
        for m in r["results"]:
            text = m["memory"]
            # Who the fact is about is part of what Engram stores and shows.
            if m.get("subject") and m["subject"] not in ("user", "self"):
                text = f"[{m['subject']}] {text}"
            out.append({"id": m["id"], "text": text})
        return out

    def counters(self):
        metrics = self._call("GET", "/metrics")
        total = {}
        for line in metrics.splitlines():
            for name in ("engram_llm_answers_total", "engram_llm_invalid_answers_total"):
                if line.startswith(name):
                    total[name] = total.get(name, 0) + float(line.rsplit(" ", 1)[1])
        return {"answers": total.get("engram_llm_answers_total", 0),
                "invalid": total.get("engram_llm_invalid_answers_total", 0)}


class Mem0:
    """mem0ai's `Memory` (the library, `infer=True`) on the given LLM and
    embedder. Its model answers are watched to count the unusable ones: an
    answer Mem0 cannot parse to its `memory` list is dropped by it."""

    def __init__(self, llm_url, model, embed_url, directory):
        os.environ["MEM0_TELEMETRY"] = "False"
        os.environ.setdefault("OPENAI_API_KEY", "unused")
        from mem0 import Memory
        from mem0.memory.utils import extract_json, remove_code_blocks

        self.memory = Memory.from_config({
            "llm": {"provider": "openai", "config": {
                "model": model, "openai_base_url": llm_url, "api_key": "unused",
                # Engram asks for temperature 0; so does Mem0 here.
                "temperature": 0.0}},
            "embedder": {"provider": "openai", "config": {
                "model": "all-MiniLM-L6-v2", "openai_base_url": embed_url,
                "api_key": "unused", "embedding_dims": 384}},
            "vector_store": {"provider": "qdrant", "config": {
                "collection_name": "bench", "path": os.path.join(directory, "qdrant"),
                "embedding_model_dims": 384, "on_disk": True}},
            "history_db_path": os.path.join(directory, "history.db"),
        })
        self.answers = self.invalid = 0
        llm = self.memory.llm
        inner = llm.generate_response

        def watched(*args, **kwargs):
            answer = inner(*args, **kwargs)
            self.answers += 1
            try:
                text = remove_code_blocks(answer or "")
                try:
                    parsed = json.loads(text, strict=False)
                except json.JSONDecodeError:
                    parsed = json.loads(extract_json(text), strict=False)
                if not isinstance(parsed, dict) or not isinstance(parsed.get("memory", []), list):
                    raise ValueError("off schema")
            except Exception:
                self.invalid += 1
            return answer

        llm.generate_response = watched

    def add(self, user, text):
        try:
            self.memory.add([{"role": "user", "content": text}], user_id=user, infer=True)
            return "done", None
        except Exception as e:  # Mem0 raises when the LLM call itself fails
            return "failed", type(e).__name__

    def memories(self, user):
        r = self.memory.get_all(filters={"user_id": user}, top_k=100)
        return [{"id": m["id"], "text": m["memory"]} for m in r["results"]]

    def counters(self):
        return {"answers": self.answers, "invalid": self.invalid}


# ---- scoring -----------------------------------------------------------------

STALE_CLASSES = {"update", "correction", "retraction", "forget"}


def holds(memory, value, others=()):
    """Whether a memory text holds `value`; with `user:`, only when it is
    about the user (names none of the case's other people)."""
    text = normal(memory["text"])
    if value.startswith("user:"):
        value = value[5:]
        if any(o.lower() in text for o in others):
            return False
    return normal(value) in text


def score(case, before, after):
    """What one case's final state shows; `before` are the memories live
    after its earlier messages."""
    others = case.get("others", [])
    old = {m["id"] for m in before}
    new = [m for m in after if m["id"] not in old]
    found = [e["value"] for e in case["expect"] if any(holds(m, e["value"]) for m in after)]
    forbidden = [f for f in case["forbid"] if any(holds(m, f, others) for m in after)]
    wrong = [m for m in new if any(holds(m, f, others) for f in case["forbid"])]
    right = [m for m in new if m not in wrong
             and any(holds(m, e["value"]) for e in case["expect"])]
    secret = case.get("secret")
    leaked = False
    if secret:
        # A long number counts however it is spaced (a card, an IBAN).
        digits = re.sub(r"\D", "", secret)
        for m in after:
            t = m["text"]
            if secret.lower() in t.lower() or (len(digits) >= 8 and digits in re.sub(r"\D", "", t)):
                leaked = True
    stale = case["cls"] in STALE_CLASSES
    return {
        "expected": len(case["expect"]), "found": len(found),
        "stored": len(new), "right": len(right),
        "false": 0 if stale else len(forbidden),
        "stale": len(forbidden) if stale else 0,
        "secret": int(leaked),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("system", choices=["engram", "mem0"])
    ap.add_argument("--label", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--url"), ap.add_argument("--key")
    ap.add_argument("--llm-url"), ap.add_argument("--model"), ap.add_argument("--embed-url")
    ap.add_argument("--dir")
    ap.add_argument("--only", help="comma-separated case ids (a quick look)")
    ap.add_argument("--half", help="halves to run, comma-separated: dev, report, report2, report3, report4")
    args = ap.parse_args()

    cases = json.load(open(SCENARIOS))["cases"]
    if args.only:
        cases = [c for c in cases if c["id"] in args.only.split(",")]
    if args.half:
        cases = [c for c in cases if c["half"] in args.half.split(",")]
    if args.system == "engram":
        system = Engram(args.url, args.key or os.environ.get("ENGRAM_API_KEY", ""))
    else:
        system = Mem0(args.llm_url, args.model, args.embed_url, args.dir)

    run = f"{int(time.time())}"
    # One message first, unscored: the server evaluates the system's fixed
    # prompt once and keeps it, which is not a cost of any one case.
    system.add(f"warm-up-{run}", "I like tea.")
    results = []
    for case in cases:
        counters = system.counters()
        user = f"case-{len(results)}-{run}"
        failed = 0
        for text in case["prior"]:
            status, _ = system.add(user, text)
            failed += status == "failed"
        before = system.memories(user)
        started = time.monotonic()
        status, error = system.add(user, case["message"])
        seconds = time.monotonic() - started
        failed += status == "failed"
        after = system.memories(user)
        s = score(case, before, after)
        end = system.counters()
        s["answers"] = end["answers"] - counters["answers"]
        s["invalid"] = end["invalid"] - counters["invalid"]
        s.update({"id": case["id"], "cls": case["cls"], "half": case["half"],
                  "seconds": round(seconds, 3), "failed": failed, "error": error,
                  "memories": [m["text"] for m in after],
                  "events": getattr(system, "events", [])})
        results.append(s)
        # Only the development half is shown as it runs: the report half's
        # misses must not steer the tuning (report.py prints them after).
        if case["half"] != "dev":
            print(f"{case['id']:<16} (report half)", file=sys.stderr)
            continue
        print(f"{case['id']:<16} found {s['found']}/{s['expected']} stored {s['stored']} "
              f"right {s['right']} false {s['false']} stale {s['stale']} secret {s['secret']} "
              f"{seconds:6.1f}s {'FAILED ' + str(error) if failed else ''}", file=sys.stderr)
    json.dump({
        "label": args.label, "system": args.system, "model": args.model,
        "cases": results,
    }, open(args.out, "w"), indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
