"""The API key format of the wire contract, checked locally.

A mistyped or truncated key fails at construction instead of as a 401 later: ``svs_`` (secret)
or ``svp_`` (public), then 34 random base62 characters and a 6-character base62 CRC-32 of
everything before them.
"""

from __future__ import annotations

import re
import zlib
from typing import Literal

from ._errors import ServicePublicKeyError

KeyType = Literal["sk", "pk"]
"""The kind of API key a client holds: ``sk`` (secret key) or ``pk`` (public key)."""

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_KEY_PATTERN = re.compile(r"(svs|svp)_[0-9A-Za-z]{40}")
_CHECKSUM_LENGTH = 6


def _to_base62(n: int, width: int) -> str:
    digits = ""
    while n > 0:
        n, rest = divmod(n, 62)
        digits = _BASE62[rest] + digits
    return digits.rjust(width, "0")


def key_type_of(api_key: str) -> KeyType | None:
    """The key type of a well-formed key with a correct checksum, or None for anything else.

    Never echoes the key: callers build their messages without it.
    """
    if _KEY_PATTERN.fullmatch(api_key) is None:
        return None
    body = api_key[:-_CHECKSUM_LENGTH]
    checksum = _to_base62(zlib.crc32(body.encode("ascii")), _CHECKSUM_LENGTH)
    if checksum != api_key[-_CHECKSUM_LENGTH:]:
        return None
    return "sk" if api_key.startswith("svs_") else "pk"


def require_secret_key(key_type: KeyType, operation: str) -> None:
    """Refuses ``operation`` at once, without a request, when the client holds a public key:
    the server would refuse it anyway, and a public key must never see a secret.

    :raises ServicePublicKeyError: for a public key.
    """
    if key_type == "pk":
        raise ServicePublicKeyError(operation)
