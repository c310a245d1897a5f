#!/usr/bin/env python3
"""The table of `run.py` results, one row per system, for each half:

  report.py RESULT.json ... [--misses | --misses-all]   (rows in the order given;
  --misses leaves out the held-out fourth report half)

recall: expected facts found live / expected; precision: memories the
message created that hold an expected value (and no forbidden one) /
memories it created; false: forbidden values live after a question,
hypothetical, other person's fact or instruction; stale: old values live
after an update, correction, retraction or forget request; secrets: cases
whose secret is in a stored memory; unusable: model answers the system could
not use as they came (Engram repairs once, Mem0 drops them) / answers;
failed: messages whose extraction ended in an error; s/msg: median seconds
from sending the message to its extraction's end.
"""

import json
import statistics
import sys


def row(label, cases):
    total = lambda k: sum(c[k] for c in cases)  # noqa: E731
    expected, stored = total("expected"), total("stored")
    answers = total("answers")
    return (
        f"| {label} | {total('found')}/{expected} = {total('found') / max(expected, 1):.2f} "
        f"| {total('right')}/{stored} = {total('right') / max(stored, 1):.2f} "
        f"| {total('false')} | {total('stale')} | {total('secret')} "
        f"| {int(total('invalid'))}/{int(answers)} | {total('failed')} "
        f"| {statistics.median(c['seconds'] for c in cases):.1f} |"
    )


def main():
    paths = [p for p in sys.argv[1:] if not p.startswith("--")]
    runs = [json.load(open(p)) for p in paths]
    titles = {"dev": "Development half", "report": "Report half",
              "report2": "Second report half (written after the first's misses were seen)",
              "report3": "Third report half (written after the second's misses were seen)",
              "report4": "Fourth report half (written after the third's misses were seen)"}
    for half in titles:
        if not any(c["half"] == half for r in runs for c in r["cases"]):
            continue
        print(f"\n{titles[half]}\n")
        print("| system | recall | precision | false | stale | secrets | unusable | failed | s/msg |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in runs:
            cases = [c for c in r["cases"] if c["half"] == half]
            if cases:
                print(row(r["label"], cases))
    # The fourth report half is held out: its misses only with --misses-all.
    if "--misses" in sys.argv or "--misses-all" in sys.argv:
        for r in runs:
            print(f"\n## {r['label']}")
            for c in r["cases"]:
                if c["half"] == "report4" and "--misses-all" not in sys.argv:
                    continue
                if c["found"] < c["expected"] or c["false"] or c["stale"] or c["secret"] \
                        or c["right"] < c["stored"]:
                    print(f"- {c['id']} ({c['half']}): {c['memories']}")


if __name__ == "__main__":
    main()
