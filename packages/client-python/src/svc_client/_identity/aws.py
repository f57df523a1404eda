"""The ``aws`` method's proof: a ``GetCallerIdentity`` request to STS, signed (SigV4) with the
workload's AWS credentials but not sent: the service forwards it to its configured STS endpoint
and learns the caller's account and ARN from the answer.

botocore does the work: its default credential chain and its SigV4 signer. It is the optional
extra ``svc-client[aws]``, imported on first use, so a client of any other method neither needs
nor loads it.
"""

from __future__ import annotations

import base64
import re
import threading
from typing import Any, Callable
from urllib.parse import urlsplit

from .._errors import ServiceError
from .._transport import describe
from .settings import AwsCredentialsLike, WorkloadIdentity

DEFAULT_STS_ENDPOINT = "https://sts.amazonaws.com/"
_BODY = "Action=GetCallerIdentity&Version=2011-06-15"
_REGIONAL = re.compile(r"sts(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?")


def signed_caller_identity(identity: WorkloadIdentity) -> Callable[[], dict[str, Any]]:
    """A function signing a fresh request each time; botocore resolves (and refreshes)
    credentials."""
    url = identity.sts_endpoint or DEFAULT_STS_ENDPOINT
    parts = urlsplit(url)
    if not parts.path:
        url += "/"
    match = _REGIONAL.fullmatch(parts.hostname or "")
    region = identity.region or (match.group(1) if match else "us-east-1")
    lock = threading.Lock()
    chain: list[Any] = []  # botocore's credentials of the default chain, once found

    def credentials() -> AwsCredentialsLike:
        given = identity.credentials
        if given is not None:
            return given() if callable(given) else given
        with lock:
            if not chain:
                from botocore.session import get_session  # noqa: PLC0415 (optional, on first use)

                found = get_session().get_credentials()
                if found is None:
                    raise ServiceError("identity: the AWS default credential chain found none")
                chain.append(found)
            return chain[0].get_frozen_credentials()  # type: ignore[no-any-return]

    def sign() -> dict[str, Any]:
        try:
            # The optional extra, imported on first use.
            from botocore.auth import SigV4Auth  # noqa: PLC0415
            from botocore.awsrequest import AWSRequest  # noqa: PLC0415
            from botocore.credentials import ReadOnlyCredentials  # noqa: PLC0415
        except ImportError as error:
            raise ServiceError(
                "identity: the aws method needs botocore: pip install 'svc-client[aws]'"
            ) from error
        headers = {
            "Host": parts.netloc,
            "Content-Type": "application/x-www-form-urlencoded; charset=utf-8",
        }
        if identity.server_id is not None:
            headers["X-Svc-Server-Id"] = identity.server_id
        try:
            request = AWSRequest(method="POST", url=url, data=_BODY, headers=headers)
            given = credentials()
            frozen = ReadOnlyCredentials(given.access_key, given.secret_key, given.token)
            SigV4Auth(frozen, "sts", region).add_auth(request)
        except ServiceError:
            raise
        except Exception as error:
            raise ServiceError(
                f"identity: signing GetCallerIdentity failed: {describe(error)}"
            ) from error
        return {
            "method": "POST",
            "url": url,
            "headers": dict(request.headers.items()),
            "body": base64.b64encode(_BODY.encode()).decode(),
        }

    return sign
