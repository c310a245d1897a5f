"""The example chat app (examples/chat/chat.py) against a live Engram and
a scripted OpenAI-compatible model: what the user said in turn 1 reaches
the model's prompt in turn 5."""

import http.server
import importlib.util
import json
import pathlib
import sys
import threading
import uuid

from engram_client import Engram

CHAT = pathlib.Path(__file__).resolve().parents[3] / "examples" / "chat" / "chat.py"


class MockLlm(http.server.BaseHTTPRequestHandler):
    """Answers every chat completion with a numbered reply and keeps the
    requests it was sent."""

    requests: list = []

    def do_POST(self):  # noqa: N802 (http.server's naming)
        length = int(self.headers["Content-Length"])
        body = json.loads(self.rfile.read(length))
        MockLlm.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        reply = {
            "id": "cmpl-1",
            "object": "chat.completion",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": f"Reply {len(MockLlm.requests)}."}}],
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def load_chat():
    spec = importlib.util.spec_from_file_location("chat_example", CHAT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_a_fact_from_turn_one_is_in_turn_five(live):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), MockLlm)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    MockLlm.requests = []
    chat_mod = load_chat()
    user = f"chat-{uuid.uuid4().hex[:8]}"
    try:
        with Engram(live["url"], live["key"]) as engram:
            llm = chat_mod.Llm(base_url=f"http://127.0.0.1:{server.server_port}/v1", model="mock-1", api_key="sk-mock")
            # Two turns of history only: turn 1 reaches turn 5 through Engram alone.
            chat = chat_mod.Chat(engram, llm, user, keep_turns=2)
            turns = [
                "Hi! I live in Lisbon and I work at Initech.",
                "Can you suggest a podcast about history?",
                "What about one on science?",
                "Thanks, and a good book?",
                "Where should I go for a walk this weekend near home?",
            ]
            answers = [chat.turn(t) for t in turns]
            assert answers == [f"Reply {i}." for i in range(1, 6)]
            assert len(MockLlm.requests) == 5
            first, fifth = MockLlm.requests[0], MockLlm.requests[4]
            assert first["path"] == "/v1/chat/completions" and first["auth"] == "Bearer sk-mock"
            assert fifth["body"]["model"] == "mock-1"
            messages = fifth["body"]["messages"]
            # Turn 1 left the model's window of recent turns ...
            assert all("Lisbon" not in m["content"] for m in messages if m["role"] != "system")
            # ... and came back through Engram's memory block.
            system = messages[0]["content"]
            assert messages[0]["role"] == "system" and "<memory>" in system
            assert "Lisbon" in system, system
            assert any("Lisbon" in m for m in chat.remembered())
            # The session holds both sides of the conversation.
            turns_stored = engram.sessions.messages(chat.session_id, limit=100).messages
            assert [t.role for t in turns_stored] == ["user", "assistant"] * 5
            engram.admin.erase_user(user)
    finally:
        server.shutdown()
