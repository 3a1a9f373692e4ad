#!/usr/bin/env python3
"""A Hugging Face-style hub on 127.0.0.1 for the model pull tests: one repository served from a folder.

  GET /api/models/OWNER/NAME/tree/REV?recursive=true   the tree listing (paginated with --page-size)
  GET /OWNER/NAME/resolve/REV/PATH                     a file; LFS files redirect to /cdn/PATH as the
                                                       real hub sends them to its CDN; Range honoured

Files ending in .safetensors or of --lfs-min-bytes or more are listed as LFS files (lfs.oid = sha256),
the others with their Git blob id. Faults for the tests: --drop-after PATH:BYTES (the first transfer of
PATH stops after BYTES, the connection closed), --pause-after PATH:BYTES (the first transfer of PATH
stops after BYTES and hangs; "paused" is printed), --corrupt PATH:OFFSET (that byte flipped in every
transfer, the listing left true), --no-range (Range ignored), --extra-entry JSON (added to the listing).
Prints the port on stdout once listening; each request is appended to --log as a JSON line.
"""
import argparse
import hashlib
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit


def listing_entry(root, rel, lfs_min_bytes):
    data = open(os.path.join(root, rel), "rb").read()
    entry = {"type": "file", "path": rel, "size": len(data),
             "oid": hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()}
    if rel.endswith(".safetensors") or len(data) >= lfs_min_bytes:
        entry["lfs"] = {"oid": hashlib.sha256(data).hexdigest(), "size": len(data), "pointerSize": 134}
    return entry


def build_listing(root, lfs_min_bytes):
    entries = []
    for folder, dirs, files in os.walk(root, followlinks=True):
        dirs.sort()
        rel_folder = os.path.relpath(folder, root)
        if rel_folder != ".":
            entries.append({"type": "directory", "path": rel_folder, "oid": "0" * 40, "size": 0})
        for name in sorted(files):
            rel = name if rel_folder == "." else rel_folder + "/" + name
            entries.append(listing_entry(root, rel, lfs_min_bytes))
    return entries


class Hub:
    def __init__(self, args):
        self.args = args
        self.listing = build_listing(args.root, args.lfs_min_bytes)
        for extra in args.extra_entry:
            self.listing.append(json.loads(extra))
        self.lfs = {e["path"] for e in self.listing if "lfs" in e}
        self.lock = threading.Lock()
        self.faults_used = set()

    def fault(self, option, path):
        """(BYTES or OFFSET) of a --drop-after/--pause-after/--corrupt naming `path`, else None."""
        for spec in getattr(self.args, option):
            name, _, number = spec.rpartition(":")
            if name == path:
                return int(number)
        return None

    def first_time(self, key):
        with self.lock:
            if key in self.faults_used:
                return False
            self.faults_used.add(key)
            return True

    def log(self, record):
        if self.args.log:
            with self.lock, open(self.args.log, "a") as f:
                f.write(json.dumps(record) + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_body(self, code, body, content_type="application/json", headers=()):
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        hub = self.server.hub
        url = urlsplit(self.path)
        path = unquote(url.path)
        hub.log({"path": path, "range": self.headers.get("Range")})
        repo = hub.args.repo
        tree_prefix = "/api/models/%s/tree/main" % repo
        resolve_prefix = "/%s/resolve/main/" % repo
        if path == tree_prefix:
            return self.tree(parse_qs(url.query))
        if path.startswith(resolve_prefix):
            rel = path[len(resolve_prefix):]
            if rel in hub.lfs:
                self.send_response(302)
                self.send_header("Location", "/cdn/" + url.path[len(resolve_prefix):])
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            return self.file(rel)
        if path.startswith("/cdn/"):
            return self.file(path[len("/cdn/"):])
        self.send_body(404, b'{"error":"Repository not found"}')

    def tree(self, query):
        hub = self.server.hub
        size = hub.args.page_size or len(hub.listing)
        start = int(query.get("cursor", ["0"])[0])
        page = hub.listing[start:start + size]
        headers = []
        if start + size < len(hub.listing):
            port = self.server.server_address[1]
            headers.append(("Link", '<http://127.0.0.1:%d/api/models/%s/tree/main?recursive=true&cursor=%d>; '
                                    'rel="next"' % (port, hub.args.repo, start + size)))
        self.send_body(200, json.dumps(page).encode(), headers=headers)

    def file(self, rel):
        hub = self.server.hub
        full = os.path.join(hub.args.root, rel)
        if ".." in rel.split("/") or not os.path.isfile(full):
            return self.send_body(404, b'{"error":"Entry not found"}')
        data = bytearray(open(full, "rb").read())
        corrupt = hub.fault("corrupt", rel)
        if corrupt is not None:
            data[corrupt] ^= 0x01
        start = 0
        requested = self.headers.get("Range")
        if requested and not hub.args.no_range:
            start = int(requested.split("=")[1].split("-")[0])
        if start >= len(data) and len(data) > 0:
            return self.send_body(416, b"", headers=[("Content-Range", "bytes */%d" % len(data))])
        body = bytes(data[start:])
        if start > 0:
            self.send_response(206)
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, len(data) - 1, len(data)))
        else:
            self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        drop = hub.fault("drop_after", rel)
        pause = hub.fault("pause_after", rel)
        if drop is not None and hub.first_time(("drop", rel)):
            self.wfile.write(body[:drop])
            self.wfile.flush()
            self.close_connection = True
            return
        if pause is not None and hub.first_time(("pause", rel)):
            self.wfile.write(body[:pause])
            self.wfile.flush()
            print("paused", flush=True)
            threading.Event().wait()  # until the test kills the server or the client goes away
        self.wfile.write(body)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--root", required=True)
    p.add_argument("--repo", default="test-org/tiny-mineru")
    p.add_argument("--lfs-min-bytes", type=int, default=100_000)
    p.add_argument("--page-size", type=int, default=0)
    p.add_argument("--drop-after", action="append", default=[])
    p.add_argument("--pause-after", action="append", default=[])
    p.add_argument("--corrupt", action="append", default=[])
    p.add_argument("--extra-entry", action="append", default=[])
    p.add_argument("--no-range", action="store_true")
    p.add_argument("--log")
    args = p.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.hub = Hub(args)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
