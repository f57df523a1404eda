"""A stand-in for the api's side of workload identity, on a real loopback socket: the exchange
(``POST /acme/v1/auth/token``, per the contract) minting checksummed keys that expire, and
``/v1/sync`` and ``/v1/stream`` accepting only live keys — a stream ends when its key expires, as
the api's do, and resumes after ``Last-Event-ID``. Beside it, the platforms' token sources: a
GCP metadata server (``/gcp/...``) and an Azure instance metadata service (``/azure/...``).

For the timings a real api cannot be made to produce on demand: keys living a few seconds,
exchanges failing on cue. The end-to-end tests run the same flows against the real api.
"""

from __future__ import annotations

import json
import queue
import secrets
import threading
import time
import zlib
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable
from urllib.parse import parse_qs, urlsplit

BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
IDENTITY_ID = "id-0f8c7a52"


def mint_key() -> str:
    """A secret key of the contract's shape with a correct checksum."""
    body = "svs_" + "".join(secrets.choice(BASE62) for _ in range(34))
    crc, digits = zlib.crc32(body.encode()), ""
    for _ in range(6):
        crc, digit = divmod(crc, 62)
        digits = BASE62[digit] + digits
    return body + digits


@dataclass
class Verdict:
    """How the exchange answers: a key (``status`` 200), or that error."""

    status: int = 200
    code: str = ""
    detail: str = ""
    retry_after: int | None = None


OK = Verdict()


@dataclass
class Seen:
    path: str
    api_key: str
    last_event_id: str | None


@dataclass
class _Stream:
    api_key: str
    outbox: queue.Queue[str | None] = field(default_factory=queue.Queue)


class ExchangeService:
    def __init__(self) -> None:
        self.ttl = 2.0
        """Lifetime of minted keys in seconds (the real api's minimum is 60: here it is shorter)."""
        self.verify: Callable[[dict[str, Any]], Verdict] = lambda body: OK
        self.exchanges: list[dict[str, Any]] = []
        self.exchanged_at: list[float] = []
        self.seen: list[Seen] = []
        self.refused = 0
        """Sync and stream requests answered 401."""
        self.metadata_requests: list[tuple[str, dict[str, str]]] = []
        self.gcp_token = "gcp-id-token"
        self.azure_token = "azure-access-token"
        self.keys: dict[str, float] = {}
        """Minted keys (in order) to their expiry, ``time.monotonic()``."""
        self._lock = threading.Lock()
        self._revision = 1
        self._changes: list[tuple[int, str, Any]] = []
        self._configs: dict[str, Any] = {}
        self._streams: list[_Stream] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        ).start()

    @property
    def origin(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def base_url(self) -> str:
        return f"{self.origin}/acme"

    @property
    def minted(self) -> list[str]:
        with self._lock:
            return list(self.keys)

    def set(self, key: str, value: Any) -> int:
        """Sets a config: a new revision, pushed to every open stream."""
        with self._lock:
            self._revision += 1
            change = (self._revision, key, value)
            self._changes.append(change)
            self._configs[key] = value
            for stream in self._streams:
                stream.outbox.put(_frame(change))
            return self._revision

    def revoke_all(self) -> None:
        """Every key minted so far stops working (the identity was changed): streams end."""
        with self._lock:
            for key in self.keys:
                self.keys[key] = 0.0
            for stream in self._streams:
                stream.outbox.put(None)

    def close(self) -> None:
        self.revoke_all()
        self._server.shutdown()
        self._server.server_close()

    def live(self, api_key: str) -> bool:
        with self._lock:
            return self.keys.get(api_key, 0.0) > time.monotonic()

    def exchange(self, body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
        with self._lock:
            self.exchanges.append(body)
            self.exchanged_at.append(time.monotonic())
        if body.get("identity_id") != IDENTITY_ID:
            return _problem(401, "unauthorized", "identity")
        verdict = self.verify(body)
        if verdict.status != 200:
            headers = (
                {} if verdict.retry_after is None else {"Retry-After": str(verdict.retry_after)}
            )
            status, problem, _ = _problem(verdict.status, verdict.code, verdict.detail)
            return status, problem, headers
        key = mint_key()
        with self._lock:
            self.keys[key] = time.monotonic() + self.ttl
        expires_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + self.ttl))
        return (
            200,
            {"key": key, "kind": "secret", "expires_at": expires_at, "expires_in": self.ttl},
            {},
        )

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {
                "revision": self._revision,
                "key_type": "sk",
                "configs": dict(self._configs),
                "flags": {},
                "secrets": {},
            }

    def open_stream(self, api_key: str, after: int) -> _Stream:
        stream = _Stream(api_key)
        with self._lock:
            for change in self._changes:
                if change[0] > after:
                    stream.outbox.put(_frame(change))
            self._streams.append(stream)
        return stream

    def close_stream(self, stream: _Stream) -> None:
        with self._lock:
            if stream in self._streams:
                self._streams.remove(stream)

    def expiry_of(self, api_key: str) -> float:
        with self._lock:
            return self.keys.get(api_key, 0.0)


def _frame(change: tuple[int, str, Any]) -> str:
    revision, key, value = change
    data = {"revision": revision, "kind": "config", "key": key, "op": "upsert", "value": value}
    return f"event: change\nid: {revision}\ndata: {json.dumps(data)}\n\n"


def _problem(
    status: int, code: str, detail: str = ""
) -> tuple[int, dict[str, Any], dict[str, str]]:
    body = {"type": f"urn:svc:problem:{code}", "title": code, "status": status, "code": code}
    if detail:
        body["detail"] = detail
    return status, body, {}


def _handler(service: ExchangeService) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            if url.path.startswith(("/gcp/", "/azure/")):
                self._metadata(url.path, parse_qs(url.query))
                return
            path = url.path.removeprefix("/acme")
            api_key = self.headers.get("X-Service-API-Key", "")
            last_event_id = self.headers.get("Last-Event-ID")
            service.seen.append(Seen(path, api_key, last_event_id))
            if not service.live(api_key):
                service.refused += 1
                self._json(*_problem(401, "unauthorized", "the key is not valid"))
            elif path == "/v1/sync":
                self._json(200, service.snapshot(), {})
            elif path == "/v1/stream":
                self._stream(api_key, int(last_event_id or 0))
            else:
                self._json(*_problem(404, "not_found"))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if self.path != "/acme/v1/auth/token":
                self._json(*_problem(404, "not_found"))
                return
            try:
                body = json.loads(raw)
            except ValueError:
                self._json(*_problem(400, "invalid_request", "the body is not JSON"))
                return
            self._json(*service.exchange(body))

        def _json(self, status: int, body: Any, headers: dict[str, str]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _text(self, status: int, text: str) -> None:
            data = text.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _metadata(self, path: str, query: dict[str, list[str]]) -> None:
            service.metadata_requests.append(
                (self.path, {k.lower(): v for k, v in self.headers.items()})
            )
            if path == "/gcp/computeMetadata/v1/instance/service-accounts/default/identity":
                if self.headers.get("Metadata-Flavor") != "Google" or "audience" not in query:
                    self._text(403, "Missing Metadata-Flavor:Google header.")
                else:
                    self._text(200, service.gcp_token)
            elif path == "/azure/metadata/identity/oauth2/token":
                if self.headers.get("Metadata") != "true" or "resource" not in query:
                    self._json(400, {"error": "invalid_request"}, {})
                else:
                    self._json(200, {"access_token": service.azure_token}, {})
            else:
                self._json(404, {"error": "not_found"}, {})

        def _stream(self, api_key: str, after: int) -> None:
            stream = service.open_stream(api_key, after)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self._chunk("retry: 1000\n\n")
            self.close_connection = True
            try:
                while time.monotonic() < service.expiry_of(api_key):
                    try:
                        item = stream.outbox.get(timeout=0.02)
                    except queue.Empty:
                        continue
                    if item is None:
                        break
                    self._chunk(item)
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except OSError:
                pass  # the client left
            finally:
                service.close_stream(stream)

        def _chunk(self, text: str) -> None:
            data = text.encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

    return Handler
