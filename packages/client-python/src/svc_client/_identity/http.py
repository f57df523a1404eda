"""The requests of the exchange and of the token sources (metadata servers): a time limit, no
redirects, no API key, and an answer read up to a size limit (a metadata server or an exchange
never sends megabytes; a broken proxy might)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from .._errors import ServiceError
from .._transport import USER_AGENT, describe

MAX_ANSWER_BYTES = 64 * 1024
"""The largest answer read: tokens and exchange answers are a few KiB."""


@dataclass(frozen=True)
class Answer:
    status: int
    headers: httpx.Headers
    content: bytes


def new_client(request_timeout: float) -> httpx.Client:
    """The HTTP client of one ServiceClient's identity calls."""
    return httpx.Client(
        timeout=httpx.Timeout(request_timeout),
        follow_redirects=False,
        headers={"User-Agent": USER_AGENT},
    )


def bounded_request(
    http: httpx.Client,
    what: str,
    method: str,
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    params: Mapping[str, str] | None = None,
    json: Any = None,
) -> Answer:
    """Sends one request and reads the whole answer; a :class:`ServiceError` naming ``what``
    when none arrives, or when it is larger than :data:`MAX_ANSWER_BYTES`."""
    try:
        with http.stream(method, url, headers=headers, params=params, json=json) as response:
            declared = response.headers.get("Content-Length", "")
            if declared.isdigit() and int(declared) > MAX_ANSWER_BYTES:
                raise _too_large(what)
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > MAX_ANSWER_BYTES:
                    raise _too_large(what)
                chunks.append(chunk)
            return Answer(response.status_code, response.headers, b"".join(chunks))
    except ServiceError:
        raise
    except httpx.TimeoutException as error:
        raise ServiceError(f"{what} timed out ({describe(error)})") from error
    except Exception as error:
        raise ServiceError(f"{what} failed: {describe(error)}") from error


def _too_large(what: str) -> ServiceError:
    return ServiceError(f"{what}: the answer is larger than {MAX_ANSWER_BYTES} bytes")
