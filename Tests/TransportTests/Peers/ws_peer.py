"""A WebSocket peer for the WebSocketClient tests: an independent implementation (Python's
websockets) that the libwebsockets client must interoperate with.

    python3 ws_peer.py [--tls]

Prints `listening PORT` (and, with --tls, `certificate PATH` first: a self-signed
certificate for 127.0.0.1 and localhost) and serves until killed. The request path picks
the behaviour:

    /echo          echoes every text message; these messages are commands instead:
                     headers           -> the request headers as a JSON object (lower-case names)
                     big:N             -> one message of N bytes, sent in fragments of 4096
                     binary            -> a binary frame
                     close:CODE:REASON -> closes with that status
                     lastclose         -> "CODE REASON" of the last close frame a client sent
    /refuse/STATUS answers the upgrade with HTTP STATUS and the body "refused"
    /slow          waits 5 s before answering the upgrade
"""
import asyncio
import http
import json
import os
import ssl
import subprocess
import sys
import tempfile

from websockets.asyncio.server import serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Response

last_close = ["none"]


async def process_request(connection, request):
    path = request.path
    if path.startswith("/refuse/"):
        status = http.HTTPStatus(int(path.rsplit("/", 1)[1]))
        return Response(status.value, status.phrase, Headers([("Content-Length", "8")]), b"refused\n")
    if path == "/slow":
        await asyncio.sleep(5)
    return None


async def handler(websocket):
    try:
        async for message in websocket:
            if isinstance(message, bytes):
                continue
            if message == "headers":
                headers = {name.lower(): value for name, value in websocket.request.headers.raw_items()}
                await websocket.send(json.dumps(headers))
            elif message.startswith("big:"):
                size = int(message[4:])
                payload = "".join(chr(ord("a") + i % 26) for i in range(size))
                await websocket.send([payload[i:i + 4096] for i in range(0, size, 4096)])
            elif message == "binary":
                await websocket.send(b"\x00\x01\x02")
            elif message.startswith("close:"):
                _, code, reason = message.split(":", 2)
                await websocket.close(int(code), reason)
            elif message == "lastclose":
                await websocket.send(last_close[0])
            else:
                await websocket.send(message)
    except ConnectionClosed:
        pass
    finally:
        received = websocket.protocol.close_rcvd
        if received is not None:
            last_close[0] = f"{received.code} {received.reason}"


def select_subprotocol(connection, subprotocols):
    return "reactorhub.v1" if "reactorhub.v1" in subprotocols else None


def tls_context():
    folder = tempfile.mkdtemp(prefix="ws-peer-")
    cert, key = os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
         "-keyout", key, "-out", cert],
        check=True, capture_output=True,
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    print(f"certificate {cert}", flush=True)
    return context


async def main():
    context = tls_context() if "--tls" in sys.argv else None
    async with serve(handler, "127.0.0.1", 0, select_subprotocol=select_subprotocol, process_request=process_request,
                     ssl=context, max_size=None,
                     # No time limits of the peer's own: on a loaded machine the client's
                     # handshake (TLS too) was seen to take longer than the default 10 s.
                     open_timeout=None, ping_interval=None, close_timeout=None) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"listening {port}", flush=True)
        await asyncio.Future()


asyncio.run(main())
