"""A chat app with memory, on the Engram Python client.

Per turn: the user's message goes into the session (Engram extracts what is
worth remembering in the background), Engram builds the memory block for the
question within a token budget, any OpenAI-compatible model answers with that
block in its system prompt, and the answer goes into the session too.

    pip install ./clients/python
    ENGRAM_API_KEY=$(cat .data/api-key) LLM_BASE_URL=http://127.0.0.1:11434/v1 LLM_MODEL=llama3.2 \\
        python examples/chat/chat.py --user alice

LLM_BASE_URL (default OpenAI's), LLM_MODEL, LLM_API_KEY choose the model;
ENGRAM_URL and ENGRAM_API_KEY the memory server. `/memories` shows what
Engram remembers about the user; `/quit` ends.
"""

from __future__ import annotations

import argparse
import os
import sys
import uuid
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import httpx

from engram_client import Engram

SYSTEM = (
    "You are a helpful assistant with a long-term memory of this user. "
    "Use what you remember when it helps; never invent memories."
)


@dataclass
class Llm:
    """Any OpenAI-compatible chat completions endpoint."""

    base_url: str = "https://api.openai.com/v1"
    model: str = "gpt-4o-mini"
    api_key: Optional[str] = None
    timeout: float = 60.0

    @classmethod
    def from_env(cls) -> "Llm":
        return cls(
            base_url=os.environ.get("LLM_BASE_URL", cls.base_url),
            model=os.environ.get("LLM_MODEL", cls.model),
            api_key=os.environ.get("LLM_API_KEY"),
        )

    def answer(self, messages: List[Dict[str, str]]) -> str:
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        r = httpx.post(
            self.base_url.rstrip("/") + "/chat/completions",
            json={"model": self.model, "messages": messages},
            headers=headers,
            timeout=self.timeout,
        )
        r.raise_for_status()
        return r.json()["choices"][0]["message"]["content"]


@dataclass
class Chat:
    engram: Engram
    llm: Llm
    user_id: str
    session_id: str = field(default_factory=lambda: f"chat-{uuid.uuid4().hex[:8]}")
    token_budget: int = 600
    #: Recent turns sent to the model as messages (older ones reach it
    #: through Engram's summary and memories).
    history: List[Dict[str, str]] = field(default_factory=list)
    keep_turns: int = 6

    def turn(self, text: str) -> str:
        appended = self.engram.sessions.append(
            self.session_id, user_id=self.user_id, messages=[{"role": "user", "content": text}]
        )
        # Wait for what this message taught, so the next turn knows it.
        if appended.extract_job_id:
            self.engram.jobs.wait(appended.extract_job_id, timeout=60)
        block = self.engram.context(
            user_id=self.user_id, session_id=self.session_id, query=text, token_budget=self.token_budget
        )
        messages = [{"role": "system", "content": f"{SYSTEM}\n\n{block.text}"}]
        messages += self.history[-2 * self.keep_turns :]
        messages.append({"role": "user", "content": text})
        answer = self.llm.answer(messages)
        self.engram.sessions.append(
            self.session_id, user_id=self.user_id, messages=[{"role": "assistant", "content": answer}]
        )
        self.history += [{"role": "user", "content": text}, {"role": "assistant", "content": answer}]
        return answer

    def remembered(self) -> List[str]:
        """What Engram holds about the user: the profile's facts."""
        return [e.memory for e in self.engram.users.profile(self.user_id).entries]


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--user", default="demo-user")
    p.add_argument("--session")
    p.add_argument("--budget", type=int, default=600, help="tokens of memory per turn")
    args = p.parse_args(argv)
    with Engram() as engram:
        chat = Chat(engram, Llm.from_env(), args.user, token_budget=args.budget)
        if args.session:
            chat.session_id = args.session
        print(f"session {chat.session_id}; /memories shows what is remembered, /quit ends")
        for line in sys.stdin:
            text = line.strip()
            if not text:
                continue
            if text == "/quit":
                break
            if text == "/memories":
                for m in chat.remembered():
                    print(" -", m)
                continue
            print(chat.turn(text), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
