"""Copies memories from Mem0 into Engram, through Mem0's own client.

The source is the Mem0 Platform (or anything that speaks its API, Engram's
/mem0 included) or a self-hosted Mem0 OSS REST server (--from-oss); the
destination is Engram's /mem0 routes. Each memory is added verbatim
(infer=False) to the same user, agent and run, with its metadata, its
expiration date and its creation time, so nothing is re-extracted; Engram
embeds it, screens it (secrets are redacted) and stores an exact duplicate of
a live memory once, so running the copy again adds nothing.

    python migrate.py --from-host https://api.mem0.ai --from-key $MEM0_KEY \\
        --to-host http://engram:8420/mem0 --to-key $ENGRAM_KEY --all-users --dry-run

Prints one JSON line per user and a total: read, written, already there.
"""

import argparse
import json
import sys
import urllib.parse
import urllib.request
from datetime import datetime

from mem0 import MemoryClient


def platform_memories(client, user):
    page = 1
    while True:
        got = client.get_all(filters={"user_id": user}, page=page, page_size=100)
        yield from got["results"]
        if not got.get("next"):
            return
        page += 1


def oss_memories(host, key, user):
    url = f"{host.rstrip('/')}/memories?{urllib.parse.urlencode({'user_id': user})}"
    req = urllib.request.Request(url, headers={"X-API-Key": key})
    with urllib.request.urlopen(req, timeout=120) as r:
        yield from json.loads(r.read())["results"]


def unix(ts):
    if not ts:
        return None
    return int(datetime.fromisoformat(str(ts).replace("Z", "+00:00")).timestamp())


def copy(memory, user, dest, dry_run):
    """'written', 'already' (Engram had it) or 'would write' (dry run)."""
    if dry_run:
        return "would write"
    options = {"user_id": user, "infer": False}
    for field in ("agent_id", "run_id", "app_id", "metadata", "expiration_date"):
        if memory.get(field):
            options[field] = memory[field]
    if unix(memory.get("created_at")):
        options["timestamp"] = unix(memory["created_at"])
    result = dest.add([{"role": "user", "content": memory["memory"]}], **options)
    events = [r["event"] for r in result.get("results", [])]
    return "already" if events and all(e == "NOOP" for e in events) else "written"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--from-host", required=True)
    p.add_argument("--from-key", required=True)
    p.add_argument("--from-oss", action="store_true", help="the source is Mem0's OSS REST server")
    p.add_argument("--to-host", required=True, help="Engram's /mem0, e.g. http://engram:8420/mem0")
    p.add_argument("--to-key", required=True)
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--user", action="append", help="a user to copy (repeatable)")
    who.add_argument("--all-users", action="store_true", help="every user the source lists (Platform only)")
    p.add_argument("--dry-run", action="store_true", help="read and count, write nothing")
    args = p.parse_args(argv)

    source = None if args.from_oss else MemoryClient(api_key=args.from_key, host=args.from_host)
    dest = None if args.dry_run else MemoryClient(api_key=args.to_key, host=args.to_host)
    if args.all_users:
        if source is None:
            p.error("--all-users needs the Platform API; name --user for an OSS server")
        users = [e["name"] for e in source.users()["results"] if e["type"] == "user"]
    else:
        users = args.user
    total = {"users": 0, "read": 0, "written": 0, "already": 0, "would write": 0}
    for user in users:
        counts = {"read": 0, "written": 0, "already": 0, "would write": 0}
        memories = oss_memories(args.from_host, args.from_key, user) if args.from_oss else platform_memories(source, user)
        for m in memories:
            counts["read"] += 1
            counts[copy(m, user, dest, args.dry_run)] += 1
        print(json.dumps({"user": user, **counts}))
        total["users"] += 1
        for k, v in counts.items():
            total[k] += v
    print(json.dumps({"total": total, "dry_run": args.dry_run}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
