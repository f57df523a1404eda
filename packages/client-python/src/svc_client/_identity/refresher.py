"""Keeps a workload identity's key fresh: exchanges again at ``refresh_at`` (2/3) of each key's
life, and sooner when the api refused the key (it expired before a refresh succeeded, or the
identity changed). A failed exchange is retried with backoff — after a 429 not before its
``Retry-After`` — for as long as the client lives: meanwhile the client serves from its cache.

The refreshes run on a daemon thread of their own, so a slow exchange never holds up the
client's background syncs.
"""

from __future__ import annotations

import math
import threading
import time
from typing import Callable

from .._backoff import Backoff
from .._config import ReconnectOptions
from .._errors import ServiceError, ServiceRateLimitedError
from .._logger import ServiceLogger
from .._transport import describe
from .exchange import MintedKey, exchange_key
from .http import new_client
from .settings import WorkloadIdentity
from .sources import credential_source

KeyListener = Callable[[MintedKey, bool], None]
"""Called with each new key, and whether the api had refused the one before."""

_MIN_DELAY = 0.1
"""No refresh sooner than this after a key: a server's tiny ``expires_in`` is no busy loop."""


class KeyRefresher:
    def __init__(
        self,
        identity: WorkloadIdentity,
        base_url: str,
        request_timeout: float,
        logger: ServiceLogger,
    ) -> None:
        self._identity = identity
        self._base_url = base_url
        self._logger = logger
        self._http = new_client(request_timeout)
        self._source = credential_source(identity, self._http)
        retry = identity.retry
        self._backoff = Backoff(
            ReconnectOptions(
                initial_delay=retry.initial_delay, max_delay=retry.max_delay, reset_after=math.inf
            )
        )
        self._condition = threading.Condition()
        self._listener: KeyListener | None = None
        self._due: float | None = None  # time.monotonic() of the next exchange
        self._running = False
        self._refused = False  # the api refused the current key
        self._retrying = False  # the last exchange failed; the next attempt is planned
        self._stopped = False
        self._thread: threading.Thread | None = None

    def exchange(self) -> MintedKey:
        """One exchange: the platform's proof for a key. Raises as :func:`exchange_key`."""
        credential = self._source()
        return exchange_key(self._http, self._base_url, self._identity.identity_id, credential)

    def start(self, key: MintedKey, listener: KeyListener) -> None:
        """Starts refreshing ``key`` (the one :meth:`exchange` gave), telling ``listener`` each
        new one."""
        with self._condition:
            self._listener = listener
            self._due = time.monotonic() + key.lifetime * self._identity.refresh_at
            self._thread = threading.Thread(
                target=self._run, name="svc-client-identity", daemon=True
            )
            self._thread.start()

    def key_refused(self) -> None:
        """The api answered 401 to the current key: exchange soon, unless that is under way."""
        with self._condition:
            planned = self._refused or self._retrying or self._running
            self._refused = True
            if self._stopped or planned:
                return
            delay = self._backoff.next()
            self._logger.info(f"identity: the key was refused; exchanging again in {delay:.3f} s")
            self._plan(delay)

    def stop(self) -> None:
        """Stops the thread; an exchange in flight ends with the HTTP client."""
        with self._condition:
            self._stopped = True
            self._condition.notify()
        self._http.close()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(10.0)

    def _plan(self, delay: float) -> None:
        """Holding the condition."""
        self._due = time.monotonic() + max(0.0, delay)
        self._condition.notify()

    def _run(self) -> None:
        while True:
            with self._condition:
                while not self._stopped:
                    left = (self._due or math.inf) - time.monotonic()
                    if left <= 0:
                        break
                    self._condition.wait(None if math.isinf(left) else left)
                if self._stopped:
                    return
                self._due = None
                self._running = True
            self._refresh()

    def _refresh(self) -> None:
        try:
            key = self.exchange()
        except Exception as error:
            with self._condition:
                self._running = False
                if self._stopped:
                    return
                self._retrying = True
                delay = self._backoff.next()
                if isinstance(error, ServiceRateLimitedError):
                    delay = max(delay, float(error.retry_after))
                self._plan(delay)
            if isinstance(error, ServiceError):
                message = describe(error)
            else:
                message = f"{type(error).__name__}: {error}"
            self._logger.error(
                f"identity: exchange failed, retrying in {delay:.3f} s: {message}", error
            )
            return
        with self._condition:
            refused = self._refused
            self._refused = self._retrying = False
            # A scheduled refresh that worked starts the delays over; one after a refusal does
            # not, so a key the api keeps refusing cannot make the client exchange in a loop.
            if not refused:
                self._backoff.reset()
        self._logger.info(f"identity: new key, valid for {round(key.lifetime)} s")
        listener = self._listener
        try:
            if listener is not None:
                listener(key, refused)
        finally:
            with self._condition:
                self._running = False
                if self._refused:  # refused meanwhile: this key too, or a request of the last
                    self._plan(self._backoff.next())
                else:
                    self._plan(max(_MIN_DELAY, key.lifetime * self._identity.refresh_at))
