"""The scaffolding of the test proxies: an asyncio server on a free loopback port, run in a
thread of its own, that hands each accepted connection to `_accept`; `close()` stops it."""
import asyncio
import threading


class ThreadedProxy:
    def __init__(self, target_port: int):
        self.target_port = target_port
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
        raise NotImplementedError

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
