"""The calls that always go over the network, never to the cache: AB evaluation and the secret
write API. The cache learns of a write through the change stream (or the next sync), like of
anyone else's."""

from __future__ import annotations

import collections.abc
from collections.abc import Iterable, Mapping
from typing import Any

import httpx

from ._api_key import require_secret_key
from ._config import ResolvedConfig
from ._errors import ServiceError
from ._logger import ServiceLogger
from ._transport import Operation, Transport, error_of, read_json, secret_path


class NetworkCalls:
    """The network half of :class:`ServiceClient`, mixed into it; it only needs the client's
    settings, logger and transport."""

    _config: ResolvedConfig
    _logger: ServiceLogger
    _transport: Transport

    def evaluate_ab(
        self,
        keys: Iterable[str],
        user_id: str,
        attributes: Mapping[str, Any] | None = None,
    ) -> dict[str, bool]:
        """Evaluates flags for one user with AB Testing semantics
        (``POST /v1/flags/evaluate-ab``), always over the network. Every requested key is in the
        answer; unknown or inactive flags are False.

        :param keys: 1 to 100 flag keys.
        :param user_id: the user's id (1 to 256 characters): the rollout is sticky per user.
        :param attributes: targeting attributes (up to 50), such as ``{"country": "DE"}``.
        :raises ServiceAbAddonNotAvailableError: on 403. :raises ServiceBillingError: on 402.
        :raises ServiceUnauthorizedError: on 401. :raises ServiceError: for anything else.
        """
        if isinstance(keys, (str, bytes)) or not isinstance(keys, collections.abc.Iterable):
            raise TypeError("keys must be a list of strings")
        flags = list(keys)
        if not all(isinstance(key, str) for key in flags):
            raise TypeError("keys must be a list of strings")
        if not isinstance(user_id, str):
            raise TypeError("user_id must be a string")
        if attributes is not None and not isinstance(attributes, collections.abc.Mapping):
            raise TypeError("attributes must be a mapping")
        body = {"flags": flags, "user_id": user_id, "attributes": dict(attributes or {})}
        response = self._transport.send(
            "POST", "/v1/flags/evaluate-ab", {"Accept": "application/json"}, body
        )
        _expect_ok(response, "evaluateAB")
        answer = read_json(response, "evaluateAB")
        results = answer.get("results") if isinstance(answer, dict) else None
        if not isinstance(results, dict) or not all(type(v) is bool for v in results.values()):
            raise ServiceError("evaluateAB: the answer has no results map of booleans")
        return results

    def set_secret(self, key: str, value: str, expected_version: int | None = None) -> int:
        """Creates or updates a secret (type text) with a new version, in the key's service
        scope when the key is bound to a service, else at project level. The cache sees it
        through the stream within milliseconds, or at the next ``sync()``.

        :param expected_version: write only if the secret's current version is this one (0:
            only if it does not exist yet); else a :class:`ServiceError` with ``code``
            ``version_conflict``.
        :returns: the new version's number.
        :raises ServicePublicKeyError: at once, without a request, for a public key.
        :raises ServiceRateLimitedError: on 429 (``retry_after``).
        :raises ServiceBillingError: on 402. :raises ServiceUnauthorizedError: on 401.
        :raises ServiceError: for anything else (``invalid_request``, network, closed client).
        """
        require_secret_key(self._config.key_type, "set_secret")
        _check_key(key)
        if not isinstance(value, str):
            raise TypeError("value must be a string")
        body: dict[str, Any] = {"value": value}
        if expected_version is not None:
            _check_int("expected_version", expected_version, 0)
            body["expected_version"] = expected_version
        response = self._transport.send(
            "PUT", secret_path(key), {"Accept": "application/json"}, body
        )
        _expect_ok(response, "write")
        answer = read_json(response, "setSecret")
        version = answer.get("version") if isinstance(answer, dict) else None
        if not isinstance(version, int) or isinstance(version, bool):
            raise ServiceError("setSecret: the answer has no version")
        self._logger.debug(f"set_secret: {key} version {version}")
        return version

    def delete_secret(self, key: str) -> None:
        """Deletes a secret and every version of it.

        :raises ServicePublicKeyError: at once for a public key.
        :raises ServiceNotFoundError: (``code`` ``secret_not_found``) when it does not exist;
            otherwise as :meth:`set_secret`.
        """
        require_secret_key(self._config.key_type, "delete_secret")
        _check_key(key)
        _expect_ok(self._transport.send("DELETE", secret_path(key)), "write")

    def delete_secret_version(self, key: str, version: int) -> None:
        """Deletes one version of a secret; deleting the last remaining version deletes the
        secret.

        :raises ServicePublicKeyError: at once for a public key.
        :raises ServiceNotFoundError: (``code`` ``version_not_found``) when that version does not
            exist; otherwise as :meth:`set_secret`.
        """
        require_secret_key(self._config.key_type, "delete_secret_version")
        _check_key(key)
        _check_int("version", version, 1)
        response = self._transport.send("DELETE", secret_path(key, "versions", str(version)))
        _expect_ok(response, "write")


def _expect_ok(response: httpx.Response, operation: Operation) -> None:
    if not 200 <= response.status_code < 300:
        raise error_of(response, operation)


def _check_key(key: object) -> None:
    if not isinstance(key, str):
        raise TypeError("key must be a string")
    if key == "":
        raise ValueError("key must not be empty")


def _check_int(name: str, value: object, minimum: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an integer")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}")
