"""Helpers of the identity, rights, Origin and TLS suites (PROTOCOL.md "Identity and rights",
"Origin"; CONFIG.md `auth`, `admin`, `security`, `tls`).

- Keys and certificates are made by the `openssl` command line in the test's folder.
- Tokens are minted by PyJWT (`token(...)`), or assembled by hand (`raw_token(...)`) when a
  test needs what PyJWT will not write (duplicate claims, `alg: none`, odd encodings).
- `Client` is one WebSocket connection (websockets' sync client) that reads the `hello`,
  sends requests with a `ref` and returns the reply to that ref, keeping every other frame
  in `unsolicited`; `closed()` waits for the server's close and returns (code, reason).
- `refused(...)` opens an upgrade that must be refused and returns (status, body).
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import inspect
import itertools
import json
import pathlib
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from typing import Any

import jwt
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect as ws_connect

# websockets 16+ warns unless a directly returned connection is asked for explicitly.
_DIRECT = {"legacy": True} if "legacy" in inspect.signature(ws_connect).parameters else {}

from conftest import base_config

SECRET = "e2e-secret-0123456789abcdef0123456789abcdef0123456789abcdef0123"
ADMIN_TOKEN = "admin-e2e-token-7f3a"
SUBPROTOCOL = "reactorhub.v1"


# -- configuration ----------------------------------------------------------------------

def auth_config(auth: dict | None = None, **sections) -> dict:
    """A daemon configuration with an `auth` section (HS256 with SECRET unless `auth` says
    otherwise) and any other sections given (`admin`, `security`, `tls`, …)."""
    config = base_config()
    config["auth"] = {"hs256Secret": SECRET, **(auth or {})}
    config.update(sections)
    return config


# -- keys and certificates (openssl) ----------------------------------------------------

def openssl(*args: str, cwd: pathlib.Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=120)


def rsa_key_pair(folder: pathlib.Path, name: str = "rsa") -> tuple[pathlib.Path, pathlib.Path]:
    """An RSA 2048 private key and its public key (PEM), made by openssl."""
    private, public = folder / f"{name}-private.pem", folder / f"{name}-public.pem"
    openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", str(private), cwd=folder)
    openssl("pkey", "-in", str(private), "-pubout", "-out", str(public), cwd=folder)
    return private, public


def self_signed_certificate(folder: pathlib.Path, name: str = "server") -> tuple[pathlib.Path, pathlib.Path]:
    """A self-signed certificate for 127.0.0.1 and localhost and its key, made by `openssl req`."""
    cert, key = folder / f"{name}-cert.pem", folder / f"{name}-key.pem"
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
            "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", cwd=folder)
    return cert, key


def insecure_context() -> ssl.SSLContext:
    """A client TLS context that accepts the self-signed certificate of the test."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


# -- tokens -----------------------------------------------------------------------------

def token(sub: str | None = "alice", read=("*",), act=("*",), ttl: float = 3600, key: Any = SECRET,
          algorithm: str = "HS256", iat: Any = "now", headers: dict | None = None, **claims) -> str:
    """A token minted by PyJWT: `sub`, `exp` = now + ttl, `iat` = now (None: no iat), `rh`
    with `read`/`act` (None: no rh), plus any other claims."""
    now = int(time.time())
    payload: dict[str, Any] = {}
    if sub is not None:
        payload["sub"] = sub
    if ttl is not None:
        payload["exp"] = now + ttl
    if iat == "now":
        payload["iat"] = now
    elif iat is not None:
        payload["iat"] = iat
    if read is not None or act is not None:
        payload["rh"] = {"read": list(read or []), "act": list(act or [])}
    payload.update(claims)
    return jwt.encode(payload, key, algorithm=algorithm, headers=headers)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def raw_token(header: str | bytes, payload: str | bytes, secret: str = SECRET, private_key=None) -> str:
    """A compact JWS of exactly these header and payload texts, signed with HS256 (or RS256
    with `private_key`, a cryptography key): for what PyJWT will not write."""
    header_bytes = header.encode() if isinstance(header, str) else header
    payload_bytes = payload.encode() if isinstance(payload, str) else payload
    signing_input = f"{b64url(header_bytes)}.{b64url(payload_bytes)}".encode()
    if private_key is not None:
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import padding
        signature = private_key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
    else:
        signature = hmac.new(secret.encode(), signing_input, hashlib.sha256).digest()
    return f"{signing_input.decode()}.{b64url(signature)}"


def decode_payload(text: str) -> dict:
    """The claims of a token, unverified (for the tests' own bookkeeping)."""
    return jwt.decode(text, options={"verify_signature": False})


# -- WebSocket clients ------------------------------------------------------------------

class Client:
    """One connection. `token` goes in `?token=`, `bearer` in an Authorization header."""

    _names = itertools.count(1)

    def __init__(self, url: str, token: str | None = None, bearer: str | None = None,
                 headers: dict | None = None, secure: bool | None = None, timeout: float = 15):
        self.timeout = timeout
        if token is not None:
            url = f"{url}?token={token}"
        extra = dict(headers or {})
        if bearer is not None:
            extra["Authorization"] = f"Bearer {bearer}"
        context = insecure_context() if (secure if secure is not None else url.startswith("wss://")) else None
        self.ws = ws_connect(url, additional_headers=extra, subprotocols=[SUBPROTOCOL], ssl=context,
                             open_timeout=timeout, close_timeout=5, proxy=None, compression=None,
                             max_size=4 * 1024 * 1024, ping_interval=None, **_DIRECT)
        self.subprotocol = self.ws.subprotocol
        self.unsolicited: list[dict] = []
        self._refs = itertools.count(1)
        self.name = f"client{next(self._names)}"
        self.hello = self.recv()
        assert self.hello["type"] == "hello", self.hello

    def send(self, message: dict) -> None:
        self.ws.send(json.dumps(message))

    def recv(self, timeout: float | None = None) -> dict:
        return json.loads(self.ws.recv(timeout if timeout is not None else self.timeout))

    def request(self, message: dict, timeout: float | None = None) -> dict:
        """Sends `message` with a fresh ref; returns the reply with that ref (patches and
        pulses, which carry no ref, and unsolicited frames go to `unsolicited`)."""
        ref = f"{self.name}-{next(self._refs)}"
        self.send({**message, "ref": ref})
        deadline = time.monotonic() + (timeout if timeout is not None else self.timeout)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no reply to {message} within the timeout")
            frame = self.recv(remaining)
            if frame.get("ref") == ref:
                return frame
            self.unsolicited.append(frame)

    def next_unsolicited(self, predicate=lambda frame: True, timeout: float | None = None) -> dict:
        """The first frame (already received or next) that satisfies `predicate`; earlier
        ones that do not stay in `unsolicited`."""
        for index, frame in enumerate(self.unsolicited):
            if predicate(frame):
                return self.unsolicited.pop(index)
        deadline = time.monotonic() + (timeout if timeout is not None else self.timeout)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no such frame within the timeout")
            frame = self.recv(remaining)
            if predicate(frame):
                return frame
            self.unsolicited.append(frame)

    def join(self, address: str) -> dict:
        return self.request({"type": "join", "reactor": address})

    def act(self, address: str, action: Any) -> dict:
        return self.request({"type": "action", "reactor": address, "action": action})

    def auth(self, text: str) -> dict:
        return self.request({"type": "auth", "token": text})

    def ping(self) -> dict:
        return self.request({"type": "ping"})

    def closed(self, timeout: float | None = None) -> tuple[int | None, str | None]:
        """Waits for the server to close; returns its close code and reason. Frames that
        arrive before the close go to `unsolicited`."""
        deadline = time.monotonic() + (timeout if timeout is not None else self.timeout)
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError("the server did not close the connection")
                self.unsolicited.append(json.loads(self.ws.recv(remaining)))
        except ConnectionClosed as closed:
            rcvd = closed.rcvd
            return (rcvd.code, rcvd.reason) if rcvd is not None else (None, None)

    def is_open(self) -> bool:
        """True when a ping is answered (the connection is still usable)."""
        try:
            return self.ping()["type"] == "pong"
        except ConnectionClosed:
            return False

    def close(self) -> None:
        try:
            self.ws.close()
        except Exception:
            pass


def refused(url: str, token: str | None = None, bearer: str | None = None, headers: dict | None = None) -> tuple[int, str]:
    """Opens an upgrade that the server must refuse; returns the HTTP status and body."""
    try:
        client = Client(url, token=token, bearer=bearer, headers=headers)
    except InvalidStatus as refusal:
        return refusal.response.status_code, refusal.response.body.decode()
    client.close()
    raise AssertionError(f"the upgrade to {url} was accepted (hello {client.hello})")


def read_state(url: str, address: str, token_text: str | None = None) -> tuple[int, Any]:
    """(version, state) of `address` as a fresh, authorized connection sees it."""
    client = Client(url, token=token_text if token_text is not None else token("observer"))
    try:
        snapshot = client.join(address)
        assert snapshot["type"] == "snapshot", snapshot
        return snapshot["version"], snapshot["state"]
    finally:
        client.close()


# -- HTTP -------------------------------------------------------------------------------

def http(method: str, url: str, body: Any = None, bearer: str | None = None) -> tuple[int, str]:
    """One HTTP request; returns (status, body text), also for error statuses."""
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    request = urllib.request.Request(url, data=data, method=method)
    if bearer is not None:
        request.add_header("Authorization", f"Bearer {bearer}")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    context = insecure_context() if url.startswith("https://") else None
    try:
        with urllib.request.urlopen(request, timeout=15, context=context) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()
