"""``ServiceConfig``, what ``ServiceClient.create()`` takes, and its validation.

Anything missing or malformed is a ValueError (a wrong type: TypeError) before any request.
"""

from __future__ import annotations

import logging
import math
import os
from dataclasses import dataclass, field
from typing import Union
from urllib.parse import urlsplit, urlunsplit

from ._api_key import KeyType, key_type_of
from ._identity.settings import WorkloadIdentity, resolve_identity
from ._logger import ServiceLogger, as_service_logger

LoggerLike = Union[ServiceLogger, logging.Logger, "logging.LoggerAdapter[logging.Logger]"]


@dataclass(frozen=True)
class ReconnectOptions:
    """How the change stream reconnects. All values in seconds; the defaults are the contract's."""

    initial_delay: float = 1.0
    """First delay after a failed or lost connection."""
    max_delay: float = 30.0
    """The doubling delay stops growing here."""
    reset_after: float = 60.0
    """A connection that lasted this long resets the delay to the initial one."""
    silence_timeout: float = 45.0
    """No byte for this long (the server sends a keep-alive every 15 s) is a dead connection."""


@dataclass(frozen=True)
class ServiceConfig:
    """Settings of a :class:`ServiceClient`. Required: ``base_url``, and either ``api_key`` or
    ``identity``."""

    base_url: str = ""
    """The workspace's address: ``https://{slug}.{domain}`` (host form) or
    ``http://{host}/{slug}`` (path form). Endpoints are below it (``{base_url}/v1/sync``)."""
    api_key: str = ""
    """A secret key (``svs_...``, backend services) or a public key (``svp_...``)."""
    stream: bool = True
    """Open the change stream once the initial sync is done."""
    cache_ttl: float = 60.0
    """Seconds: while no stream is connected, the client re-syncs in the background this long
    after the last sync."""
    request_timeout: float = 10.0
    """Seconds allowed to connect, and for each read or write, of every sync, ``evaluate_ab``
    and write request."""
    logger: LoggerLike | None = None
    """Where the client logs: a :class:`ServiceLogger`, or a :mod:`logging` logger. Default: the
    logger ``svc_client.ServiceClient``."""
    secret_files_dir: str | os.PathLike[str] | None = None
    """Folder under which the client creates its private folder for file secrets. Default: the
    operating system's temp folder."""
    reconnect: ReconnectOptions = field(default_factory=ReconnectOptions)
    """Stream reconnection tuning."""
    identity: WorkloadIdentity | None = None
    """Instead of ``api_key``: a workload identity whose platform token the client exchanges for
    short-lived keys, at ``create()`` and again before each key expires."""

    def __repr__(self) -> str:
        """Never shows the API key."""
        return f"ServiceConfig(base_url={self.base_url!r}, stream={self.stream})"


@dataclass(frozen=True)
class ResolvedConfig:
    """A validated configuration with every default filled in."""

    base_url: str
    api_key: str
    key_type: KeyType
    stream: bool
    cache_ttl: float
    request_timeout: float
    logger: ServiceLogger
    reconnect: ReconnectOptions
    secret_files_dir: str | None
    identity: WorkloadIdentity | None = None
    """The workload identity; ``api_key`` and ``key_type`` are then its current key's."""

    def __repr__(self) -> str:
        return f"ResolvedConfig(base_url={self.base_url!r}, key_type={self.key_type!r})"


def resolve_config(config: ServiceConfig) -> ResolvedConfig:
    """Checks ``config`` and fills in defaults; the error names the first problem found."""
    if not isinstance(config, ServiceConfig):
        raise TypeError("config must be a ServiceConfig")
    base_url = _resolve_base_url(config.base_url)
    identity = None if config.identity is None else resolve_identity(config.identity)
    key_type: KeyType
    if identity is not None:
        if config.api_key:
            raise ValueError("api_key and identity exclude each other: give one")
        # The key comes from the first exchange.
        api_key, key_type = "", "sk"
    else:
        api_key, key_type = _resolve_api_key(config.api_key)
    if not isinstance(config.stream, bool):
        raise TypeError("stream must be a bool")
    files_dir = config.secret_files_dir
    if files_dir is not None and not isinstance(files_dir, (str, os.PathLike)):
        raise TypeError("secret_files_dir must be a path")
    reconnect = config.reconnect
    if not isinstance(reconnect, ReconnectOptions):
        raise TypeError("reconnect must be a ReconnectOptions")
    return ResolvedConfig(
        base_url=base_url,
        api_key=api_key,
        key_type=key_type,
        stream=config.stream,
        cache_ttl=_seconds("cache_ttl", config.cache_ttl),
        request_timeout=_seconds("request_timeout", config.request_timeout),
        logger=as_service_logger(config.logger),
        reconnect=ReconnectOptions(
            initial_delay=_seconds("reconnect.initial_delay", reconnect.initial_delay),
            max_delay=_seconds("reconnect.max_delay", reconnect.max_delay),
            reset_after=_seconds("reconnect.reset_after", reconnect.reset_after),
            silence_timeout=_seconds("reconnect.silence_timeout", reconnect.silence_timeout),
        ),
        secret_files_dir=None if files_dir is None else os.fspath(files_dir),
        identity=identity,
    )


def _resolve_api_key(raw: object) -> tuple[str, KeyType]:
    if raw is None or raw == "":
        raise ValueError("api_key is required")
    if not isinstance(raw, str):
        raise TypeError("api_key must be a string")
    api_key = raw.strip()
    key_type = key_type_of(api_key)
    if key_type is None:
        raise ValueError(
            "api_key is not a valid key: expected svs_ or svp_ followed by 40 letters and digits "
            "with a correct checksum"
        )
    return api_key, key_type


def _resolve_base_url(raw: object) -> str:
    if raw is None or (isinstance(raw, str) and raw.strip() == ""):
        raise ValueError("base_url is required")
    if not isinstance(raw, str):
        raise TypeError("base_url must be a string")
    text = raw.strip()
    if any(c.isspace() or ord(c) < 0x20 for c in text):
        raise ValueError("base_url is not a URL")
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018  (raises ValueError for a port that is not a number)
    except ValueError:
        raise ValueError("base_url is not a URL") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise ValueError(f"base_url must be an http or https URL, not {scheme or 'none'}")
    if not parts.hostname:
        raise ValueError("base_url is not a URL: it names no host")
    if parts.username is not None or parts.password is not None or parts.query or parts.fragment:
        raise ValueError("base_url must not carry credentials, a query or a fragment")
    return urlunsplit((scheme, parts.netloc, parts.path.rstrip("/"), "", ""))


def _seconds(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number of seconds")
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive number of seconds")
    return float(value)
