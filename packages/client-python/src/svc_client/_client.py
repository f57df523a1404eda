"""``ServiceClient``: configs, flags and secrets of one key's view, read from an in-memory cache
that a sync fills and the change stream keeps current; AB evaluation and the secret write API
over the network.

The client is built in layers, one concept each: ``_live_cache.py`` (the snapshot, file secrets
and change listeners), ``_cache_reads.py`` (the read surface), ``_sync.py`` (sync and the
time-to-live), ``_streaming.py`` (the change stream) and ``_network_calls.py`` (AB evaluation
and secret writes). This module adds creation, a workload identity's keys, and closing.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections.abc import Iterator
from types import TracebackType
from typing import Any, Callable

from ._config import LoggerLike, ReconnectOptions, ResolvedConfig, ServiceConfig, resolve_config
from ._errors import ServiceError, ServiceInitError
from ._identity.exchange import MintedKey
from ._identity.refresher import KeyRefresher
from ._identity.settings import WorkloadIdentity
from ._network_calls import NetworkCalls
from ._streaming import StreamingClient

_CREATE = object()


class ServiceClient(NetworkCalls, StreamingClient):
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
        self._refresher = _refresher
        super().__init__(config)
        self._close_lock = threading.Lock()

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
        self._close_cache()
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
