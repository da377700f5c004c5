"""A proxy on a free loopback port that passes HTTP through to the daemon and refuses every
WebSocket upgrade with 403, as some corporate proxies do: a page served through it cannot open
a WebSocket, while its fetches and event streams work. Runs an asyncio loop in a thread of its
own; `refused` counts the upgrades it turned away."""
import asyncio

from threaded_proxy import ThreadedProxy


class WebSocketBlockingProxy(ThreadedProxy):
    def __init__(self, target_port: int):
        self.refused = 0
        super().__init__(target_port)

    async def _accept(self, client_reader, client_writer):
        try:
            head = await client_reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            client_writer.close()
            return
        if b"\nupgrade: websocket" in head.lower():
            self.refused += 1
            client_writer.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 27\r\nConnection: close\r\n\r\nWebSocket is not allowed.\r\n")
            await client_writer.drain()
            client_writer.close()
            return
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            client_writer.close()
            return
        upstream_writer.write(head)
        await asyncio.gather(self._pipe(client_reader, upstream_writer), self._pipe(upstream_reader, client_writer))

    @staticmethod
    async def _pipe(reader, writer):
        try:
            while chunk := await reader.read(65536):
                writer.write(chunk)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        try:
            writer.close()
        except (ConnectionError, OSError):
            pass
