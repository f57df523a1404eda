"""The change stream: ``GET /v1/stream`` read on a daemon thread of its own, so that the client
sets its own headers (``Last-Event-ID``) and notices silence itself (a read that waits longer
than the silence limit fails). It reconnects with backoff until stopped; a 401 or 404 stops it
for good (until the next ``start()``).

Stopping shuts the connection's socket down, which wakes the thread from its read at once.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Literal, Protocol

import httpx

from ._backoff import Backoff
from ._config import ResolvedConfig
from ._errors import ServiceError, ServiceNotFoundError, ServiceUnauthorizedError
from ._sse import SseEvent, SseParser
from ._transport import Transport, describe, error_of, shutdown

Outcome = Literal["ended", "ended-long", "fatal", "stopped"]
_JOIN_TIMEOUT = 10.0


class StreamHandlers(Protocol):
    """What the stream reports to the client; called on the stream thread."""

    def resume_after(self) -> int | None:
        """The revision to resume after (sent as ``Last-Event-ID``), or None."""

    def on_events(self, events: list[SseEvent]) -> None:
        """The events of one received chunk, in order."""

    def on_state(self, connected: bool) -> None:
        """The stream became connected (True) or stopped being connected (False)."""

    def on_refused(self) -> None:
        """The key was refused (401): the stream stopped."""


class _Run:
    """One start-to-stop run of the connect loop; a restart gets a fresh one."""

    def __init__(self) -> None:
        self.active = True
        self.wake = threading.Event()
        self.socket: socket.socket | None = None
        self.thread: threading.Thread | None = None


class StreamConnection:
    def __init__(
        self, transport: Transport, config: ResolvedConfig, handlers: StreamHandlers
    ) -> None:
        self._transport = transport
        self._config = config
        self._handlers = handlers
        self._lock = threading.Lock()
        self._run: _Run | None = None

    def start(self) -> None:
        """Starts the connect loop; does nothing when it runs already."""
        with self._lock:
            if self._run is not None and self._run.active:
                return
            run = _Run()
            run.thread = threading.Thread(
                target=self._loop, args=(run,), name="svc-client-stream", daemon=True
            )
            self._run = run
            run.thread.start()

    def stop(self) -> None:
        """Ends the connection and the loop; returns once the stream thread has finished."""
        with self._lock:
            run = self._run
            if run is None:
                return
            run.active = False
            run.wake.set()
            sock = run.socket
        if sock is not None:
            shutdown(sock)
        if run.thread is not None and run.thread is not threading.current_thread():
            run.thread.join(_JOIN_TIMEOUT)

    def _is_current(self, run: _Run) -> bool:
        with self._lock:
            return self._run is run

    def _attach(self, run: _Run, sock: socket.socket) -> None:
        with self._lock:
            run.socket = sock
            active = run.active
        if not active:
            shutdown(sock)

    def _loop(self, run: _Run) -> None:
        logger = self._config.logger
        backoff = Backoff(self._config.reconnect)  # each run starts with the initial delay
        while run.active:
            try:
                outcome = self._connect_once(run, backoff)
                if outcome in ("stopped", "fatal"):
                    break
                delay = 0.0 if outcome == "ended-long" else backoff.next()
                if run.active:
                    logger.info(f"stream ended by the server; reconnecting in {delay:.3f} s")
            except Exception as error:
                if not run.active:
                    break
                delay = backoff.next()
                logger.error(
                    f"stream failed, reconnecting in {delay:.3f} s: {describe(error)}", error
                )
            if run.active and delay > 0:
                run.wake.wait(delay)
        run.active = False

    def _connect_once(self, run: _Run, backoff: Backoff) -> Outcome:
        """One connection, from request to its end. ``ended-long``: the server closed a
        connection that lasted long enough (its maximum age): reconnect at once."""
        logger = self._config.logger
        silence = self._config.reconnect.silence_timeout
        headers = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
        resume_after = self._handlers.resume_after()
        if resume_after is not None:
            headers["Last-Event-ID"] = str(resume_after)
        connected_at: float | None = None
        try:
            with self._transport.open_stream(
                headers, silence, lambda sock: self._attach(run, sock)
            ) as response:
                if not run.active:
                    return "stopped"
                if not 200 <= response.status_code < 300:
                    error = error_of(response, "stream")
                    if isinstance(error, (ServiceUnauthorizedError, ServiceNotFoundError)):
                        logger.error(f"stream refused, not reconnecting: {error}", error)
                        if isinstance(error, ServiceUnauthorizedError):
                            self._handlers.on_refused()
                        return "fatal"
                    raise error
                content_type = response.headers.get("Content-Type", "")
                if not content_type.startswith("text/event-stream"):
                    raise ServiceError(f'stream: unexpected content type "{content_type}"')
                connected_at = time.monotonic()
                if self._is_current(run):
                    self._handlers.on_state(True)
                logger.info("stream connected")
                parser = SseParser()
                for chunk in response.iter_bytes():
                    events = parser.feed(chunk)
                    if not run.active:
                        return "stopped"
                    if events:
                        self._handlers.on_events(events)
            if not run.active:
                return "stopped"
            lasted = time.monotonic() - connected_at
            backoff.connection_ended(lasted)
            return "ended-long" if backoff.is_long(lasted) else "ended"
        except Exception as error:
            if not run.active:
                return "stopped"
            if connected_at is not None:
                backoff.connection_ended(time.monotonic() - connected_at)
            if isinstance(error, httpx.ReadTimeout):
                raise ServiceError(f"stream: no data for {silence:g} s") from error
            raise
        finally:
            with self._lock:
                run.socket = None
            if connected_at is not None and self._is_current(run):
                self._handlers.on_state(False)
