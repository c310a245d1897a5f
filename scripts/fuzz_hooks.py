"""Schemathesis hooks for `scripts/fuzz.sh`: inputs at the edges that the
schema alone rarely produces (issue 15).

- date-time values: besides ordinary ones, the ends of the accepted range
  (0001-01-01 .. 9999-12-31, UTC) and well past them, in chrono's extended
  years and with offsets that push a four-digit year out of range; the server
  must answer 422, never 5xx.
- search and context queries: every third one becomes a long query of
  hundreds of distinct terms, up to the 4,000-character limit.
"""
from datetime import timezone
import itertools

import schemathesis
from hypothesis import strategies as st

EDGE_TIMES = [
    "0001-01-01T00:00:00Z",
    "9999-12-31T23:59:59Z",
    "9999-12-31T23:59:59.999999Z",
    "+262142-12-31T23:59:59Z",
    "-262143-01-01T00:00:00Z",
    "-5000-01-01T00:00:00Z",
    "0000-12-31T23:59:59Z",
    "+10000-01-01T00:00:00Z",
    "9999-12-31T23:00:00-05:00",
    "0001-01-01T00:00:00+14:00",
    "1970-01-01T00:00:00Z",
]

ORDINARY_TIMES = st.datetimes(timezones=st.just(timezone.utc)).map(
    lambda d: d.isoformat().replace("+00:00", "Z")
)
# About one value in six at an edge, so most requests still get past
# validation and exercise what lies behind it.
schemathesis.openapi.format(
    "date-time",
    st.integers(0, 5).flatmap(lambda i: st.sampled_from(EDGE_TIMES) if i == 0 else ORDINARY_TIMES),
)

WORDS = ["hiking", "piano", "sourdough", "chess", "kayak", "tango", "Berlin", "2023", "yesterday", "May"]


def long_query(n: int) -> str:
    words, total = [], 0
    for i in itertools.count():
        w = f"{WORDS[i % len(WORDS)]}{i // len(WORDS) or ''}"
        if total + len(w) + 1 > 4000 or len(words) >= n:
            break
        words.append(w)
        total += len(w) + 1
    return " ".join(words)


_count = itertools.count()


@schemathesis.hook
def map_body(ctx, body):
    if isinstance(body, dict) and isinstance(body.get("query"), str) and next(_count) % 3 == 0:
        return {**body, "query": long_query(600)}
    return body
