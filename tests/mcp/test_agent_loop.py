"""The self-managed memory pattern end to end: an agent loop whose model (a
scripted mock of an OpenAI-compatible chat endpoint, served over HTTP)
chooses Engram's tools by name from the MCP tool list. In one MCP session
the user states a fact and the model saves it with add_memory; in a new
session, days later for the user, the model finds it with search_memories
and answers from it."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx2
import pytest

from conftest import over_http, over_stdio

pytestmark = pytest.mark.anyio


def scripted_model(messages: list, tools: list) -> dict:
    """What the mock model answers: a tool call or a final message. It only
    knows tools it was offered, by their MCP names."""
    offered = {t["function"]["name"] for t in tools}
    last = messages[-1]
    if last["role"] == "tool":
        result = last["content"]
        if "search" in messages[-2]["tool_calls"][0]["function"]["name"]:
            # Answer from the best memory the tool returned.
            first = next((line for line in result.splitlines() if line.startswith("- ")), None)
            if first is None:
                return {"role": "assistant", "content": "I don't know that yet."}
            return {"role": "assistant", "content": "From memory: " + first[2:].split(" [id")[0]}
        return {"role": "assistant", "content": "Noted, I'll remember that."}
    said = last["content"]
    if said.rstrip().endswith("?"):
        name, args = "search_memories", {"query": said, "top_k": 3}
    else:
        name, args = "add_memory", {"text": said}
    assert name in offered, f"{name} not offered: {offered}"
    call = {"id": f"call_{len(messages)}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


class MockModel(BaseHTTPRequestHandler):
    requests: list = []

    def do_POST(self):  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        MockModel.requests.append(body)
        message = scripted_model(body["messages"], body.get("tools", []))
        reply = {
            "id": "chatcmpl-mock", "object": "chat.completion", "model": body["model"],
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}],
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def model_url():
    server = ThreadingHTTPServer(("127.0.0.1", 0), MockModel)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


async def agent_turn(mcp, model_url: str, said: str) -> tuple:
    """One user turn of a plain tool-calling agent: offer the MCP tools to
    the model as functions, run the calls it makes through MCP, until it
    answers. Returns the answer and the tools it used."""
    tools = [
        {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.input_schema}}
        for t in (await mcp.list_tools()).tools
    ]
    messages = [{"role": "system", "content": "You have a long-term memory."}, {"role": "user", "content": said}]
    used = []
    async with httpx2.AsyncClient(timeout=30) as http:
        for _ in range(5):
            r = await http.post(f"{model_url}/chat/completions", json={"model": "mock", "messages": messages, "tools": tools})
            message = r.json()["choices"][0]["message"]
            messages.append(message)
            if not message.get("tool_calls"):
                return message["content"], used
            for call in message["tool_calls"]:
                name = call["function"]["name"]
                result = await mcp.call_tool(name, json.loads(call["function"]["arguments"]))
                assert not result.is_error, result
                used.append(name)
                content = "\n".join(c.text for c in result.content if c.type == "text")
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": content})
    raise AssertionError("the agent did not finish")


async def test_a_fact_saved_in_one_session_is_found_in_the_next(live, admin, user, model_url):
    key = admin.key(user)
    async with over_http(live, key) as first:
        answer, used = await agent_turn(first, model_url, "I am allergic to peanuts, so keep that in mind.")
    assert used == ["add_memory"] and "remember" in answer
    # A new MCP session, here through the stdio bridge: nothing carried over but the memory.
    async with over_stdio(live, key) as second:
        answer, used = await agent_turn(second, model_url, "Which nuts should I avoid?")
    assert used == ["search_memories"]
    assert "peanuts" in answer, answer
    print(f"agent loop: session 1 used {['add_memory']}, session 2 used {used}, answered {answer!r}")
    # The model was offered Engram's tools by their MCP names and schemas.
    offered = {t["function"]["name"] for t in MockModel.requests[0]["tools"]}
    assert {"add_memory", "search_memories", "forget"} <= offered
