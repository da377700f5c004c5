"""A TCP proxy on a free loopback port that adds the same latency to every chunk in both
directions (bytes keep their order), for pages served through a slow network: the page, its
scripts and its WebSocket all pass through it. Runs an asyncio loop in a thread of its own."""
import asyncio

from threaded_proxy import ThreadedProxy


class DelayProxy(ThreadedProxy):
    def __init__(self, target_port: int, delay_s: float):
        self.delay_s = delay_s
        super().__init__(target_port)

    async def _accept(self, client_reader, client_writer):
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(self._pipe(client_reader, upstream_writer), self._pipe(upstream_reader, client_writer))

    async def _pipe(self, reader, writer):
        """Reads chunks as they come and writes each `delay_s` after it was read."""
        queue = asyncio.Queue()

        async def deliver():
            while True:
                due, chunk = await queue.get()
                await asyncio.sleep(max(0.0, due - self.loop.time()))
                if chunk is None:
                    break
                writer.write(chunk)
                await writer.drain()
            writer.close()

        delivering = asyncio.ensure_future(deliver())
        try:
            while chunk := await reader.read(65536):
                queue.put_nowait((self.loop.time() + self.delay_s, chunk))
        except (ConnectionError, OSError):
            pass
        queue.put_nowait((self.loop.time() + self.delay_s, None))
        try:
            await delivering
        except (ConnectionError, OSError):
            pass
