#!/usr/bin/env python3
"""A webhook receiver for PDFTrapper's tests and bench, on 127.0.0.1 only.

Every request is answered by its path, then written as one JSON line to --log:
{"path", "headers" (names in lower case), "body" (text), "signature_ok" (HMAC-SHA256 of the
body with --secret, checked here with Python's hmac, independently of the daemon), "status" (0
for a request held past the sender's timeout), "time"}.

  /ok           200
  /flaky        500 for the first two requests of each Idempotency-Key, then 200
  /hang         the first request of each key is held --hang seconds (past the sender's
                timeout), later ones get 200
  /gone         410 always (refused for good)
  /slow         200 after --slow seconds, every time

It prints its port on stdout once listening (--port 0 picks one). With --cert and --key it speaks
HTTPS with that certificate.
"""
import argparse, hashlib, hmac, json, ssl, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--log", required=True)
parser.add_argument("--secret", default="")
parser.add_argument("--hang", type=float, default=30)
parser.add_argument("--slow", type=float, default=2)
parser.add_argument("--cert", default="")
parser.add_argument("--key", default="")
options = parser.parse_args()

lock = threading.Lock()
seen = {}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        key = self.headers.get("Idempotency-Key", "")
        with lock:
            count = seen.get((self.path, key), 0) + 1
            seen[(self.path, key)] = count
        status, hung = 200, False
        if self.path == "/flaky" and count <= 2:
            status = 500
        elif self.path == "/hang" and count == 1:
            time.sleep(options.hang)
            hung = True
        elif self.path == "/gone":
            status = 410
        elif self.path == "/slow":
            time.sleep(options.slow)
        answer = b'{"ok": true}' if status == 200 else b"no thanks"
        try:
            self.send_response(status)
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)
        except OSError:
            pass  # the sender gave up (a timeout): it is recorded all the same
        signature = self.headers.get("X-PDFTrapper-Signature", "")
        expected = "sha256=" + hmac.new(options.secret.encode(), body, hashlib.sha256).hexdigest()
        record = {
            "path": self.path,
            "headers": {name.lower(): value for name, value in self.headers.items()},
            "body": body.decode("utf-8", "replace"),
            "signature_ok": bool(options.secret) and hmac.compare_digest(signature, expected),
            "status": 0 if hung else status,
            "time": time.time(),
        }
        with lock:
            with open(options.log, "a") as log:
                log.write(json.dumps(record) + "\n")

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", options.port), Handler)
server.daemon_threads = True
if options.cert:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(options.cert, options.key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
