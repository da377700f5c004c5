#!/usr/bin/env python3
"""A ReactorHub webhook receiver that verifies what it receives (docs/api-http.md, "Webhooks").

    python3 receiver.py --secret "$WEBHOOK_SECRET" [--port 9000]

Each delivery is a POST whose `X-ReactorHub-Signature` is `sha256=` and the lower-case hex
HMAC-SHA256, under the shared secret, of `X-ReactorHub-Timestamp + "." + body`. A request is
accepted (204) only when that signature matches (compared in constant time) and its
timestamp is within five minutes of now (an old request replayed is refused). The daemon
retries until it gets a 2xx, with the same `X-ReactorHub-Id`: an id seen before is
acknowledged again and not processed twice. Accepted events are printed as JSON lines.
Only the standard library is used.
"""
import argparse
import hashlib
import hmac
import http.server
import json
import sys
import time

TOLERANCE_SECONDS = 300


def verify(secret: bytes, timestamp: str, body: bytes, signature: str, now: float) -> str | None:
    """None when the delivery is genuine and fresh, else why it is refused."""
    if not timestamp.isdigit() or abs(now - int(timestamp)) > TOLERANCE_SECONDS:
        return "stale or missing timestamp"
    expected = "sha256=" + hmac.new(secret, timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, signature):
        return "bad signature"
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--secret", required=True, help="the webhook's secret, as in the daemon's configuration")
    parser.add_argument("--port", type=int, default=9000, help="0 picks a free port")
    arguments = parser.parse_args()
    secret = arguments.secret.encode()
    seen: set[str] = set()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            refusal = verify(secret, self.headers.get("X-ReactorHub-Timestamp", ""), body,
                             self.headers.get("X-ReactorHub-Signature", ""), time.time())
            if refusal:
                self.answer(401, refusal)
                return
            event_id = self.headers.get("X-ReactorHub-Id", "")
            if event_id not in seen:  # a retry of an event already processed is only acknowledged
                seen.add(event_id)
                print(json.dumps(json.loads(body)), flush=True)
            self.answer(204)

        def answer(self, status: int, reason: str = "") -> None:
            data = reason.encode()
            self.send_response(status)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", arguments.port), Handler)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
