"""HTTP body framing against a real daemon (issue 30, RFC 9112 section 6.3): two different
`Content-Length`s, `Content-Length` with `Transfer-Encoding`, or a folded header line get
400 and the connection closed; any `Transfer-Encoding` gets 501 and closed; a request
without either has an empty body and is answered at once, so docs/operations.md's
`curl -X POST …/reset` works as written. Over plain HTTP (the receive tap) and over TLS
(the headers as libwebsockets parsed them)."""
import asyncio
import json
import os
import re
import socket
import ssl
import subprocess

import pytest
import websockets

from auth_support import auth_config, self_signed_certificate
from conftest import ROOT, base_config

TOKEN = "admin-token-for-framing"


def exchange(daemon, request: bytes, secure=False) -> bytes:
    """Sends `request` on a fresh connection and reads until the daemon closes it."""
    sock = socket.create_connection(("127.0.0.1", daemon.port), timeout=20)
    if secure:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        sock = context.wrap_socket(sock, server_hostname="127.0.0.1")
    with sock:
        sock.sendall(request)
        data = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except (ssl.SSLError, ConnectionResetError):
                break
            if not chunk:
                break
            data += chunk
        return data


def status_and_body(response: bytes) -> tuple[int, bytes]:
    head, _, body = response.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


BAD = [
    (b"Content-Length: 2\r\nContent-Length: 7\r\n", 400, b"two different Content-Length values are not accepted"),
    (b"Content-Length: 2\r\nTransfer-Encoding: chunked\r\n", 400, b"Content-Length together with Transfer-Encoding"),
    (b"X-Note: one\r\n  two\r\nContent-Length: 2\r\n", 400, b"folded header lines (obs-fold) are not accepted"),
    (b"Transfer-Encoding: chunked\r\n", 501, b"Transfer-Encoding is not implemented"),
]


@pytest.mark.parametrize("headers, status, reason", BAD, ids=["two lengths", "length and chunked", "obs-fold", "chunked"])
def test_ambiguous_or_chunked_bodies_are_refused_and_the_connection_closed(daemon, headers, status, reason):
    # A second request rides behind the first: if the daemon read the first body by another
    # rule than a proxy would, it would answer the second one (request smuggling).
    smuggled = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    request = b"POST /admin/revoke HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers + b"\r\n{}" + smuggled
    response = exchange(daemon, request)
    answered, body = status_and_body(response)
    assert answered == status and reason in body, response
    assert response.count(b"HTTP/1.1 ") == 1, response


def test_the_same_requests_over_tls_are_refused_too(daemon_factory, tmp_path):
    folder = tmp_path / "tls"
    folder.mkdir()
    cert, key = self_signed_certificate(folder)
    daemon = daemon_factory(base_config(tls={"certFile": str(cert), "keyFile": str(key)}))
    for headers, status, reason in BAD[:2] + BAD[3:]:
        response = exchange(daemon, b"POST /admin/revoke HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers + b"\r\n{}", secure=True)
        answered, body = status_and_body(response)
        assert answered == status and reason in body, (headers, response)


def test_the_operations_guide_reset_command_is_answered_at_once(daemon_factory):
    daemon = daemon_factory(base_config(admin={"token": TOKEN}))
    guide = (ROOT / "docs" / "operations.md").read_text()
    command = re.search(r"^curl -s -X POST -H \"Authorization: Bearer \$TOKEN\" \S+/reset$", guide, re.M).group(0)
    command = command.replace("127.0.0.1:8080", f"127.0.0.1:{daemon.port}")

    async def joined():
        ws = await websockets.connect(daemon.url, subprotocols=["reactorhub.v1"])
        await ws.recv()
        await ws.send(json.dumps({"type": "join", "reactor": "doc/notes", "ref": 1}))
        while json.loads(await ws.recv())["type"] != "snapshot":
            pass
        return ws

    async def run():
        ws = await joined()
        # Without a body (curl sends no Content-Length): answered, not held until a timeout.
        result = await asyncio.to_thread(subprocess.run, ["sh", "-c", command], capture_output=True, timeout=60,
                                         env={**os.environ, "TOKEN": TOKEN})
        await ws.close()
        return result

    result = asyncio.run(run())
    assert result.returncode == 0, result
    reset = json.loads(result.stdout)
    assert (reset["kind"], reset["id"], reset["version"], reset["subscribers"]) == ("doc", "notes", 0, 1)


def test_a_request_without_a_body_is_answered_and_what_follows_is_not_read_as_its_body(daemon_factory):
    daemon = daemon_factory(auth_config(admin={"token": TOKEN}))
    response = exchange(daemon, f"POST /admin/revoke HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n\r\n"
                                .encode())
    status, body = status_and_body(response)
    # The empty body is read as such (the revoke endpoint says what it expected), and the
    # connection closes after the answer, so nothing after it could be taken for the body.
    assert (status, body) == (400, b'expected a JSON body {"sub":"USER"}\n'), response
    assert response.count(b"HTTP/1.1 ") == 1
