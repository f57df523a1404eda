"""``ServiceClient``: configs, flags and secrets of one key's view, read from an in-memory cache
that a sync fills and the change stream keeps current; AB evaluation and the secret write API
over the network."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from types import TracebackType
from typing import (
    Any,
    Callable,
    Literal,
    TypeVar,
    overload,
)

from ._api_key import KeyType, require_secret_key
from ._config import LoggerLike, ReconnectOptions, ResolvedConfig, ServiceConfig, resolve_config
from ._convert import convert
from ._errors import (
    ServiceError,
    ServiceInitError,
    ServiceQuarantinedError,
    ServiceSecretNotFoundError,
    ServiceUnauthorizedError,
)
from ._file_secrets import FileSecrets
from ._identity.exchange import MintedKey
from ._identity.refresher import KeyRefresher
from ._identity.settings import WorkloadIdentity
from ._network_calls import NetworkCalls
from ._scheduler import Scheduler
from ._snapshot import (
    EMPTY,
    Change,
    ItemChange,
    JsonValue,
    Snapshot,
    apply_changes,
    copy_json,
    diff,
    parse_change,
    parse_snapshot,
)
from ._sse import SseEvent
from ._stream import StreamConnection
from ._transport import Transport, describe, error_of, read_json

T = TypeVar("T")
_ABSENT: Any = object()
_CREATE = object()
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


class ServiceClient(NetworkCalls):
    """The service's client. Create one per process with :meth:`create`, read from it on any
    thread (reads never touch the network), and :meth:`close` it at shutdown (or use it as a
    context manager).

    The cache is an immutable snapshot replaced in one assignment, so a reader sees the state
    before or after a sync or a batch of pushed changes, never half of it.

    Example::

        with ServiceClient.create(base_url="https://acme.config.example.com",
                                  api_key=os.environ["SERVICE_API_KEY"]) as client:
            if client.get_flag("checkout.v2"):
                ...
            pool = client.get_config_as("db.pool", Pool)
    """

    def __init__(
        self, config: ResolvedConfig, _token: object = None, _refresher: KeyRefresher | None = None
    ) -> None:
        """Not for direct use: :meth:`create` builds clients."""
        if _token is not _CREATE:
            raise TypeError("use ServiceClient.create(...) to make a client")
        self._config = config
        self._refresher = _refresher
        # Whether the stream should run: it restarts under each new key of a workload identity.
        self._stream_wanted = False
        self._logger = config.logger
        self._transport = Transport(config.base_url, config.api_key, config.request_timeout)
        self._files = FileSecrets(config.secret_files_dir, config.logger)
        self._scheduler = Scheduler("svc-client-scheduler")
        self._stream = StreamConnection(self._transport, config, _StreamHandlers(self))
        # Guards cache replacement: a sync's snapshot and the stream's changes, one at a time.
        self._cache_lock = threading.Lock()
        self._sync_lock = threading.Lock()
        self._ttl_lock = threading.Lock()
        self._close_lock = threading.Lock()
        self._snapshot: Snapshot = EMPTY
        self._synced_at = _EPOCH
        # The time-to-live counts from here: the end of the last sync attempt or of the stream.
        self._fresh_at = time.monotonic()
        self._quarantined_until: float | None = None
        self._resync_pending = False  # the stream asked for a sync that could not run yet
        self._stream_connected = False
        self._closed = False
        self._listeners: tuple[ChangeListener, ...] = ()
        # Guarded by _sync_lock.
        self._etag: str | None = None
        self._syncs_started = 0
        self._last_sync_finished = 0
        self._last_sync_error: ServiceError | None = None
        # Guarded by _cache_lock: stream batches applied, so that a sync can tell it raced one.
        self._stream_batches = 0

    @classmethod
    def create(
        cls,
        config: ServiceConfig | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        stream: bool | None = None,
        cache_ttl: float | None = None,
        request_timeout: float | None = None,
        logger: LoggerLike | None = None,
        secret_files_dir: str | None = None,
        reconnect: ReconnectOptions | None = None,
        identity: WorkloadIdentity | None = None,
    ) -> ServiceClient:
        """Checks the settings (``config``, then keyword arguments over it), exchanges the
        workload identity's token for a key (with ``identity``), runs the initial sync, and
        unless ``stream=False`` starts the change stream without waiting for it. A workload
        identity's key is then refreshed in the background before it expires.

        :raises ValueError: before any request, when ``base_url``, or ``api_key`` or
            ``identity``, is missing or malformed (including a key whose checksum is wrong), or
            another setting is invalid (a wrong type: TypeError).
        :raises ServiceInitError: when the exchange or the initial sync fails; ``__cause__`` is
            the reason (:class:`ServiceUnauthorizedError` — for an exchange, naming the failed
            check — :class:`ServiceNotFoundError`, :class:`ServiceQuarantinedError`,
            :class:`ServiceRateLimitedError` for too many exchanges, or a
            :class:`ServiceError` for network failures and unreadable tokens).
        """
        if config is not None and not isinstance(config, ServiceConfig):
            raise TypeError("config must be a ServiceConfig")
        given: dict[str, Any] = {
            "base_url": base_url,
            "api_key": api_key,
            "stream": stream,
            "cache_ttl": cache_ttl,
            "request_timeout": request_timeout,
            "logger": logger,
            "secret_files_dir": secret_files_dir,
            "reconnect": reconnect,
            "identity": identity,
        }
        settings = dataclasses.replace(
            config or ServiceConfig(), **{k: v for k, v in given.items() if v is not None}
        )
        resolved = resolve_config(settings)
        refresher = key = None
        if resolved.identity is not None:
            refresher = KeyRefresher(
                resolved.identity, resolved.base_url, resolved.request_timeout, resolved.logger
            )
            with _init_step(refresher.stop):
                key = refresher.exchange()
            resolved = dataclasses.replace(resolved, api_key=key.key, key_type=key.key_type)
        client = cls(resolved, _CREATE, refresher)
        if refresher is not None and key is not None:
            refresher.start(key, client._use_key)
        with _init_step(client.close):
            client.sync()
        if client._config.stream:
            client.connect_stream()
        return client

    # ---- reads (from the cache) ----

    @overload
    def get_config(self, key: str) -> JsonValue: ...
    @overload
    def get_config(self, key: str, default: T) -> JsonValue | T: ...
    def get_config(self, key: str, default: Any = None) -> Any:
        """A config's value (a copy: changing it does not change the cache), or ``default`` when
        the key is absent. A config whose value is JSON null is ``None``; pass a default of your
        own to tell it from an absent key."""
        value = self._snapshot.configs.get(key, _ABSENT)
        return default if value is _ABSENT else copy_json(value)

    @overload
    def get_config_as(self, key: str, target: type[T]) -> T | None: ...
    @overload
    def get_config_as(self, key: str, target: Any) -> Any: ...
    def get_config_as(self, key: str, target: Any) -> Any:
        """A config's value converted to ``target``: a dataclass, a pydantic model (when pydantic
        is installed), or a plain type such as ``str``, ``int``, ``list[int]``,
        ``dict[str, float]`` or ``Optional[str]``; None when the key is absent.

        :raises ValueError: when the value does not fit (nothing is coerced: ``"10"`` is not an
            ``int``); the reason is in the message and ``__cause__``.
        :raises TypeError: for a target type the converter does not know.
        """
        value = self._snapshot.configs.get(key, _ABSENT)
        if value is _ABSENT:
            return None
        try:
            return convert(value, target)
        except ValueError as error:
            name = getattr(target, "__name__", repr(target))
            raise ValueError(f'config "{key}" does not fit {name}: {error}') from error

    def get_all_configs(self) -> dict[str, JsonValue]:
        """Every config of the cache, as a new dictionary of copies (public keys see configs with
        ``is_public`` only)."""
        return {key: copy_json(value) for key, value in self._snapshot.configs.items()}

    def get_flag(self, key: str, default: bool = False) -> bool:
        """A flag's ``is_active``, or ``default`` when the flag is absent."""
        value = self._snapshot.flags.get(key)
        return default if value is None else value

    def get_all_flags(self) -> dict[str, bool]:
        """Every flag of the cache (key to ``is_active``), as a new dictionary."""
        return dict(self._snapshot.flags)

    def get_secret(self, key: str) -> str:
        """A secret's plaintext (for a file secret: the file's content).

        :raises ServicePublicKeyError: when this client holds a public key.
        :raises ServiceSecretNotFoundError: when the secret is not in the cache.
        """
        require_secret_key(self._config.key_type, "get_secret")
        secret = self._snapshot.secrets.get(key)
        if secret is None:
            raise ServiceSecretNotFoundError(key)
        return secret.value

    def get_all_secrets(self) -> dict[str, str]:
        """Every secret of the cache (key to plaintext), as a new dictionary.

        :raises ServicePublicKeyError: when this client holds a public key.
        """
        require_secret_key(self._config.key_type, "get_all_secrets")
        return {key: secret.value for key, secret in self._snapshot.secrets.items()}

    def get_secret_file_path(self, key: str) -> str | None:
        """The absolute path of the file written for a file secret (mode 0600, in a private 0700
        folder that ``close()`` removes; a rotated secret is rewritten in place, atomically), or
        None for an unknown key, a text secret, a public key, or a closed client."""
        return self._files.path_of(key)

    def get_key_type(self) -> KeyType:
        """``sk`` for a secret key, ``pk`` for a public key (from the configured key)."""
        return self._config.key_type

    def get_synced_at(self) -> datetime:
        """When the last sync succeeded, in UTC (a 304 counts: the cache was confirmed
        current)."""
        return self._synced_at

    def is_stream_connected(self) -> bool:
        """True while the change stream is connected."""
        return self._stream_connected and not self._closed

    def on_change(self, listener: ChangeListener) -> Callable[[], None]:
        """Calls ``listener`` after each change of the cache (a sync that brought something new,
        or pushed changes). Returns a function that removes the listener."""
        with self._cache_lock:
            self._listeners = (*self._listeners, listener)

        def remove() -> None:
            with self._cache_lock:
                self._listeners = tuple(item for item in self._listeners if item is not listener)

        return remove

    # ---- network ----

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

    def close(self) -> None:
        """Stops the stream and the background re-sync, ends requests in flight, and removes the
        files of file secrets. Idempotent. Reads keep answering from the last cache; network
        calls fail with a :class:`ServiceError`."""
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        self._scheduler.shutdown()
        if self._refresher is not None:
            self._refresher.stop()
        self._stream.stop()
        self._stream_connected = False
        self._transport.close()
        with self._cache_lock:
            self._files.close()
            self._listeners = ()
        self._logger.debug("closed")

    def __enter__(self) -> ServiceClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # ---- internals ----

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

    def _key_refused(self) -> None:
        """A 401: a workload identity's key expired before a refresh succeeded, or was
        revoked. No reason to stop: exchange again."""
        if self._refresher is not None:
            self._refresher.key_refused()

    def _use_key(self, key: MintedKey, refused: bool) -> None:
        """A workload identity's new key: requests use it from now on, and the stream
        reconnects under it at once, resuming after the cache's revision (``Last-Event-ID``) so
        no change is missed. After a refused key, a client without a stream syncs."""
        self._transport.rekey(key.key)
        self._config = dataclasses.replace(self._config, api_key=key.key, key_type=key.key_type)
        if self._closed:
            return
        if not self._stream_wanted:
            if refused:
                self._background_sync("a new key after a refused one")
            return
        self._stream.stop()
        if self._stream_wanted and not self._closed:
            self._stream.start()


class _StreamHandlers:
    """The client as the stream sees it."""

    def __init__(self, client: ServiceClient) -> None:
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


@contextlib.contextmanager
def _init_step(undo: Callable[[], None]) -> Iterator[None]:
    """A step of ``create()``: when it fails, ``undo`` runs and a :class:`ServiceError` becomes
    the cause of a :class:`ServiceInitError`."""
    try:
        yield
    except ServiceError as error:
        undo()
        raise ServiceInitError(error) from error
    except BaseException:
        undo()
        raise


def _revision_of(data: str) -> int | None:
    try:
        revision = json.loads(data).get("revision")
    except (ValueError, AttributeError):
        return None
    return revision if isinstance(revision, int) and not isinstance(revision, bool) else None
