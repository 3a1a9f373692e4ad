#!/usr/bin/env python3
"""A stand-in for a vLLM or SGLang server of MinerU 2.0, for minerud's remote-backend tests.

Serves GET /v1/models, GET /health and POST /v1/chat/completions on 127.0.0.1 only. It checks that a
chat request is the one MinerU's client sends (a system message, the page as a data:image/png URL, the
instruction, greedy sampling, special tokens kept, vllm_xargs.no_repeat_ngram_size) and answers 400
otherwise. A good answer is model text naming the PNG's size, streamed in vLLM's or SGLang's chunk
format. --mode makes it misbehave instead:
  good       answer (after --delay seconds)
  replay     send the --replay file verbatim as the event stream
  garbage    200 text/event-stream with HTML in it
  http500    HTTP 500 with a vLLM error object
  trickle    the role chunk, then one byte every 0.2 s (for at most 30 s)
  truncate   half of a good answer, then the connection is cut
  oversized  content chunks far past any token limit (2 MiB at most)
Each chat request appends "chat" to --log. The port is written to --port-file once listening.
Everything is bounded in time; the server runs until killed.
"""
import argparse
import base64
import json
import os
import re
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL_ID = "mineru2"
SYSTEM = ("A conversation between a user and an LLM-based AI assistant. The assistant gives helpful and "
          "honest answers.")


def page_text(width, height):
    return ("<|box_start|>100 080 900 160<|box_end|><|ref_start|>title<|ref_end|><|md_start|># Page "
            f"{width}x{height}<|md_end|>\n<|box_start|>100 200 900 400<|box_end|><|ref_start|>text<|ref_end|>"
            f"<|md_start|>A {width} by {height} PNG, width \\(w = {width}\\).<|md_end|>")


def pieces(text):
    return re.findall(r"<\|[a-z_]+\|>|\s?[^\s<]+|\s|<", text)


def vllm_chunks(text):
    base = {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": int(time.time()),
            "model": MODEL_ID}

    def chunk(delta, finish=None):
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return "data: " + json.dumps(dict(base, choices=[choice])) + "\n\n"

    out = [chunk({"role": "assistant", "content": ""})]
    out += [chunk({"content": p}) for p in pieces(text)]
    out.append(chunk({"content": ""}, "stop"))
    out.append("data: [DONE]\n\n")
    return out


def sglang_chunks(text):
    base = {"id": "sglang-test", "object": "chat.completion.chunk", "created": int(time.time()), "model": MODEL_ID}

    def chunk(content, role=None, finish=None, matched=None):
        choice = {"index": 0, "delta": {"role": role, "content": content, "reasoning_content": None,
                                        "tool_calls": None},
                  "logprobs": None, "finish_reason": finish, "matched_stop": matched}
        return "data: " + json.dumps(dict(base, choices=[choice], usage=None)) + "\n\n"

    parts = pieces(text)
    out = [chunk(p, "assistant" if i == 0 else None) for i, p in enumerate(parts)]
    out.append(chunk(None, None, "stop", 151645))
    out.append("data: [DONE]\n\n")
    return out


def check_request(body):
    """The PNG's (width, height), or raises ValueError saying what is wrong."""
    r = json.loads(body)
    if r.get("model") != MODEL_ID:
        raise ValueError(f"The model `{r.get('model')}` does not exist.")
    msgs = r["messages"]
    if len(msgs) != 2 or msgs[0] != {"role": "system", "content": SYSTEM} or msgs[1]["role"] != "user":
        raise ValueError("messages are not a system message and a user message")
    parts = msgs[1]["content"]
    if len(parts) != 2 or parts[0]["type"] != "image_url" or parts[1] != {"type": "text", "text": "Document Parsing:"}:
        raise ValueError("the user message is not an image and 'Document Parsing:'")
    url = parts[0]["image_url"]["url"]
    prefix = "data:image/png;base64,"
    if not url.startswith(prefix):
        raise ValueError("the image is not a PNG data URL")
    png = base64.b64decode(url[len(prefix):], validate=True)
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise ValueError("the image is not a PNG")
    width, height = struct.unpack(">II", png[16:24])
    want = {"temperature": 0, "top_k": 1, "presence_penalty": 0, "frequency_penalty": 0,
            "skip_special_tokens": False, "stream": True}
    for key, value in want.items():
        if r.get(key) != value:
            raise ValueError(f"{key} is {r.get(key)!r}, not {value!r}")
    if r.get("vllm_xargs") != {"no_repeat_ngram_size": 100}:
        raise ValueError("vllm_xargs is not {'no_repeat_ngram_size': 100}")
    if not isinstance(r.get("max_tokens"), int) or r["max_tokens"] <= 0 or not isinstance(r.get("top_p"), (int, float)):
        raise ValueError("max_tokens or top_p missing")
    return width, height


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def authorized(self):
        key = self.server.options.api_key
        if key and self.headers.get("Authorization") != "Bearer " + key:
            self.send_json(401, {"error": {"message": "invalid api key", "type": "invalid_request_error"}})
            return False
        return True

    def send_json(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def start_stream(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def chunk(self, text):
        data = text.encode() if isinstance(text, str) else text
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def end_stream(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def do_GET(self):
        if self.path == "/health":
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/v1/models":
            if self.authorized():
                self.send_json(200, {"object": "list", "data": [{"id": MODEL_ID, "object": "model",
                                                                  "owned_by": "test", "max_model_len": 16384}]})
        else:
            self.send_json(404, {"object": "error", "message": "not found", "code": 404})

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        if self.path != "/v1/chat/completions":
            self.send_json(404, {"object": "error", "message": "not found", "code": 404})
            return
        if not self.authorized():
            return
        o = self.server.options
        with self.server.log_lock:
            with open(o.log, "a") as log:
                log.write("chat\n")
        try:
            width, height = check_request(body)
        except (ValueError, KeyError, TypeError, IndexError) as e:
            self.send_json(400, {"object": "error", "message": str(e), "type": "BadRequestError", "code": 400})
            return
        if o.delay:
            time.sleep(o.delay)
        mode = o.mode
        if mode == "http500":
            self.send_json(500, {"object": "error", "message": "engine crashed", "type": "InternalServerError",
                                 "code": 500})
            return
        if mode == "replay":
            self.start_stream()
            with open(o.replay, "rb") as f:
                self.chunk(f.read())
            self.end_stream()
            return
        self.start_stream()
        chunks = (sglang_chunks if o.flavor == "sglang" else vllm_chunks)(page_text(width, height))
        if mode == "good":
            for c in chunks:
                self.chunk(c)
            self.end_stream()
        elif mode == "garbage":
            self.chunk("<html><body>Bad Gateway</body></html>\n\n")
            self.end_stream()
        elif mode == "trickle":
            self.chunk(chunks[0])
            rest = "".join(chunks[1:])
            end = time.monotonic() + 30
            for ch in rest:
                if time.monotonic() > end:
                    break
                self.chunk(ch)
                time.sleep(0.2)
            self.close_connection = True
        elif mode == "truncate":
            for c in chunks[: len(chunks) // 2]:
                self.chunk(c)
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        elif mode == "oversized":
            filler = "x" * 1000
            for _ in range(2048):
                self.chunk(vllm_chunks(filler)[1])
            self.chunk("data: [DONE]\n\n")
            self.end_stream()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port-file", required=True)
    p.add_argument("--mode", default="good",
                   choices=["good", "replay", "garbage", "http500", "trickle", "truncate", "oversized"])
    p.add_argument("--flavor", default="vllm", choices=["vllm", "sglang"])
    p.add_argument("--replay")
    p.add_argument("--log", default=os.devnull)
    p.add_argument("--delay", type=float, default=0)
    p.add_argument("--api-key", default="")
    options = p.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.options = options
    server.log_lock = threading.Lock()
    tmp = options.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(tmp, options.port_file)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
