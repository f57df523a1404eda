"""Requests to the service over httpx: the API key header, gzip, time limits, the end of every
request in flight on ``close()``, and the translation of problem+json answers into the client's
errors.

httpx's calls block in a socket read that no flag can interrupt; shutting the socket down does.
So the transport learns every socket it opens (httpcore's ``trace`` extension reports each new
connection) and ``close()`` shuts them all down: a request in flight then ends at once.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import socket
import ssl
import threading
import time
import weakref
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from email.utils import parsedate_to_datetime
from typing import Any, Callable, Literal
from urllib.parse import quote

import httpx

from ._errors import (
    ServiceAbAddonNotAvailableError,
    ServiceBillingError,
    ServiceError,
    ServiceNotFoundError,
    ServicePublicKeyError,
    ServiceQuarantinedError,
    ServiceRateLimitedError,
    ServiceUnauthorizedError,
)

USER_AGENT = "svc-client-python/0.5.0"

Operation = Literal["sync", "stream", "evaluateAB", "write"]
"""Which operation failed: decides how a 403 and a 429 read."""

_NEW_CONNECTION = ("connection.connect_tcp.complete", "connection.start_tls.complete")


class Transport:
    def __init__(self, base_url: str, api_key: str, request_timeout: float) -> None:
        self._base_url = base_url
        self._timeout = request_timeout
        headers = {"X-Service-API-Key": api_key, "User-Agent": USER_AGENT}
        self._http = httpx.Client(
            verify=_ssl_context(),
            headers={**headers, "Accept-Encoding": "gzip"},
            timeout=httpx.Timeout(request_timeout),
            follow_redirects=False,
        )
        # The stream opens a new connection each time (no keep-alive), so that each one is
        # reported by the trace and can be shut down by itself.
        self._stream_http = httpx.Client(
            verify=_ssl_context(),
            headers={**headers, "Accept-Encoding": "identity"},
            follow_redirects=False,
            limits=httpx.Limits(max_keepalive_connections=0),
        )
        self._sockets: weakref.WeakSet[socket.socket] = weakref.WeakSet()
        self._lock = threading.Lock()
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def rekey(self, api_key: str) -> None:
        """Sends ``api_key`` from now on (a workload identity's new key)."""
        self._http.headers["X-Service-API-Key"] = api_key
        self._stream_http.headers["X-Service-API-Key"] = api_key

    def send(
        self,
        method: str,
        path: str,
        headers: Mapping[str, str] | None = None,
        body: Any = None,
    ) -> httpx.Response:
        """Sends one request and reads the whole answer; a :class:`ServiceError` when none
        arrives (network failure, time limit, closed client)."""
        if self._closed:
            raise ServiceError("the client is closed")
        content = None if body is None else json.dumps(body).encode()
        request_headers = dict(headers or {})
        if content is not None:
            request_headers["Content-Type"] = "application/json"
        try:
            return self._http.request(
                method,
                self._base_url + path,
                headers=request_headers,
                content=content,
                extensions={"trace": self._trace},
            )
        except Exception as error:
            if self._closed:
                raise ServiceError("the client is closed") from error
            if isinstance(error, httpx.TimeoutException):
                raise ServiceError(
                    f"{method} {path} timed out after {self._timeout:g} s ({describe(error)})"
                ) from error
            raise ServiceError(f"{method} {path} failed: {describe(error)}") from error

    @contextmanager
    def open_stream(
        self,
        headers: Mapping[str, str],
        silence_timeout: float,
        on_socket: Callable[[socket.socket], None],
    ) -> Iterator[httpx.Response]:
        """Opens ``GET /v1/stream``; the answer's body is read by the caller. A read waits at
        most ``silence_timeout`` (then httpx.ReadTimeout). ``on_socket`` gets the connection's
        socket as soon as it exists, for the caller to shut it down."""
        if self._closed:
            raise ServiceError("the client is closed")

        def trace(event: str, info: dict[str, Any]) -> None:
            sock = self._trace(event, info)
            if sock is not None:
                on_socket(sock)

        timeout = httpx.Timeout(self._timeout, read=silence_timeout)
        with self._stream_http.stream(
            "GET",
            self._base_url + "/v1/stream",
            headers=dict(headers),
            timeout=timeout,
            extensions={"trace": trace},
        ) as response:
            yield response

    def close(self) -> None:
        """Ends every request in flight; later requests fail with "the client is closed"."""
        with self._lock:
            self._closed = True
            sockets = list(self._sockets)
        for sock in sockets:
            shutdown(sock)
        self._http.close()
        self._stream_http.close()

    def _trace(self, event: str, info: dict[str, Any]) -> socket.socket | None:
        if event not in _NEW_CONNECTION:
            return None
        stream = info.get("return_value")
        sock = None if stream is None else stream.get_extra_info("socket")
        if not isinstance(sock, socket.socket):
            return None
        with self._lock:
            self._sockets.add(sock)
            closed = self._closed
        if closed:
            shutdown(sock)
        return sock


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    """httpx's default TLS settings, made once per process: loading the CA bundle takes tens
    of milliseconds, which each client would otherwise pay twice in ``create()``."""
    return httpx.create_ssl_context()


def shutdown(sock: socket.socket) -> None:
    """Ends a connection, waking up any thread blocked reading it."""
    with contextlib.suppress(OSError):  # already closed
        sock.shutdown(socket.SHUT_RDWR)


def secret_path(key: str, *rest: str) -> str:
    """``/v1/secrets/{key}/...`` with every segment percent-encoded."""
    return "/v1/secrets/" + "/".join(quote(part, safe="") for part in (key, *rest))


def read_json(response: httpx.Response, what: str) -> Any:
    """The body as JSON; a :class:`ServiceError` when it is not JSON."""
    try:
        return json.loads(response.content)
    except ValueError as error:
        raise ServiceError(
            f"{what}: the response is not JSON", status=response.status_code
        ) from error


def error_of(response: httpx.Response, operation: Operation) -> ServiceError:
    """The client error for a non-2xx answer."""
    code, detail = _problem_of(response)
    status = response.status_code
    message = f"{operation}: HTTP {status}" + (f" {code}" if code else "")
    message += f": {detail}" if detail else ""
    if status == 401:
        return ServiceUnauthorizedError(message, status=status, code=code)
    if status == 402:
        return ServiceBillingError(message, status=status, code=code)
    if status == 403:
        if code == "public_key_forbidden":
            return ServicePublicKeyError(operation)
        if operation == "evaluateAB" or code == "ab_addon_inactive":
            return ServiceAbAddonNotAvailableError(message, status=status, code=code)
        return ServiceError(message, status=status, code=code)
    if status == 404:
        return ServiceNotFoundError(message, status=status, code=code)
    if status == 429:
        retry_after = retry_after_seconds(response.headers.get("Retry-After"))
        if operation == "sync" or code == "sync_quarantined":
            return ServiceQuarantinedError(
                message, status=status, code=code, retry_after=retry_after
            )
        return ServiceRateLimitedError(message, status=status, code=code, retry_after=retry_after)
    return ServiceError(message, status=status, code=code)


def _problem_of(response: httpx.Response) -> tuple[str | None, str | None]:
    try:
        response.read()
        body = json.loads(response.content)
    except (ValueError, httpx.HTTPError):
        return None, None
    if not isinstance(body, dict):
        return None, None
    code, detail = body.get("code"), body.get("detail")
    return (
        code if isinstance(code, str) else None,
        detail if isinstance(detail, str) else None,
    )


def retry_after_seconds(header: str | None, now: float | None = None) -> int:
    """``Retry-After`` as whole seconds: delta-seconds or an HTTP date; 1 when absent or
    unreadable."""
    if header is None:
        return 1
    value = header.strip()
    if value.isascii() and value.isdigit():
        return int(value)
    try:
        at = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return 1
    if at.tzinfo is None:
        return 1
    seconds = at.timestamp() - (time.time() if now is None else now)
    return max(0, math.ceil(seconds))


def describe(error: BaseException) -> str:
    """A one-line account of an error and its cause."""
    message = str(error) or type(error).__name__
    cause = error.__cause__
    if cause is not None and str(cause) and str(cause) not in message:
        message += f" ({cause})"
    return message
