"""The client's errors, one class per row of the spec's exception table.

Every error the client raises for a service condition is a :class:`ServiceError`; a bad
setting or argument value is a plain :class:`ValueError` (the spec's IllegalArgumentException)
and a wrong argument type a :class:`TypeError`, both raised before any request.
"""

from __future__ import annotations


class ServiceError(Exception):
    """Base of every client error.

    Raised as itself for any other transport, protocol or decoding failure: a network error, a
    timeout, a 400 ``invalid_request`` or a 409 ``version_conflict`` of a write, a 5xx, a body
    off the contract, or a call that needs the network on a closed client.
    """

    status: int | None
    """The HTTP status, when the error is an HTTP answer."""
    code: str | None
    """The contract's error code from the problem+json body (``unauthorized``, ...), if any."""

    def __init__(self, message: str, *, status: int | None = None, code: str | None = None) -> None:
        """``message`` says what failed; it never holds a secret value or an API key."""
        super().__init__(message)
        self.status = status
        self.code = code


class ServiceInitError(ServiceError):
    """``ServiceClient.create()`` failed: the initial sync did not succeed.

    ``__cause__`` holds the reason: a :class:`ServiceUnauthorizedError`,
    :class:`ServiceNotFoundError`, :class:`ServiceQuarantinedError`, or a plain
    :class:`ServiceError` for network failures.
    """

    def __init__(self, cause: BaseException) -> None:
        super().__init__(f"initial sync failed: {cause}")
        self.__cause__ = cause


class ServiceUnauthorizedError(ServiceError):
    """HTTP 401: the API key is wrong, revoked, or belongs to another workspace."""


class ServiceNotFoundError(ServiceError):
    """HTTP 404: the workspace in the base URL does not exist, or a write's target is missing.

    ``code`` is then ``secret_not_found`` or ``version_not_found``.
    """


class ServicePublicKeyError(ServiceError):
    """``get_secret`` or a write was used with a public key (``svp_...``); nothing was sent."""

    def __init__(self, operation: str) -> None:
        super().__init__(
            f"{operation} needs a secret key (svs_...); this client holds a public key",
            code="public_key_forbidden",
        )


class ServiceSecretNotFoundError(ServiceError):
    """``get_secret`` of a key that is not in the client's cache."""

    key: str
    """The secret's key."""

    def __init__(self, key: str) -> None:
        super().__init__(f'secret "{key}" is not in the cache', code="secret_not_found")
        self.key = key


class ServiceAbAddonNotAvailableError(ServiceError):
    """HTTP 403 on ``evaluate_ab``: the project's AB Testing add-on is not active."""


class ServiceBillingError(ServiceError):
    """HTTP 402 on ``evaluate_ab`` or a write: the workspace's billing is overdue."""


class _RetryAfterError(ServiceError):
    """A 429: what both kinds of refusal carry."""

    retry_after: int
    """Seconds to wait (the ``Retry-After`` header)."""

    def __init__(
        self, message: str, *, retry_after: int, status: int | None = 429, code: str | None
    ) -> None:
        super().__init__(message, status=status, code=code)
        self.retry_after = retry_after


class ServiceRateLimitedError(_RetryAfterError):
    """HTTP 429 on a write: the key's write rate limit is exhausted; ``retry_after`` is the
    number of seconds before the next write."""


class ServiceQuarantinedError(_RetryAfterError):
    """HTTP 429 on a sync: the key synced too often and is quarantined.

    The client makes no sync request until ``retry_after`` seconds have passed; a ``sync()``
    before then fails at once with this error.
    """
