"""A plain HTTP client in Mem0's OSS REST shape (POST /memories, POST /search,
X-API-Key) pointed at Engram's /mem0-oss routes: ingests one LoCoMo
conversation verbatim (one memory per turn, as Mem0 OSS stores it with
infer=False) and asks its questions, reporting hit@10 and R@10 against the
evidence turns. Reads ../shared/data/locomo/locomo-dev.json and skips cleanly
without it (exit 0 with a note). Usage: ENGRAM_URL=... ENGRAM_API_KEY=...
python locomo_oss.py [conversation index] [minimum hit@10].
"""

import json
import os
import sys
import time
import urllib.request

URL = os.environ["ENGRAM_URL"].rstrip("/") + "/mem0-oss"
KEY = os.environ["ENGRAM_API_KEY"]
SHARED = os.environ.get("ENGRAM_SHARED_DIR", os.path.join(os.path.dirname(__file__), "../../../shared"))
DATA = os.path.join(SHARED, "data/locomo/locomo-dev.json")


def call(method, path, body=None):
    req = urllib.request.Request(URL + path, method=method, headers={"X-API-Key": KEY, "Content-Type": "application/json"},
                                 data=None if body is None else json.dumps(body).encode())
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.loads(r.read() or b"null")


def main():
    if not os.path.exists(DATA):
        print(f"[locomo-oss] {DATA} is absent: skipped")
        return 0
    index = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    floor = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    sample = json.load(open(DATA))[index]
    conv = sample["conversation"]
    user = f"locomo-{sample['sample_id']}"
    by_text = {}
    started = time.time()
    turns = 0
    n = 1
    while f"session_{n}" in conv:
        messages = []
        for t in conv[f"session_{n}"]:
            text = f"{t['speaker']}: {t['text']}"
            by_text.setdefault(text, t["dia_id"])
            messages.append({"role": "user", "content": text})
        stored = call("POST", "/memories", {"messages": messages, "user_id": user, "infer": False})
        turns += len(stored["results"])
        n += 1
    ingest_s = time.time() - started
    questions = [q for q in sample["qa"] if q["category"] in (1, 2, 3, 4) and q.get("evidence")]
    hits, recall = 0, 0.0
    started = time.time()
    for q in questions:
        found = call("POST", "/search", {"query": q["question"], "user_id": user, "top_k": 10})
        ids = {by_text.get(m["memory"]) for m in found["results"]}
        evidence = set(q["evidence"])
        got = len(evidence & ids)
        hits += got > 0
        recall += got / len(evidence)
    search_s = time.time() - started
    hit10, r10 = hits / len(questions), recall / len(questions)
    print(f"[locomo-oss] conversation {index}: {turns} turns stored in {ingest_s:.1f} s over {n - 1} sessions; "
          f"{len(questions)} questions in {search_s:.1f} s: hit@10 {hit10:.3f}, R@10 {r10:.3f}")
    call("DELETE", f"/memories?user_id={user}")
    left = call("GET", f"/memories?user_id={user}")["results"]
    assert left == [], "the conversation is deleted"
    if hit10 < floor:
        print(f"[locomo-oss] hit@10 {hit10:.3f} is under the floor {floor}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
