"""Where each method's proof comes from, asked again at every exchange (platform tokens rotate):
Kubernetes — the projected service-account token file; OIDC — a token file or a callback;
GCP — the metadata server's identity token for the audience; Azure — the instance metadata
service's token for the audience; AWS — a signed ``GetCallerIdentity`` (aws.py)."""

from __future__ import annotations

import json
from typing import Any, Callable

import httpx

from .._errors import ServiceError
from .aws import signed_caller_identity
from .http import MAX_ANSWER_BYTES, bounded_request
from .settings import WorkloadIdentity

WorkloadCredential = dict[str, Any]
"""What the exchange sends beside ``identity_id``: ``{"token": ...}`` or ``{"aws": {...}}``."""

KUBERNETES_TOKEN_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/token"
GCP_METADATA_URL = "http://metadata.google.internal"
AZURE_METADATA_URL = "http://169.254.169.254"


def credential_source(
    identity: WorkloadIdentity, http: httpx.Client
) -> Callable[[], WorkloadCredential]:
    """The credential source of ``identity``'s method."""
    method = identity.method
    if method == "kubernetes":
        path = str(identity.token_file or KUBERNETES_TOKEN_FILE)
        return lambda: {"token": _token_file(path)}
    if method == "oidc":
        if identity.token_file is not None:
            file = str(identity.token_file)
            return lambda: {"token": _token_file(file)}
        callback = identity.token
        assert callback is not None  # resolve_identity checked it
        return lambda: {"token": _callback_token(callback)}
    if method == "gcp":
        return lambda: {"token": _gcp_token(identity, http)}
    if method == "azure":
        return lambda: {"token": _azure_token(identity, http)}
    sign = signed_caller_identity(identity)
    return lambda: {"aws": sign()}


def _token_file(path: str) -> str:
    """A token file's content, trimmed; at most 64 KiB."""
    try:
        with open(path, "rb") as file:
            content = file.read(MAX_ANSWER_BYTES + 1)
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise ServiceError(f"identity: cannot read the token file {path} ({reason})") from error
    if len(content) > MAX_ANSWER_BYTES:
        raise ServiceError(
            f"identity: the token file {path} is larger than {MAX_ANSWER_BYTES} bytes"
        )
    return _non_empty(content.decode("utf-8", "replace"), f"the token file {path}")


def _callback_token(callback: Callable[[], str]) -> str:
    try:
        value = callback()
    except Exception as error:
        raise ServiceError("identity: the token callback failed") from error
    if not isinstance(value, str) or len(value) > MAX_ANSWER_BYTES:
        raise ServiceError("identity: the token callback must give a string (at most 64 KiB)")
    return _non_empty(value, "the token callback")


def _gcp_token(identity: WorkloadIdentity, http: httpx.Client) -> str:
    """GCP: an ID token for the audience, with the full claims (``email``, project)."""
    what = "identity: the GCP metadata server"
    base = (identity.metadata_url or GCP_METADATA_URL).rstrip("/")
    answer = bounded_request(
        http,
        what,
        "GET",
        f"{base}/computeMetadata/v1/instance/service-accounts/default/identity",
        headers={"Metadata-Flavor": "Google"},
        params={"audience": str(identity.audience), "format": "full"},
    )
    if answer.status != 200:
        raise ServiceError(f"{what} answered HTTP {answer.status}")
    return _non_empty(answer.content.decode("utf-8", "replace"), "the GCP metadata server")


def _azure_token(identity: WorkloadIdentity, http: httpx.Client) -> str:
    """Azure: a managed identity's access token for the audience (the IMDS ``resource``)."""
    what = "identity: the Azure metadata service"
    base = (identity.metadata_url or AZURE_METADATA_URL).rstrip("/")
    params = {"api-version": "2018-02-01", "resource": str(identity.audience)}
    if identity.client_id:
        params["client_id"] = identity.client_id
    answer = bounded_request(
        http,
        what,
        "GET",
        f"{base}/metadata/identity/oauth2/token",
        headers={"Metadata": "true"},
        params=params,
    )
    if answer.status != 200:
        raise ServiceError(f"{what} answered HTTP {answer.status}")
    try:
        token = json.loads(answer.content).get("access_token")
    except (ValueError, AttributeError):
        token = None
    if not isinstance(token, str):
        raise ServiceError(f"{what} gave no access_token")
    return _non_empty(token, "the Azure metadata service")


def _non_empty(token: str, source: str) -> str:
    trimmed = token.strip()
    if not trimmed:
        raise ServiceError(f"identity: {source} gave an empty token")
    return trimmed
