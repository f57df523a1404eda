"""A scripted stand-in for the service on a real loopback socket, for the timing and failure
cases a live api cannot be made to produce on demand: silence, 429 with a given Retry-After,
malformed frames, gzip bodies, exact request counts.

It answers ``/{ws}/v1/sync`` from ``snapshot`` (ETag ``"r{revision}"``, 304 on a match) and
``/{ws}/v1/stream`` with a :class:`FakeStream` the test drives; ``respond`` answers anything
before the defaults. Every request is recorded.
"""

from __future__ import annotations

import gzip
import json
import queue
import select
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

SK = "svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN"
PK = "svp_y6vK111fY0yuOhDRk1XEmSyVZEMEhEmTyI1nZ71t"
WORKSPACE = "acme"


@dataclass
class RecordedRequest:
    method: str
    path: str
    """Below the workspace: ``/v1/sync``."""
    headers: dict[str, str]
    """Lower-case names."""
    body: str | None


@dataclass
class FakeResponse:
    status: int
    body: Any = None
    """JSON-encoded unless it is bytes or str."""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    """Seconds to wait before answering (a server that is slow or never answers)."""


def problem(status: int, code: str, **headers: str) -> FakeResponse:
    return FakeResponse(
        status,
        {"type": "about:blank", "title": code, "status": status, "code": code},
        {"Content-Type": "application/problem+json", **headers},
    )


_END = object()


class FakeStream:
    """One open ``/v1/stream`` answer: push SSE text to the client, or end it."""

    def __init__(self, request: RecordedRequest) -> None:
        self.request = request
        self.closed = threading.Event()
        """Set once the connection is gone (the client left, or ``end()``)."""
        self._outbox: queue.Queue[object] = queue.Queue()

    def send(self, text: str) -> None:
        self._outbox.put(text.encode())

    def event(self, event: str, data: Any, id: int | None = None) -> None:
        id_line = "" if id is None else f"id: {id}\n"
        self.send(f"event: {event}\n{id_line}data: {json.dumps(data)}\n\n")

    def end(self) -> None:
        """The server ends the response."""
        self._outbox.put(_END)

    def next_item(self, timeout: float) -> object:
        try:
            return self._outbox.get(timeout=timeout)
        except queue.Empty:
            return None


class FakeService:
    def __init__(self) -> None:
        self.snapshot: dict[str, Any] = {
            "revision": 1,
            "key_type": "sk",
            "configs": {},
            "flags": {},
            "secrets": {},
        }
        self.requests: list[RecordedRequest] = []
        self.streams: list[FakeStream] = []
        self.respond: Callable[[RecordedRequest], FakeResponse | None] | None = None
        self.stream_status: FakeResponse | None = None
        """Answers new streams with this (a 401 to stop reconnects, a 500 to fail)."""
        self.auto_resync = True
        """New streams send ``retry`` and ``resync`` at the snapshot's revision at once."""
        self.gzip_sync = False
        """Compress ``/v1/sync`` bodies when the client accepts gzip."""
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/{WORKSPACE}"

    def count(self, path: str) -> int:
        with self._lock:
            return sum(1 for r in self.requests if r.path == path)

    def requests_to(self, path: str) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path == path]

    @property
    def last_stream(self) -> FakeStream:
        return self.streams[-1]

    def wait_for_streams(self, n: int, timeout: float = 5.0) -> FakeStream:
        """Waits until ``n`` streams were opened; the last one."""
        wait_until(lambda: len(self.streams) >= n, timeout)
        return self.streams[n - 1]

    def close(self) -> None:
        for stream in self.streams:
            stream.end()
        self._server.shutdown()
        self._server.server_close()

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)


def wait_until(condition: Callable[[], bool], timeout: float = 5.0, step: float = 0.01) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not true within {timeout} s")
        time.sleep(step)


@contextmanager
def fake_service() -> Iterator[FakeService]:
    service = FakeService()
    try:
        yield service
    finally:
        service.close()


def _handler(service: FakeService) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            self._handle()

        def do_POST(self) -> None:
            self._handle()

        def do_PUT(self) -> None:
            self._handle()

        def do_DELETE(self) -> None:
            self._handle()

        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode() if length else None
            prefix = f"/{WORKSPACE}"
            path = self.path[len(prefix) :] if self.path.startswith(prefix) else self.path
            headers = {k.lower(): v for k, v in self.headers.items()}
            request = RecordedRequest(self.command, path, headers, body)
            service._record(request)
            answer = service.respond(request) if service.respond is not None else None
            if answer is None and path == "/v1/stream":
                self._stream(request)
                return
            if answer is None:
                answer = self._default(request)
            if answer.delay:
                time.sleep(answer.delay)
            self._send(answer, request)

        def _default(self, request: RecordedRequest) -> FakeResponse:
            if request.path != "/v1/sync":
                return problem(404, "not_found")
            etag = f'"r{service.snapshot["revision"]}"'
            if request.headers.get("if-none-match") == etag:
                return FakeResponse(304, None, {"ETag": etag})
            return FakeResponse(200, service.snapshot, {"ETag": etag})

        def _send(self, answer: FakeResponse, request: RecordedRequest) -> None:
            body = answer.body
            if body is None:
                data = b""
            elif isinstance(body, bytes):
                data = body
            elif isinstance(body, str):
                data = body.encode()
            else:
                data = json.dumps(body).encode()
            headers = dict(answer.headers)
            if data and not any(k.lower() == "content-type" for k in headers):
                headers["Content-Type"] = "application/json"
            accepts = request.headers.get("accept-encoding", "")
            if service.gzip_sync and data and request.path == "/v1/sync" and "gzip" in accepts:
                data = gzip.compress(data)
                headers["Content-Encoding"] = "gzip"
            self.send_response(answer.status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, request: RecordedRequest) -> None:
            if service.stream_status is not None:
                self._send(service.stream_status, request)
                return
            stream = FakeStream(request)
            if service.auto_resync:
                stream.send("retry: 1000\n\n")
                stream.event("resync", {"revision": service.snapshot["revision"]})
            service.streams.append(stream)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.flush()
            try:
                while True:
                    item = stream.next_item(0.02)
                    if item is _END:
                        self.wfile.write(b"0\r\n\r\n")
                        self.wfile.flush()
                        self.close_connection = True
                        break
                    if isinstance(item, bytes):
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(item), item))
                        self.wfile.flush()
                    elif _peer_closed(self.connection):
                        self.close_connection = True
                        break
            except OSError:
                self.close_connection = True
            finally:
                stream.closed.set()

    return Handler


def _peer_closed(sock: socket.socket) -> bool:
    readable, _, _ = select.select([sock], [], [], 0)
    if not readable:
        return False
    try:
        return sock.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True
