"""HTTP/1.1 for the pack service: an ``asyncio.Protocol`` around httptools' C parser (llhttp), chosen by
measurement (docs/benchmarks/python.md): uvicorn with httptools costs about 2.5 times the CPU per call of
this, uvicorn with h11 about 9 times.

Replies on one connection go out in request order, whatever order their calls finish in."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

import httptools

JSON_TYPE = b"application/json; charset=utf-8"
_REASONS = {
    100: b"Continue",
    200: b"OK",
    400: b"Bad Request",
    401: b"Unauthorized",
    404: b"Not Found",
    405: b"Method Not Allowed",
    413: b"Payload Too Large",
    415: b"Unsupported Media Type",
    500: b"Internal Server Error",
    503: b"Service Unavailable",
}


def encode_reply(status: int, body: bytes, headers: list[tuple[bytes, bytes]], keep_alive: bool) -> bytes:
    lines = [b"HTTP/1.1 %d %s" % (status, _REASONS.get(status, b"Unknown")), b"content-type: " + JSON_TYPE]
    lines.append(b"content-length: %d" % len(body))
    lines.extend(name + b": " + value for name, value in headers)
    if not keep_alive:
        lines.append(b"connection: close")
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


class Request:
    """What the service sees of a request: its method, raw URL, path and (lower-cased) headers."""

    __slots__ = ("headers", "method", "path", "url")

    def __init__(self, method: str, url: str, headers: dict[str, str]) -> None:
        self.method = method
        self.url = url
        self.path = url.split("?", 1)[0]
        self.headers = headers


class Reply:
    """A reply slot: filled once (``send``), written when every earlier reply on its connection is."""

    __slots__ = ("_conn", "data", "dropped", "keep_alive")

    def __init__(self, conn: Connection, keep_alive: bool) -> None:
        self._conn = conn
        self.keep_alive = keep_alive
        self.data: bytes | None = None
        self.dropped = False

    @property
    def closed(self) -> bool:
        return self._conn.closed

    def send(self, status: int, body: bytes, headers: list[tuple[bytes, bytes]] | None = None) -> None:
        if self.data is not None or self.dropped:
            return
        self.data = encode_reply(status, body, headers or [], self.keep_alive)
        self._conn.flush()

    def release(self, sink: BodySink) -> None:
        """The call reading through this slot is over: its connection stops telling it of a close."""
        self._conn.forget(sink)

    def drop(self) -> None:
        """No reply will come (the caller left): later replies must not wait for this one."""
        self.dropped = True
        self._conn.flush()


class BodySink(Protocol):
    def on_body(self, chunk: bytes) -> None: ...
    def on_complete(self) -> None: ...
    def on_disconnect(self) -> None: ...


class Handler(Protocol):
    def open(self, request: Request, reply: Reply) -> BodySink | None:
        """Answers at once through ``reply`` (returns ``None``) or returns what takes the body."""


class Connection(asyncio.Protocol):
    """One client connection."""

    def __init__(self, handler: Handler, on_close: Callable[[Connection], None]) -> None:
        self._handler = handler
        self._on_close = on_close
        self._transport: asyncio.Transport | None = None
        self._parser = httptools.HttpRequestParser(self)
        self._replies: deque[Reply] = deque()
        self._sinks: list[BodySink] = []
        self._url = b""
        self._headers: dict[str, str] = {}
        self._sink: BodySink | None = None
        self.closed = False
        self.idle = True

    # asyncio.Protocol
    def connection_made(self, transport: Any) -> None:
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._fail(400, b'{"error":"Upgrades are not supported"}')
        except httptools.HttpParserError:
            self._fail(400, b'{"error":"Bad request"}')

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        sinks, self._sinks = self._sinks, []
        for sink in sinks:
            sink.on_disconnect()
        self._on_close(self)

    # httptools callbacks
    def on_message_begin(self) -> None:
        self.idle = False
        self._url = b""
        self._headers = {}

    def on_url(self, url: bytes) -> None:
        self._url += url

    def on_header(self, name: bytes, value: bytes) -> None:
        key = name.decode("latin-1").lower()
        text = value.decode("latin-1")
        # A repeated header is kept joined, as node:http does; the token check then fails, as it should.
        self._headers[key] = f"{self._headers[key]}, {text}" if key in self._headers else text

    def on_headers_complete(self) -> None:
        parser = self._parser
        request = Request(parser.get_method().decode("latin-1"), self._url.decode("latin-1"), self._headers)
        reply = Reply(self, parser.should_keep_alive())
        self._replies.append(reply)
        self._sink = self._handler.open(request, reply)
        if self._sink is not None:
            self._sinks.append(self._sink)
            if self._headers.get("expect", "").lower() == "100-continue" and self._transport is not None:
                self._transport.write(b"HTTP/1.1 100 Continue\r\n\r\n")

    def on_body(self, body: bytes) -> None:
        if self._sink is not None:
            self._sink.on_body(body)

    def on_message_complete(self) -> None:
        self.idle = True
        sink, self._sink = self._sink, None
        if sink is not None:
            sink.on_complete()

    # replies
    def forget(self, sink: BodySink) -> None:
        if sink in self._sinks:
            self._sinks.remove(sink)

    def flush(self) -> None:
        transport = self._transport
        while self._replies and (self._replies[0].data is not None or self._replies[0].dropped):
            reply = self._replies.popleft()
            if reply.data is None or transport is None or self.closed:
                continue
            transport.write(reply.data)
            if not reply.keep_alive:
                self.closed = True
                transport.close()
                return

    def close(self) -> None:
        if self._transport is not None and not self.closed:
            self._transport.close()

    def _fail(self, status: int, body: bytes) -> None:
        if self._transport is not None and not self.closed:
            self._transport.write(encode_reply(status, body, [], keep_alive=False))
            self._transport.close()
        self.closed = True
