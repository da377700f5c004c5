"""`security.allowedHosts` against a real daemon (issue 30, DNS rebinding): every HTTP
request, upgrades included, whose `Host` name is not allowed is answered 421 naming the
key; names compare without their port and without regard to case; a list replaces the
default; `"*"` allows any."""
import socket

import pytest

from conftest import base_config


def raw(port, request: bytes) -> tuple[int, bytes]:
    """Sends one raw request on a fresh connection; returns (status, body) of the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                       if line.lower().startswith(b"content-length:")), 0)
        while len(body) < length:
            chunk = sock.recv(65536)
            if not chunk:
                break
            body += chunk
        return int(head.split(b" ", 2)[1]), body


def get(port, path, host):
    return raw(port, f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())


def upgrade(port, host, origin):
    return raw(port, (f"GET /ws HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\nUpgrade: websocket\r\n"
                      "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                      "Sec-WebSocket-Version: 13\r\n\r\n").encode())


def test_a_dns_rebinding_upgrade_and_every_request_for_another_host_get_421(daemon):
    port = daemon.port
    status, body = upgrade(port, f"evil.example:{port}", f"http://evil.example:{port}")
    assert (status, body) == (421, b"host 'evil.example:%d' is not served here (security.allowedHosts)\n" % port)
    for path in ("/", "/healthz", "/ws", "/metrics", "/nothing"):
        assert get(port, path, f"evil.example:{port}") == (421, b"host 'evil.example:%d' is not served here "
                                                                 b"(security.allowedHosts)\n" % port), path
    # The names the default allows, whatever their port and case.
    for host in (f"127.0.0.1:{port}", f"LOCALHOST:{port}", "localhost", f"[::1]:{port}"):
        assert get(port, "/healthz", host) == (200, b"ok\n"), host
    status, _ = upgrade(port, f"localhost:{port}", f"http://localhost:{port}")
    assert status == 101


@pytest.mark.parametrize("allowed, host, status", [
    (["app.example"], "App.Example:8080", 200),
    (["app.example"], "127.0.0.1", 421),
    (["*"], "evil.example:1", 200),
])
def test_a_list_replaces_the_default_and_a_star_allows_any(daemon_factory, allowed, host, status):
    daemon = daemon_factory(base_config(security={"allowedHosts": allowed}))
    assert get(daemon.port, "/healthz", host)[0] == status
