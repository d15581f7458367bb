"""HTTP stacks the pack service could stand on, each answering the same JSON echo (parse the body, write
``{v, kind: result, output}``), for ``candidates.mjs`` to drive. How the stack of ``kindgi.pack.serving.http``
was chosen (docs/benchmarks/python.md). uvicorn is not a dependency of the SDK: ``pip install uvicorn`` to run
its two candidates.

Usage: python candidates.py <stack> <port>; stacks: httptools, httptools-uvloop, streams, streams-uvloop,
uvicorn-httptools-uvloop, uvicorn-h11.
"""

import asyncio
import json
import sys

mode = sys.argv[1]
PORT = int(sys.argv[2])


def work(body: bytes) -> bytes:
    msg = json.loads(body)
    return json.dumps({"v": 2, "kind": "result", "output": msg["input"]}, separators=(",", ":")).encode()


HDR = b"HTTP/1.1 200 OK\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: %d\r\nkindgi-duration-ms: 0\r\nkindgi-artifact-version: x\r\n\r\n"

if mode in ("httptools", "httptools-uvloop"):
    import httptools

    class P(asyncio.Protocol):
        def connection_made(self, t):
            self.t = t
            self.p = httptools.HttpRequestParser(self)
            self.body = []

        def on_message_begin(self):
            self.body = []

        def on_url(self, url):
            self.url = url

        def on_header(self, n, v):
            pass

        def on_body(self, b):
            self.body.append(b)

        def on_message_complete(self):
            out = work(b"".join(self.body))
            self.t.write(HDR % len(out) + out)

        def data_received(self, d):
            try:
                self.p.feed_data(d)
            except Exception:
                self.t.close()

    if mode == "httptools-uvloop":
        import uvloop

        uvloop.install()

    async def main():
        loop = asyncio.get_running_loop()
        srv = await loop.create_server(P, "127.0.0.1", PORT)
        print("ready", flush=True)
        await srv.serve_forever()

    asyncio.run(main())
elif mode in ("streams", "streams-uvloop"):
    if mode == "streams-uvloop":
        import uvloop

        uvloop.install()

    async def handle(r, w):
        while True:
            head = await r.readuntil(b"\r\n\r\n")
            n = 0
            for line in head.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    n = int(line[15:])
            body = await r.readexactly(n)
            out = work(body)
            w.write(HDR % len(out) + out)

    async def main():
        srv = await asyncio.start_server(handle_safe, "127.0.0.1", PORT)
        print("ready", flush=True)
        await srv.serve_forever()

    async def handle_safe(r, w):
        try:
            await handle(r, w)
        except Exception:
            w.close()

    asyncio.run(main())
elif mode.startswith("uvicorn"):
    import uvicorn

    async def app(scope, receive, send):
        if scope["type"] != "http":
            return
        chunks = []
        while True:
            m = await receive()
            chunks.append(m.get("body", b""))
            if not m.get("more_body"):
                break
        out = work(b"".join(chunks))
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"application/json; charset=utf-8"),
                    (b"content-length", str(len(out)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": out})

    http = "h11" if mode == "uvicorn-h11" else "httptools"
    loop = "uvloop" if "uvloop" in mode else "asyncio"
    print("ready", flush=True)
    uvicorn.run(app, host="127.0.0.1", port=PORT, http=http, loop=loop, log_level="warning", access_log=False)
