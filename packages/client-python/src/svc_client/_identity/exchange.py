"""The exchange: ``POST {base_url}/v1/auth/token`` with the identity's id and the workload's
proof (no API key header), answered with a short-lived key of the usual shape."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import httpx

from .._api_key import KeyType, key_type_of
from .._errors import ServiceError, ServiceRateLimitedError, ServiceUnauthorizedError
from .._transport import retry_after_seconds
from .http import bounded_request
from .sources import WorkloadCredential

_WHAT = "identity exchange"


@dataclass(frozen=True)
class MintedKey:
    """A key the exchange minted."""

    key: str
    key_type: KeyType
    lifetime: float
    """Its lifetime from the moment the answer arrived, in seconds (``expires_in``)."""

    def __repr__(self) -> str:
        return f"MintedKey(key_type={self.key_type!r}, lifetime={self.lifetime})"


def exchange_key(
    http: httpx.Client, base_url: str, identity_id: str, credential: WorkloadCredential
) -> MintedKey:
    """Exchanges ``credential`` for a key.

    :raises ServiceUnauthorizedError: on 401 (the message names the failed check).
    :raises ServiceRateLimitedError: on 429 (``retry_after``).
    :raises ServiceError: for anything else (``upstream_unavailable`` on 502, a network
        failure, a malformed answer).
    """
    answer = bounded_request(
        http,
        f"{_WHAT}:",
        "POST",
        f"{base_url}/v1/auth/token",
        headers={"Accept": "application/json"},
        json={"identity_id": identity_id, **credential},
    )
    body = _parse(answer.content)
    if answer.status != 200:
        code = body.get("code") if isinstance(body.get("code"), str) else None
        detail = body.get("detail")
        message = f"{_WHAT}: HTTP {answer.status}" + (f" {code}" if code else "")
        message += f": {detail}" if isinstance(detail, str) else ""
        if answer.status == 401:
            raise ServiceUnauthorizedError(message, status=401, code=code)
        if answer.status == 429:
            retry_after = retry_after_seconds(answer.headers.get("Retry-After"))
            raise ServiceRateLimitedError(message, status=429, code=code, retry_after=retry_after)
        raise ServiceError(message, status=answer.status, code=code)
    key = body.get("key")
    key_type = key_type_of(key) if isinstance(key, str) else None
    expires_in = body.get("expires_in")
    if (
        key_type is None
        or isinstance(expires_in, bool)
        or not isinstance(expires_in, (int, float))
        or not expires_in > 0
    ):
        raise ServiceError(f"{_WHAT}: the answer has no valid key and expires_in")
    assert isinstance(key, str)
    return MintedKey(key, key_type, float(expires_in))


def _parse(content: bytes) -> dict[str, Any]:
    try:
        value = json.loads(content)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
