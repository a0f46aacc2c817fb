"""A scripted OpenAI-compatible server on loopback, for tests and demos.

It speaks enough of `POST /v1/chat/completions` (plain and `stream: true` SSE)
for the real `openai` client. Replies come from a script queue; each entry is
one of:

    {"content": "text", "usage": {...}}           a reply (streamed in chunks when asked)
    {"tool_calls": [{"name": "add_node", "arguments": {...} or "raw json"}], "content": ""}
    {"status": 500, "body": "..."}                an HTTP error
    {"delay": 5.0, ...}                           wait before answering (timeouts)
    {"garbage": true}                             a 200 whose body is not JSON
    {"empty": true}                               a reply with no choices' content
    {"when": "text", ...}                         only for a request whose messages contain "text"

`POST /v1/embeddings` answers with deterministic vectors: a hashed bag of words
(EMBEDDING_DIM dimensions; each Chinese character is a word), where words
registered with `ScriptedLLM.alias(word, concept)` count as their concept, so a
test can make two different words "mean" the same. Scripted `{"status": ...}`
entries with `"embeddings": true` fail an embeddings request instead.

With an empty queue it answers "(scripted) I read N canvas items." so a demo works.

Fact extraction requests (`response_format.json_schema.name == "canvas_fact_extraction"`, see
chat/extraction.py) have a queue of their own (`push_extraction`), so they never take a chat reply:
    {"json": {"facts": [...]}}                    the structured answer
    {"content": "raw text"}, {"garbage": true}, {"status": 500}, {"delay": 5.0}   as above
With an empty extraction queue it answers HTTP 400 (the product falls back to its rules); those
requests are kept in `extraction_requests`, not `requests`.
Every request body is recorded. Control endpoints for other processes:
`POST /_script` (JSON list appended to the queue), `GET /_requests`, `POST /_reset`.

Run standalone: `python -m canvasweb.testing.fake_llm --port 8090`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import threading
import time
import uuid
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

EMBEDDING_DIM = 64
_WORD_RE = re.compile(r"[\u3400-\u9fff]|[A-Za-z0-9]+")


def hashed_embedding(text: str, aliases: dict[str, str] | None = None) -> list[float]:
    """Deterministic unit vector: hashed bag of (aliased) lowercase words."""
    vec = [0.0] * EMBEDDING_DIM
    for w in _WORD_RE.findall(text.lower()):
        w = (aliases or {}).get(w, w)
        h = int.from_bytes(hashlib.sha256(w.encode()).digest()[:4], "big")
        vec[h % EMBEDDING_DIM] += 1.0 if (h >> 16) & 1 else -1.0
    norm = math.sqrt(sum(x * x for x in vec)) or 1.0
    return [x / norm for x in vec]


class ScriptedLLM:
    def __init__(self) -> None:
        self.script: deque[dict] = deque()
        self.aliases: dict[str, str] = {}
        self.embedding_requests: list[dict] = []
        self.requests: list[dict] = []
        self.extraction_script: deque[dict] = deque()
        self.extraction_requests: list[dict] = []
        self.lock = threading.Lock()
        self.server: ThreadingHTTPServer | None = None
        self.thread: threading.Thread | None = None

    # --- control ------------------------------------------------------------------------

    def push(self, *entries: dict) -> None:
        with self.lock:
            self.script.extend(entries)

    def push_extraction(self, *entries: dict) -> None:
        with self.lock:
            self.extraction_script.extend(entries)

    def reset(self) -> None:
        with self.lock:
            self.script.clear()
            self.requests.clear()
            self.aliases.clear()
            self.embedding_requests.clear()
            self.extraction_script.clear()
            self.extraction_requests.clear()

    def alias(self, word: str, concept: str) -> None:
        """Embeddings treat `word` as `concept` (lowercase words)."""
        with self.lock:
            self.aliases[word.lower()] = concept.lower()

    def next_entry(self, body: dict | None = None) -> dict | None:
        """The first queued entry meant for this request (entries with `when` wait for a match)."""
        text = json.dumps((body or {}).get("messages", []), ensure_ascii=False)
        with self.lock:
            for entry in list(self.script):
                if entry.get("embeddings"):
                    continue  # meant for /v1/embeddings
                if entry.get("when") is None or entry["when"] in text:
                    self.script.remove(entry)
                    return entry
            return None

    def record(self, body: dict) -> None:
        with self.lock:
            self.requests.append(body)

    def all_request_text(self) -> str:
        """Everything the model was sent, as one string (for leak assertions)."""
        with self.lock:
            return "\n".join(
                json.dumps(r, ensure_ascii=False) for r in self.requests + self.extraction_requests
            )

    @property
    def base_url(self) -> str:
        assert self.server is not None
        host, port = self.server.server_address[:2]
        if isinstance(host, bytes):  # typeshed allows bytes (AF_UNIX); a TCP server's host is a str
            host = host.decode()
        return f"http://{host}:{port}/v1"

    def start(self, port: int = 0) -> ScriptedLLM:
        handler = type("Handler", (_Handler,), {"llm": self})
        self.server = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


def _default_reply(body: dict) -> dict:
    messages = body.get("messages") or []
    canvas_lines = sum(str(m.get("content", "")).count("\n[n") for m in messages)
    return {"content": f"(scripted) I read {canvas_lines} canvas items."}


def _is_extraction(body: dict) -> bool:
    schema = (body.get("response_format") or {}).get("json_schema") or {}
    return isinstance(schema, dict) and schema.get("name") == "canvas_fact_extraction"


def _tool_call_payload(calls: list[dict]) -> list[dict]:
    payload = []
    for index, call in enumerate(calls):
        arguments = call.get("arguments", {})
        payload.append(
            {
                "index": index,
                "id": call.get("id") or f"call_{uuid.uuid4().hex[:12]}",
                "type": "function",
                "function": {
                    "name": call["name"],
                    "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
                },
            }
        )
    return payload


class _Handler(BaseHTTPRequestHandler):
    llm: ScriptedLLM
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:  # keep test output quiet
        pass

    def _json(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.startswith("/_requests"):
            with self.llm.lock:
                self._json(200, list(self.llm.requests))
        elif self.path.rstrip("/").endswith("/models"):
            self._json(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})
        else:
            self._json(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.path.startswith("/_script"):
            self.llm.push(*json.loads(raw or b"[]"))
            self._json(200, {"queued": len(self.llm.script)})
            return
        if self.path.startswith("/_reset"):
            self.llm.reset()
            self._json(200, {"ok": True})
            return
        if self.path.rstrip("/").endswith("/embeddings"):
            self._embeddings(json.loads(raw or b"{}"))
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._json(404, {"error": {"message": "not found"}})
            return
        body = json.loads(raw or b"{}")
        if _is_extraction(body):
            with self.llm.lock:
                self.llm.extraction_requests.append(body)
                entry = self.llm.extraction_script.popleft() if self.llm.extraction_script else None
            if entry is None:
                self._json(
                    400, {"error": {"message": "no scripted extraction", "type": "invalid_request_error"}}
                )
                return
            if "json" in entry:
                entry = {**entry, "content": json.dumps(entry["json"], ensure_ascii=False)}
        else:
            self.llm.record(body)
            entry = self.llm.next_entry(body) or _default_reply(body)
        if entry.get("delay"):
            time.sleep(float(entry["delay"]))
        if entry.get("status"):
            self._json(
                int(entry["status"]),
                {"error": {"message": entry.get("body", "scripted failure"), "type": "server_error"}},
            )
            return
        if entry.get("garbage"):
            data = b"<html>definitely not json"
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        usage = entry.get("usage") or {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
        if body.get("stream"):
            self._stream(body, entry, usage)
        else:
            self._complete(body, entry, usage)

    def _embeddings(self, body: dict) -> None:
        with self.llm.lock:
            self.llm.embedding_requests.append(body)
            aliases = dict(self.llm.aliases)
            failure = next((e for e in self.llm.script if e.get("embeddings") and e.get("status")), None)
            if failure is not None:
                self.llm.script.remove(failure)
        if failure is not None:
            self._json(
                int(failure["status"]),
                {"error": {"message": failure.get("body", "scripted failure"), "type": "server_error"}},
            )
            return
        inputs = body.get("input")
        if isinstance(inputs, str):
            inputs = [inputs]
        if not isinstance(inputs, list) or not all(isinstance(t, str) for t in inputs):
            self._json(400, {"error": {"message": "input must be a string or a list of strings"}})
            return
        data = [
            {"object": "embedding", "index": i, "embedding": hashed_embedding(t, aliases)}
            for i, t in enumerate(inputs)
        ]
        tokens = sum(len(t.split()) for t in inputs)
        self._json(
            200,
            {
                "object": "list",
                "data": data,
                "model": body.get("model", "scripted"),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )

    def _complete(self, body: dict, entry: dict, usage: dict) -> None:
        message: dict[str, Any] = {
            "role": "assistant",
            "content": None if entry.get("empty") else entry.get("content", ""),
        }
        finish = "stop"
        if entry.get("tool_calls"):
            message["tool_calls"] = [
                {k: v for k, v in c.items() if k != "index"} for c in _tool_call_payload(entry["tool_calls"])
            ]
            finish = "tool_calls"
        self._json(
            200,
            {
                "id": f"chatcmpl-{uuid.uuid4().hex[:10]}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "scripted"),
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": usage,
            },
        )

    def _stream(self, body: dict, entry: dict, usage: dict) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        base = {
            "id": f"chatcmpl-{uuid.uuid4().hex[:10]}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": body.get("model", "scripted"),
        }

        def chunk(delta: dict, finish: str | None = None, with_usage: bool = False) -> None:
            payload = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
            if with_usage:
                payload = {**base, "choices": [], "usage": usage}
            self.wfile.write(f"data: {json.dumps(payload)}\n\n".encode())
            self.wfile.flush()

        chunk({"role": "assistant", "content": ""})
        text = "" if entry.get("empty") else entry.get("content", "")
        step = max(1, int(entry.get("chunk_chars", 4)))
        for start in range(0, len(text), step):
            chunk({"content": text[start : start + step]})
            if entry.get("chunk_delay"):
                time.sleep(float(entry["chunk_delay"]))
        finish = "stop"
        if entry.get("tool_calls"):
            chunk({"tool_calls": _tool_call_payload(entry["tool_calls"])})
            finish = "tool_calls"
        chunk({}, finish)
        if (body.get("stream_options") or {}).get("include_usage"):
            chunk({}, with_usage=True)
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8090)
    parser.add_argument("--script", help="JSON file with a list of scripted replies")
    args = parser.parse_args()
    llm = ScriptedLLM()
    if args.script:
        with open(args.script, encoding="utf-8") as handle:
            llm.push(*json.load(handle))
    llm.start(args.port)
    print(f"scripted OpenAI-compatible server at {llm.base_url}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        llm.stop()


if __name__ == "__main__":
    main()
