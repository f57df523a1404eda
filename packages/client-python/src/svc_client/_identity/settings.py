"""``WorkloadIdentity``: what a client takes instead of ``api_key`` to prove who it is with its
platform's token and exchange it for short-lived keys (contract, "Workload identity
federation"), and its validation: a ValueError (a wrong type: TypeError) naming the field,
before any request."""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field, fields, replace
from typing import Callable, Literal, Protocol, get_args

IdentityMethod = Literal["kubernetes", "aws", "gcp", "azure", "oidc"]
_METHODS: tuple[str, ...] = get_args(IdentityMethod)


class AwsCredentialsLike(Protocol):
    """AWS credentials as botocore's ``Credentials`` carry them."""

    @property
    def access_key(self) -> str: ...
    @property
    def secret_key(self) -> str: ...
    @property
    def token(self) -> str | None: ...


@dataclass(frozen=True)
class AwsCredentials:
    """AWS credentials given to the ``aws`` method instead of the default chain."""

    access_key: str
    secret_key: str
    token: str | None = None
    """The session token of temporary credentials."""

    def __repr__(self) -> str:
        return f"AwsCredentials(access_key={self.access_key!r}, secret_key=..., token=...)"


@dataclass(frozen=True)
class RetryOptions:
    """Delays between failed exchanges, in seconds: doubling, with jitter."""

    initial_delay: float = 1.0
    max_delay: float = 30.0


@dataclass(frozen=True)
class WorkloadIdentity:
    """A workload identity: the identity's id (from the console or the management API) and the
    method whose token the client presents. Every other field overrides a default of its
    method."""

    identity_id: str
    method: IdentityMethod
    token_file: str | os.PathLike[str] | None = None
    """``kubernetes``: the projected service-account token (default
    ``/var/run/secrets/kubernetes.io/serviceaccount/token``). ``oidc``: a file holding the
    token. Read again at each exchange: platforms rotate these files."""
    token: Callable[[], str] | None = None
    """``oidc``: gives the token at each exchange (instead of ``token_file``)."""
    audience: str | None = None
    """``gcp``, ``azure``: the audience the token is asked for (the identity's ``audience``)."""
    metadata_url: str | None = None
    """``gcp``: the metadata server (default ``http://metadata.google.internal``). ``azure``:
    the instance metadata service (default ``http://169.254.169.254``)."""
    client_id: str | None = None
    """``azure``: the client id of a user-assigned managed identity."""
    sts_endpoint: str | None = None
    """``aws``: the STS endpoint the ``GetCallerIdentity`` request is signed for: the identity's
    ``sts_endpoint`` (default ``https://sts.amazonaws.com/``)."""
    region: str | None = None
    """``aws``: the signing region; default the endpoint's (``sts.{region}.amazonaws.com``) or
    ``us-east-1``."""
    server_id: str | None = None
    """``aws``: the identity's ``server_id``, sent (and signed) as ``X-Svc-Server-Id``."""
    credentials: AwsCredentialsLike | Callable[[], AwsCredentialsLike] | None = None
    """``aws``: credentials instead of botocore's default chain (environment, profile, SSO,
    container, instance metadata, ...)."""
    refresh_at: float = 2 / 3
    """When to exchange again, as a share of the key's life."""
    retry: RetryOptions = field(default_factory=RetryOptions)

    def __repr__(self) -> str:
        return f"WorkloadIdentity(identity_id={self.identity_id!r}, method={self.method!r})"


_FIELDS: dict[str, tuple[str, ...]] = {
    "kubernetes": ("token_file",),
    "oidc": ("token_file", "token"),
    "gcp": ("audience", "metadata_url"),
    "azure": ("audience", "metadata_url", "client_id"),
    "aws": ("sts_endpoint", "region", "server_id", "credentials"),
}
_STRINGS = ("audience", "metadata_url", "client_id", "sts_endpoint", "region", "server_id")
_URL = re.compile(r"https?://[^/?#@\s]+(/[^?#\s]*)?")


def resolve_identity(identity: object) -> WorkloadIdentity:
    """Checks ``identity``; the error names the first problem (never a token)."""
    if not isinstance(identity, WorkloadIdentity):
        raise TypeError("identity must be a WorkloadIdentity")
    if not isinstance(identity.identity_id, str) or not re.fullmatch(
        r"[\w.-]{1,128}", identity.identity_id, re.ASCII
    ):
        raise ValueError("identity.identity_id must be an identity id")
    method = identity.method
    if method not in _METHODS:
        raise ValueError(f"identity.method must be one of {', '.join(_METHODS)}")
    for item in fields(identity):
        name = item.name
        if name in ("identity_id", "method", "refresh_at", "retry"):
            continue
        value = getattr(identity, name)
        if value is None:
            continue
        if name not in _FIELDS[method]:
            raise ValueError(f"identity.{name} does not apply to the {method} method")
        if name in _STRINGS and (not isinstance(value, str) or not value.strip()):
            raise ValueError(f"identity.{name} must be a non-empty string")
    _check_method(identity)
    refresh_at = identity.refresh_at
    if isinstance(refresh_at, bool) or not isinstance(refresh_at, (int, float)):
        raise TypeError("identity.refresh_at must be a number")
    if not 0 < refresh_at < 1:
        raise ValueError("identity.refresh_at must be between 0 and 1")
    retry = identity.retry
    if not isinstance(retry, RetryOptions):
        raise TypeError("identity.retry must be a RetryOptions")
    for name in ("initial_delay", "max_delay"):
        value = getattr(retry, name)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"identity.retry.{name} must be a number of seconds")
        if not math.isfinite(value) or value <= 0:
            raise ValueError(f"identity.retry.{name} must be a positive number of seconds")
    token_file = identity.token_file
    return replace(identity, token_file=None if token_file is None else os.fspath(token_file))


def _check_method(identity: WorkloadIdentity) -> None:
    method = identity.method
    if method == "oidc" and (identity.token_file is None) == (identity.token is None):
        raise ValueError("identity: the oidc method takes either token_file or token")
    if identity.token is not None and not callable(identity.token):
        raise TypeError("identity.token must be a function")
    if identity.token_file is not None and not isinstance(identity.token_file, (str, os.PathLike)):
        raise TypeError("identity.token_file must be a path")
    if method in ("gcp", "azure") and identity.audience is None:
        raise ValueError(f"identity.audience is required by the {method} method")
    for name in ("metadata_url", "sts_endpoint"):
        url = getattr(identity, name)
        if url is not None and not _URL.fullmatch(url):
            raise ValueError(f"identity.{name} must be an http(s) URL without query or credentials")
    credentials = identity.credentials
    if (
        credentials is not None
        and not callable(credentials)
        and not (
            isinstance(getattr(credentials, "access_key", None), str)
            and isinstance(getattr(credentials, "secret_key", None), str)
        )
    ):
        raise TypeError(
            "identity.credentials must have access_key and secret_key, or be a function giving them"
        )
