"""The client's cache: the live snapshot of one key's view, the files of its file secrets, and the
listeners told of each change. Syncs and the change stream replace it; reads only look."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Callable, Literal

from ._config import ResolvedConfig
from ._file_secrets import FileSecrets
from ._snapshot import EMPTY, Change, Snapshot, diff

_EPOCH = datetime.fromtimestamp(0, timezone.utc)


@dataclass(frozen=True)
class ChangeSet:
    """What changed in the cache, as one batch."""

    revision: int
    """The cache's revision after the change."""
    source: Literal["sync", "stream"]
    """``sync`` for a snapshot that replaced the cache, ``stream`` for pushed changes."""
    changes: tuple[Change, ...]
    """Every item that was added, changed or removed; read the new values from the client."""


ChangeListener = Callable[[ChangeSet], None]
"""Called after each change of the cache, on the thread that made it (the stream's, or the one
that called ``sync()``). What it raises is logged and otherwise ignored."""


class LiveCache:
    """The base of :class:`ServiceClient`: the state that every other layer reads. A sync or a
    batch of pushed changes swaps the snapshot in one assignment (under the cache lock), which is
    why reads need no lock."""

    def __init__(self, config: ResolvedConfig) -> None:
        self._config = config
        self._logger = config.logger
        self._files = FileSecrets(config.secret_files_dir, config.logger)
        # Guards cache replacement: a sync's snapshot and the stream's changes, one at a time.
        self._cache_lock = threading.Lock()
        self._snapshot: Snapshot = EMPTY
        self._synced_at = _EPOCH
        self._closed = False
        self._listeners: tuple[ChangeListener, ...] = ()
        # Guarded by _cache_lock: stream batches applied, so that a sync can tell it raced one.
        self._stream_batches = 0

    def on_change(self, listener: ChangeListener) -> Callable[[], None]:
        """Calls ``listener`` after each change of the cache (a sync that brought something new,
        or pushed changes). Returns a function that removes the listener."""
        with self._cache_lock:
            self._listeners = (*self._listeners, listener)

        def remove() -> None:
            with self._cache_lock:
                self._listeners = tuple(item for item in self._listeners if item is not listener)

        return remove

    def _replace(self, received: Snapshot, source: Literal["sync", "stream"]) -> ChangeSet | None:
        """Swaps the cache for ``received`` (holding the cache lock): files first, so that a
        visible secret's file is on disk. Returns what changed, when anyone listens."""
        previous = self._snapshot
        if received.secrets is not previous.secrets:
            self._files.update(received.secrets)
        self._snapshot = received
        if not self._listeners:
            return None
        changes = diff(previous, received)
        return ChangeSet(received.revision, source, tuple(changes)) if changes else None

    def _notify(self, change_set: ChangeSet | None) -> None:
        if change_set is None:
            return
        for listener in self._listeners:
            try:
                listener(change_set)
            except Exception as error:
                self._logger.error("a change listener raised", error)

    def _close_cache(self) -> None:
        """Removes the files of file secrets and forgets the listeners; reads keep answering
        from the last snapshot."""
        with self._cache_lock:
            self._files.close()
            self._listeners = ()
