#!/usr/bin/env python3
"""The real user turns of the fact set (issue 50), drawn reproducibly from
data under ../shared/data (never copied into this repository):

- ShareGPT: 1,000 real user-ChatGPT conversations, the sample committed by
  github.com/Marugannwg/ShareGPT92k_user_linguistic_mining (MIT), as
  `sharegpt-sample/sharegpt-1003.json` (`{"id", "conversations": [{"from",
  "value"}]}`). A conversation's part is fixed by a hash of its id.
- REALTALK: ten real 21-day messaging-app conversations between people
  (github.com/danny911kr/REALTALK, `data/Chat_*.json`), in
  `realtalk/`. A conversation's part is fixed by who is in it, so no
  person is in two parts: chats 1-4 (Emi, Elise, Kevin, Paola) are the
  development part, 5-7 (Nicolas, Nebraas, Vanessa) the report part, 8-10
  (Akib, Muhhamed, Fahim) the blind part.

Per part: 35 ShareGPT user turns drawn uniformly (1-3,000 characters), 15
more among the turns that speak in the first person ("I'm", "my", ...: a
uniform draw holds few facts), and 50 REALTALK messages drawn uniformly.
Prints JSON lines `{"id", "part", "source", "text"}`; `labels.jsonl` holds
the facts a careful reader finds in each, by id.

  sample.py [SHARED_DATA_DIR] > turns.jsonl
"""

import glob
import hashlib
import json
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PARTS = ("dev", "report", "blind")
FIRST_PERSON = re.compile(r"\b(I'm|I am|I've|I have|I live|I work|my|My)\b")


def sharegpt_part(conv_id):
    return PARTS[int(hashlib.sha1(conv_id.encode()).hexdigest(), 16) % 3]


def realtalk_part(name):
    n = int(re.match(r"Chat_(\d+)_", name).group(1))
    return "dev" if n <= 4 else "report" if n <= 7 else "blind"


def sharegpt_turns(data):
    path = os.path.join(data, "sharegpt-sample", "sharegpt-1003.json")
    for conv in json.load(open(path)):
        for i, turn in enumerate(conv["conversations"]):
            text = turn["value"]
            if turn["from"] == "human" and 1 <= len(text.strip()) <= 3000:
                yield {"id": f"sharegpt:{conv['id']}:{i}", "part": sharegpt_part(conv["id"]),
                       "source": "sharegpt", "text": text}


def realtalk_turns(data):
    for path in sorted(glob.glob(os.path.join(data, "realtalk", "Chat_*.json"))):
        name = os.path.basename(path)
        chat = json.load(open(path))
        for key, turns in chat.items():
            if not re.fullmatch(r"session_\d+", key):
                continue
            for t in turns:
                if t["clean_text"].strip():
                    yield {"id": f"realtalk:{name[:-5]}:{t['dia_id']}", "part": realtalk_part(name),
                           "source": "realtalk", "text": t["clean_text"]}


def main():
    data = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "..", "..", "shared", "data")
    if not os.path.isdir(os.path.join(data, "realtalk")):
        sys.exit(f"no data under {data} (see this file's header)")
    rng = random.Random(50)
    sg = list(sharegpt_turns(data))
    rt = list(realtalk_turns(data))
    out = []
    for part in PARTS:
        pool = [t for t in sg if t["part"] == part]
        uniform = rng.sample(pool, 35)
        rest = [t for t in pool if t not in uniform and FIRST_PERSON.search(t["text"])]
        out += uniform + rng.sample(rest, 15)
        out += rng.sample([t for t in rt if t["part"] == part], 50)
    for t in out:
        print(json.dumps(t, ensure_ascii=False))


if __name__ == "__main__":
    main()
