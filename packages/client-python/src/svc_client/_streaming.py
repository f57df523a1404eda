"""The change stream as the client runs it: starting and stopping it, applying the changes it
pushes to the cache, and the re-sync it asks for. The connection itself is ``_stream.py``."""

from __future__ import annotations

import json
import time

from ._config import ResolvedConfig
from ._errors import ServiceError
from ._snapshot import ItemChange, apply_changes, parse_change
from ._sse import SseEvent
from ._stream import StreamConnection
from ._sync import SyncingClient


class StreamingClient(SyncingClient):
    """The syncing cache plus the change stream that keeps it current between syncs."""

    def __init__(self, config: ResolvedConfig) -> None:
        super().__init__(config)
        # Whether the stream should run: it restarts under each new key of a workload identity.
        self._stream_wanted = False
        self._stream = StreamConnection(self._transport, config, _StreamHandlers(self))

    def connect_stream(self) -> None:
        """Starts the change stream thread (idempotent). While it is connected, changes reach
        the cache within milliseconds and the time-to-live re-sync pauses. It reconnects by
        itself with backoff and jitter, resuming with ``Last-Event-ID``; a 401 or 404 stops it
        until the next call.

        :raises ServiceError: when the client is closed.
        """
        if self._closed:
            raise ServiceError("the client is closed")
        self._stream_wanted = True
        self._stream.start()

    def disconnect_stream(self) -> None:
        """Stops the change stream (idempotent); returns once the connection is closed."""
        self._stream_wanted = False
        self._stream.stop()

    def is_stream_connected(self) -> bool:
        """True while the change stream is connected."""
        return self._stream_connected and not self._closed

    def _on_stream_events(self, events: list[SseEvent]) -> None:
        pending: list[ItemChange] = []
        for event in events:
            if event.event == "change":
                try:
                    pending.append(parse_change(event.data))
                except ServiceError as error:
                    self._logger.error("stream: ignored a malformed change event", error)
            elif event.event == "resync":
                self._apply_stream_changes(pending)
                pending = []
                if _revision_of(event.data) != self._snapshot.revision:
                    self._background_sync("the stream asked for a resync")
        self._apply_stream_changes(pending)

    def _apply_stream_changes(self, changes: list[ItemChange]) -> None:
        if not changes:
            return
        with self._cache_lock:
            if self._closed:
                return
            current = self._snapshot.revision
            fresh = [change for change in changes if change.revision >= current]
            if not fresh:
                return
            self._stream_batches += 1
            change_set = self._replace(apply_changes(self._snapshot, fresh), "stream")
        self._logger.debug(f"stream: {len(fresh)} change(s), revision {self._snapshot.revision}")
        self._notify(change_set)

    def _on_stream_state(self, connected: bool) -> None:
        self._stream_connected = connected
        if not connected:
            # The stream kept the cache current until now: the time-to-live starts here.
            self._fresh_at = time.monotonic()
        self._schedule_ttl()


class _StreamHandlers:
    """The client as the stream sees it."""

    def __init__(self, client: StreamingClient) -> None:
        self._client = client

    def resume_after(self) -> int | None:
        revision = self._client._snapshot.revision
        return revision if revision >= 0 else None

    def on_events(self, events: list[SseEvent]) -> None:
        self._client._on_stream_events(events)

    def on_state(self, connected: bool) -> None:
        self._client._on_stream_state(connected)

    def on_refused(self) -> None:
        self._client._key_refused()


def _revision_of(data: str) -> int | None:
    try:
        revision = json.loads(data).get("revision")
    except (ValueError, AttributeError):
        return None
    return revision if isinstance(revision, int) and not isinstance(revision, bool) else None
