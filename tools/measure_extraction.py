#!/usr/bin/env python3
"""Measures `infer: true` against a running Engram: the add's answer time (202)
and each job's completion time (finished_at - created_at, from the job itself).

    python3 tools/measure_extraction.py --url http://127.0.0.1:8420 --key "$(cat .data/api-key)" -n 200

Uses only the standard library. Writes to a throwaway user and deletes it after.
"""
import argparse
import json
import statistics
import time
import urllib.request
import uuid
from datetime import datetime

STATEMENTS = [
    "I live in {city}.", "I moved to {city} last month.", "I work at {org}.", "I'm a software engineer.",
    "I love hiking and I have a dog named {name}.", "My sister is called {name}.", "I'm vegetarian.",
    "I'm learning Japanese.", "I use Neovim for coding.", "I'm travelling to {city} next week.",
]
CITIES = ["Austin", "Dallas", "Lisbon", "Oslo", "Kyoto", "Porto", "Leeds", "Bergen"]
ORGS = ["Acme", "Initech", "Globex", "Umbrella"]
NAMES = ["Rex", "Ana", "Miso", "Leo", "Tom"]


def call(url, key, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url + path, data=data, method=method,
                                 headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        raw = r.read()
        return r.status, (json.loads(raw) if raw else None)


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def ts(s):
    return datetime.fromisoformat(s.replace("Z", "+00:00"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", default="http://127.0.0.1:8420")
    ap.add_argument("--key", required=True)
    ap.add_argument("-n", type=int, default=200)
    a = ap.parse_args()
    user = f"measure-{uuid.uuid4().hex[:8]}"
    add_ms, jobs = [], []
    for i in range(a.n):
        text = STATEMENTS[i % len(STATEMENTS)].format(city=CITIES[i % len(CITIES)], org=ORGS[i % len(ORGS)], name=NAMES[i % len(NAMES)])
        t = time.perf_counter()
        status, body = call(a.url, a.key, "POST", "/v1/memories", {"user_id": user, "messages": [{"role": "user", "content": text}]})
        add_ms.append((time.perf_counter() - t) * 1000)
        assert status == 202, (status, body)
        jobs.append(body["job_id"])
    done_ms, events = [], {}
    deadline = time.time() + 300
    for job in jobs:
        while True:
            _, j = call(a.url, a.key, "GET", f"/v1/jobs/{job}")
            if j["status"] in ("done", "failed"):
                break
            if time.time() > deadline:
                raise SystemExit(f"job {job} not finished")
            time.sleep(0.05)
        done_ms.append((ts(j["finished_at"]) - ts(j["created_at"])).total_seconds() * 1000)
        for r in j["results"]:
            events[r["event"]] = events.get(r["event"], 0) + 1
    # One at a time with wait: true — a job's own time, without a queue ahead of it.
    alone_ms = []
    for i in range(max(1, a.n // 4)):
        text = STATEMENTS[i % len(STATEMENTS)].format(city=CITIES[(i + 3) % len(CITIES)], org=ORGS[i % len(ORGS)], name=NAMES[i % len(NAMES)])
        t = time.perf_counter()
        status, body = call(a.url, a.key, "POST", "/v1/memories", {"user_id": user + "-alone", "wait": True, "messages": [{"role": "user", "content": text}]})
        alone_ms.append((time.perf_counter() - t) * 1000)
        assert status == 200 and body["status"] == "done", (status, body)
    call(a.url, a.key, "DELETE", f"/v1/memories?user_id={user}")
    call(a.url, a.key, "DELETE", f"/v1/memories?user_id={user}-alone")
    print(f"burst: {a.n} adds sent back to back (infer: true), then every job awaited")
    print(f"  add answer (202) ms: p50 {pct(add_ms, 50):.1f}  p95 {pct(add_ms, 95):.1f}  mean {statistics.mean(add_ms):.1f}")
    print(f"  job completion ms (created -> finished, queue wait included): p50 {pct(done_ms, 50):.1f}  p95 {pct(done_ms, 95):.1f}")
    print(f"  events: {json.dumps(events, sort_keys=True)}")
    print(f"alone: {len(alone_ms)} adds with wait: true, one at a time")
    print(f"  add-to-done round trip ms: p50 {pct(alone_ms, 50):.1f}  p95 {pct(alone_ms, 95):.1f}")


if __name__ == "__main__":
    main()
