"""The receiving side of the ``aws`` method, as STS would check it: the signed
``GetCallerIdentity`` request is signed again with botocore's SigV4 signer from the same
credentials, date and signed headers, and the two signatures must match."""

from __future__ import annotations

import base64
import re
from typing import Any

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

_AUTHORIZATION = re.compile(
    r"AWS4-HMAC-SHA256 Credential=([^/]+)/\d{8}/([^/]+)/sts/aws4_request, "
    r"SignedHeaders=([^,]+), Signature=([0-9a-f]{64})"
)


def sigv4_problem(
    request: dict[str, Any], credentials: Credentials, region: str, must_sign: tuple[str, ...] = ()
) -> str | None:
    """Why ``request`` is not a valid signature by ``credentials``, or None when it is."""
    headers = {k.lower(): v for k, v in (request.get("headers") or {}).items()}
    match = _AUTHORIZATION.fullmatch(headers.get("authorization", ""))
    if match is None:
        return "no SigV4 Authorization header"
    access_key, signed_region, signed_list, signature = match.groups()
    if access_key != credentials.access_key:
        return "another access key"
    if signed_region != region:
        return f"signed for {signed_region}"
    signed = signed_list.split(";")
    for name in ("host", "x-amz-date", *must_sign):
        if name not in signed:
            return f"{name} is not signed"
    body = base64.b64decode(str(request.get("body")))
    if b"Action=GetCallerIdentity" not in body:
        return "not GetCallerIdentity"
    again = AWSRequest(
        method=str(request.get("method")),
        url=str(request.get("url")),
        data=body,
        headers={name: headers[name] for name in signed if name in headers},
    )
    again.context["timestamp"] = headers["x-amz-date"]
    auth = SigV4Auth(credentials, "sts", region)
    string_to_sign = auth.string_to_sign(again, auth.canonical_request(again))
    return None if auth.signature(string_to_sign, again) == signature else "bad signature"
