"""A TCP proxy on a free loopback port that adds the same latency to every chunk in both
directions (bytes keep their order), for pages served through a slow network: the page, its
scripts and its WebSocket all pass through it. Runs an asyncio loop in a thread of its own."""
import asyncio
import threading


class DelayProxy:
    def __init__(self, target_port: int, delay_s: float):
        self.target_port = target_port
        self.delay_s = delay_s
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(ready,), daemon=True)
        self.thread.start()
        ready.wait(10)
        self.url = f"http://127.0.0.1:{self.port}/"

    def _run(self, ready):
        asyncio.set_event_loop(self.loop)
        self.server = self.loop.run_until_complete(asyncio.start_server(self._accept, "127.0.0.1", 0))
        self.port = self.server.sockets[0].getsockname()[1]
        ready.set()
        self.loop.run_forever()

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

    def close(self):
        """Stops listening, ends every connection's tasks, then the loop."""
        async def stop():
            self.server.close()
            tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
