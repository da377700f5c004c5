"""TLS end to end (CONFIG.md `tls`), with a self-signed certificate made by `openssl req` in
the test: the start line reads https://, WSS works from Python (verifying the certificate)
and from websocat (`-k`), HTTPS serves the health check, plain ws:// to the TLS port gets
no WebSocket, and a missing file or a key that is not the certificate's stops the start
with exit 2 and one line naming the key."""
import json
import queue
import socket
import ssl
import subprocess
import threading

import pytest
from websockets.exceptions import InvalidHandshake, InvalidMessage
from websockets.sync.client import connect as ws_connect

from auth_support import Client, auth_config, http, rsa_key_pair, self_signed_certificate, token
from conftest import BINARY, ROOT, Daemon, base_config


@pytest.fixture
def certificate(tmp_path):
    folder = tmp_path / "tls"
    folder.mkdir()
    return self_signed_certificate(folder)


def tls_config(cert, key, **sections):
    return base_config(tls={"certFile": str(cert), "keyFile": str(key)}, **sections)


def verifying_context(cert) -> ssl.SSLContext:
    """A context that trusts only the test's certificate and checks the host name (its SAN)."""
    context = ssl.create_default_context(cafile=str(cert))
    assert context.check_hostname and context.verify_mode == ssl.CERT_REQUIRED
    return context


def test_the_daemon_says_https_and_serves_wss_with_a_verified_certificate(daemon_factory, certificate):
    cert, key = certificate
    hub = daemon_factory(tls_config(cert, key))
    assert hub.start_line == f"listening on https://127.0.0.1:{hub.port}"
    assert hub.url == f"wss://127.0.0.1:{hub.port}/ws"
    with ws_connect(hub.url, ssl=verifying_context(cert), subprotocols=["reactorhub.v1"], proxy=None,
                    open_timeout=15) as ws:
        hello = json.loads(ws.recv(15))
        assert (hello["type"], ws.subprotocol) == ("hello", "reactorhub.v1")
        assert ws.socket.version() in ("TLSv1.2", "TLSv1.3")
        # The client offered permessage-deflate; a TLS port declines it (docs/protocol.md).
        assert ws.response.headers.get("Sec-WebSocket-Extensions") is None
        ws.send(json.dumps({"type": "join", "reactor": "doc/tls", "ref": 1}))
        assert json.loads(ws.recv(15))["type"] == "snapshot"
        ws.send(json.dumps({"type": "action", "reactor": "doc/tls", "action": {"type": "set", "path": "/s", "value": "wss"}, "ref": 2}))
        assert json.loads(ws.recv(15)) == {"type": "ack", "reactor": "doc/tls", "ref": 2, "version": 0, "applied": 1}
        patch = json.loads(ws.recv(15))
        assert (patch["type"], patch["version"], patch["patch"]) == ("patch", 1, [{"op": "add", "path": "/s", "value": "wss"}])
    assert http("GET", f"{hub.http_url}/healthz") == (200, "ok\n")


def test_tls13_sessions_get_no_tickets(daemon_factory, certificate):
    # lws 4.1.6 on libuv left one TLS 1.3 session in 500 to 15,000 (by run) whose server had
    # sent its session tickets with its request read and unanswered until lws' 10 s timeout;
    # the daemon issues no TLS 1.3 tickets (docs/security.md "TLS"). TLS 1.2 keeps them.
    cert, key = certificate
    hub = daemon_factory(tls_config(cert, key))
    request = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    for version, tickets in ((ssl.TLSVersion.TLSv1_3, False), (ssl.TLSVersion.TLSv1_2, True)):
        context = verifying_context(cert)
        context.minimum_version = context.maximum_version = version
        with socket.create_connection(("127.0.0.1", hub.port), timeout=15) as raw, \
                context.wrap_socket(raw, server_hostname="localhost") as tls:
            tls.sendall(request)
            response = b""
            while chunk := tls.recv(4096):
                response += chunk
            assert response.startswith(b"HTTP/1.1 200") and response.endswith(b"ok\n")
            assert (tls.version(), tls.session.has_ticket) == (version.name.replace("v1_", "v1."), tickets)


def test_tls_connections_in_a_row_are_all_answered(daemon_factory, certificate):
    # 2,000 TLS 1.3 WebSocket sessions one after the other, each read to its snapshot (with
    # tickets on, a run of this test failed in one try of two: the test above says why).
    cert, key = certificate
    hub = daemon_factory(tls_config(cert, key, limits={"tlsHandshakesPerSecond": 100000, "tlsHandshakeBurst": 100000}))
    context = verifying_context(cert)
    unanswered = []
    for n in range(2000):
        try:
            with ws_connect(hub.url, ssl=context, subprotocols=["reactorhub.v1"], proxy=None, open_timeout=30) as ws:
                assert json.loads(ws.recv(30))["type"] == "hello"
                ws.send(json.dumps({"type": "join", "reactor": f"doc/row-{n % 20}", "ref": 1}))
                assert json.loads(ws.recv(30))["type"] == "snapshot"
        except Exception as error:  # a stalled session ends at lws' timeout, in one error or another
            unanswered.append((n, repr(error)))
    assert unanswered == []


def test_websocat_speaks_wss_with_k(daemon_factory, certificate):
    cert, key = certificate
    hub = daemon_factory(tls_config(cert, key))
    websocat = subprocess.Popen(["websocat", "-k", "--text", hub.url], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(raw.decode().rstrip("\n")) for raw in websocat.stdout], daemon=True).start()
    try:
        assert json.loads(lines.get(timeout=15))["type"] == "hello"
        websocat.stdin.write(b'{"type":"ping","ref":"p"}\n')
        websocat.stdin.flush()
        assert lines.get(timeout=15) == '{"type":"pong","ref":"p"}'
    finally:
        websocat.kill()
        websocat.wait()


def test_websocat_without_k_refuses_the_self_signed_certificate(daemon_factory, certificate):
    cert, key = certificate
    hub = daemon_factory(tls_config(cert, key))
    result = subprocess.run(["websocat", "--text", "-1", hub.url], input=b"", capture_output=True, timeout=30)
    assert result.returncode != 0 and result.stdout == b""


def test_plain_ws_to_the_tls_port_gets_no_websocket(daemon_factory, certificate):
    cert, key = certificate
    hub = daemon_factory(tls_config(cert, key))
    plain = f"ws://127.0.0.1:{hub.port}/ws"
    for _ in range(3):
        with pytest.raises((InvalidHandshake, InvalidMessage, ConnectionError, EOFError, OSError)):
            Client(plain, secure=False, timeout=10)
    with pytest.raises(Exception):
        http("GET", f"http://127.0.0.1:{hub.port}/healthz")
    # The daemon goes on serving WSS.
    assert Client(hub.url).ping()["type"] == "pong"


def test_tls_and_auth_together(daemon_factory, certificate):
    cert, key = certificate
    hub = daemon_factory(auth_config(tls={"certFile": str(cert), "keyFile": str(key)}))
    client = Client(hub.url, token=token("alice", read=["doc/*"], act=[]))
    assert client.hello["user"] == "alice"
    assert client.join("doc/tls-auth")["type"] == "snapshot"
    assert client.act("doc/tls-auth", {"type": "set", "path": "/x", "value": 1})["code"] == "forbidden"


def test_relative_tls_paths_are_resolved_against_the_config_folder(tmp_path, certificate):
    # The config is written to tmp_path, beside tls/; the daemon runs from the repository root.
    hub = Daemon(base_config(tls={"certFile": "tls/server-cert.pem", "keyFile": "tls/server-key.pem"}),
                 tmp_path, "tls-relative")
    try:
        assert hub.secure and Client(hub.url).ping()["type"] == "pong"
    finally:
        hub.stop()


def start_failure(tmp_path, tls: dict) -> tuple[int, list[str]]:
    config = tmp_path / "bad-tls.json"
    config.write_text(json.dumps(base_config(tls=tls)))
    result = subprocess.run([str(BINARY), "--config", str(config), "--port", "0"], cwd=ROOT,
                            capture_output=True, timeout=30)
    assert result.stdout == b""  # no listening line
    return result.returncode, result.stderr.decode().splitlines()


def test_a_missing_file_stops_the_start_with_exit_2_naming_the_key(tmp_path, certificate):
    cert, key = certificate
    status, lines = start_failure(tmp_path, {"certFile": str(tmp_path / "absent-cert.pem"), "keyFile": str(key)})
    assert status == 2 and len(lines) == 1 and "tls.certFile" in lines[0] and "absent-cert.pem" in lines[0], lines
    status, lines = start_failure(tmp_path, {"certFile": str(cert), "keyFile": str(tmp_path / "absent-key.pem")})
    assert status == 2 and len(lines) == 1 and "tls.keyFile" in lines[0] and "absent-key.pem" in lines[0], lines
    status, lines = start_failure(tmp_path, {"certFile": str(cert)})
    assert status == 2 and len(lines) == 1 and "tls.keyFile" in lines[0], lines


def test_a_key_that_is_not_the_certificates_stops_the_start_with_exit_2_naming_the_key(tmp_path, certificate):
    cert, _ = certificate
    other_key, _ = rsa_key_pair(tmp_path, "stranger")
    status, lines = start_failure(tmp_path, {"certFile": str(cert), "keyFile": str(other_key)})
    assert status == 2 and lines == [
        f"reactorhub: tls.keyFile: {other_key} is not the private key of the certificate {cert}"], lines


def test_files_that_are_not_pem_stop_the_start_naming_the_key(tmp_path, certificate):
    cert, key = certificate
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("not a certificate\n")
    status, lines = start_failure(tmp_path, {"certFile": str(garbage), "keyFile": str(key)})
    assert status == 2 and lines == [f"reactorhub: tls.certFile: {garbage} holds no PEM certificate"], lines
    status, lines = start_failure(tmp_path, {"certFile": str(cert), "keyFile": str(garbage)})
    assert status == 2 and len(lines) == 1 and lines[0].startswith(f"reactorhub: tls.keyFile: {garbage} holds no PEM private key"), lines


def test_alpn_settles_on_http_1_1_even_when_h2_is_offered_first(daemon_factory, certificate):
    # Regression: lws offered h2 by default; browsers took it and the page, the HTTP endpoints
    # and the WebSocket upgrade (all written for HTTP/1.1) failed over https.
    import socket
    cert, key = certificate
    hub = daemon_factory(tls_config(cert, key))
    context = verifying_context(cert)
    context.set_alpn_protocols(["h2", "http/1.1"])
    with socket.create_connection(("127.0.0.1", hub.port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            assert tls.selected_alpn_protocol() == "http/1.1"
            tls.sendall(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{hub.port}\r\nConnection: close\r\n\r\n".encode())
            answer = b""
            while chunk := tls.recv(4096):
                answer += chunk
    assert answer.startswith(b"HTTP/1.1 200 OK\r\n") and answer.endswith(b"\r\n\r\nok\n")
