"""Keeping the cache current without the stream: ``sync()`` (a conditional ``GET /v1/sync``),
the quarantine the server may impose, and the background re-sync once the time-to-live has
passed (paused while the change stream is connected, which keeps the cache current itself)."""

from __future__ import annotations

import math
import threading
import time
from datetime import datetime, timezone

from ._cache_reads import CacheReads
from ._config import ResolvedConfig
from ._errors import ServiceError, ServiceQuarantinedError, ServiceUnauthorizedError
from ._scheduler import Scheduler
from ._snapshot import parse_snapshot
from ._transport import Transport, describe, error_of, read_json


class SyncingClient(CacheReads):
    """The cache plus the syncs that fill it, now or in the background."""

    def __init__(self, config: ResolvedConfig) -> None:
        super().__init__(config)
        self._transport = Transport(config.base_url, config.api_key, config.request_timeout)
        self._scheduler = Scheduler("svc-client-scheduler")
        self._sync_lock = threading.Lock()
        self._ttl_lock = threading.Lock()
        # The time-to-live counts from here: the end of the last sync attempt or of the stream.
        self._fresh_at = time.monotonic()
        self._quarantined_until: float | None = None
        self._resync_pending = False  # the stream asked for a sync that could not run yet
        # Set by the stream: while it is connected, the time-to-live re-sync pauses.
        self._stream_connected = False
        # Guarded by _sync_lock.
        self._etag: str | None = None
        self._syncs_started = 0
        self._last_sync_finished = 0
        self._last_sync_error: ServiceError | None = None

    def sync(self) -> None:
        """Syncs now, whatever the time-to-live says: a conditional ``GET /v1/sync``
        (``If-None-Match``); a new snapshot replaces the cache at once, a 304 restarts the
        time-to-live. Callers that wait while a sync runs share the next one. The cache is kept
        when the sync fails.

        :raises ServiceQuarantinedError: when the key is quarantined (at once, without a
            request, until the server's ``Retry-After`` has passed).
        :raises ServiceUnauthorizedError: on 401. :raises ServiceNotFoundError: on 404.
        :raises ServiceError: for network or protocol failures, or a closed client.
        """
        if self._closed:
            raise ServiceError("the client is closed")
        seen = self._syncs_started
        try:
            with self._sync_lock:
                if self._last_sync_finished > seen:
                    # A sync that started after this call has finished meanwhile: its outcome
                    # is ours.
                    if self._last_sync_error is not None:
                        raise self._last_sync_error
                    return
                self._syncs_started += 1
                number = self._syncs_started
                try:
                    self._fetch_snapshot()
                    self._last_sync_error = None
                except ServiceError as error:
                    self._last_sync_error = error
                    if isinstance(error, ServiceUnauthorizedError):
                        self._key_refused()
                    raise
                finally:
                    self._last_sync_finished = number
                    self._fresh_at = time.monotonic()
        finally:
            self._schedule_ttl()

    def _key_refused(self) -> None:
        """A 401. Nothing to do for a configured key; :class:`ServiceClient` exchanges a
        workload identity's token again."""

    def _fetch_snapshot(self) -> None:
        until = self._quarantined_until
        if until is not None:
            wait = until - time.monotonic()
            if wait > 0:
                seconds = math.ceil(wait)
                raise ServiceQuarantinedError(
                    f"sync: the key is quarantined for another {seconds} s",
                    code="sync_quarantined",
                    retry_after=seconds,
                )
            self._quarantined_until = None
        with self._cache_lock:
            batches_before = self._stream_batches
        headers = {"Accept": "application/json"}
        if self._etag is not None:
            headers["If-None-Match"] = self._etag
        response = self._transport.send("GET", "/v1/sync", headers)
        if response.status_code == 304:
            self._synced()
            self._logger.debug(f"sync: not modified (revision {self._snapshot.revision})")
            return
        if not 200 <= response.status_code < 300:
            error = error_of(response, "sync")
            if isinstance(error, ServiceQuarantinedError):
                self._quarantined_until = time.monotonic() + error.retry_after
                self._logger.info(
                    f"sync quarantined by the server: no sync for {error.retry_after} s"
                )
            raise error
        received = parse_snapshot(read_json(response, "sync"))
        with self._cache_lock:
            if self._closed:
                raise ServiceError("the client is closed")
            if (
                self._stream_batches != batches_before
                and received.revision < self._snapshot.revision
            ):
                # The stream brought newer changes while this answer was on its way: keep them.
                change_set = None
            else:
                self._etag = response.headers.get("ETag")
                change_set = self._replace(received, "sync")
        self._synced()
        self._notify(change_set)
        self._logger.debug(f"sync: revision {self._snapshot.revision}")

    def _synced(self) -> None:
        self._synced_at = datetime.now(timezone.utc)
        self._resync_pending = False

    def _background_sync(self, reason: str) -> None:
        if not self._closed:
            self._scheduler.execute(lambda: self._run_background_sync(reason))

    def _run_background_sync(self, reason: str) -> None:
        try:
            self.sync()
        except Exception as error:
            if self._closed:
                return
            self._resync_pending = True
            self._schedule_ttl()
            message = f"background sync ({reason}) failed: {describe(error)}"
            if isinstance(error, ServiceQuarantinedError):
                self._logger.info(message)
            else:
                self._logger.error(message, error)

    def _schedule_ttl(self) -> None:
        """Plans the next background sync: a time-to-live after the cache was last known current
        while no stream is connected, or a sync the stream asked for that had to wait
        (quarantine)."""
        with self._ttl_lock:
            if self._closed or (self._stream_connected and not self._resync_pending):
                self._scheduler.cancel_timer()
                return
            due = self._fresh_at + self._config.cache_ttl
            until = self._quarantined_until
            if until is not None and until > due:
                due = until
            self._scheduler.set_timer(due, self._on_ttl)

    def _on_ttl(self) -> None:
        if not self._sync_lock.locked():
            self._run_background_sync("cache time-to-live")
