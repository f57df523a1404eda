"""A workload identity's settings: every mistake is a ValueError (a wrong type: TypeError)
naming the field, before any request."""

from __future__ import annotations

from typing import Any

import pytest

from svc_client import RetryOptions, ServiceClient, ServiceConfig, WorkloadIdentity
from svc_client._config import resolve_config

SK = "svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN"
ID = "f3c1b7de-0000-4000-8000-000000000001"
DEAD = "http://127.0.0.1:9/acme"  # nothing listens: a request would fail differently


def identity(method: str = "kubernetes", **settings: Any) -> WorkloadIdentity:
    settings.setdefault("identity_id", ID)
    return WorkloadIdentity(method=method, **settings)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("settings", "error", "message"),
    [
        ({"api_key": SK, "identity": identity()}, ValueError, "exclude each other"),
        ({"identity": identity(identity_id="a/b")}, ValueError, "identity.identity_id must be"),
        ({"identity": identity("ldap")}, ValueError, "identity.method must be one of"),
        ({"identity": identity("oidc")}, ValueError, "either token_file or token"),
        (
            {"identity": identity("oidc", token_file="/t", token=lambda: "t")},
            ValueError,
            "either token_file or token",
        ),
        ({"identity": identity("oidc", token="abc")}, TypeError, "identity.token must be a"),
        ({"identity": identity("gcp")}, ValueError, "identity.audience is required"),
        ({"identity": identity("azure", audience=" ")}, ValueError, "must be a non-empty string"),
        (
            {"identity": identity(audience="x")},
            ValueError,
            "identity.audience does not apply to the kubernetes method",
        ),
        (
            {"identity": identity("gcp", audience="a", metadata_url="http://m/?x=1")},
            ValueError,
            "identity.metadata_url must be an http(s) URL",
        ),
        (
            {"identity": identity("aws", sts_endpoint="https://u:p@sts.amazonaws.com")},
            ValueError,
            "identity.sts_endpoint must be",
        ),
        (
            {"identity": identity("aws", credentials=object())},
            TypeError,
            "identity.credentials must have",
        ),
        ({"identity": identity(refresh_at=1)}, ValueError, "identity.refresh_at must be"),
        (
            {"identity": identity(retry=RetryOptions(initial_delay=0))},
            ValueError,
            "identity.retry.initial_delay must be",
        ),
        ({"identity": "kubernetes"}, TypeError, "identity must be a WorkloadIdentity"),
    ],
)
def test_refused_before_any_request(
    settings: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        ServiceClient.create(base_url=DEAD, **settings)


def test_defaults_refresh_at_two_thirds_retries_from_one_to_thirty_seconds() -> None:
    resolved = resolve_config(ServiceConfig(base_url=DEAD, identity=identity()))
    assert resolved.identity is not None
    assert resolved.identity.refresh_at == pytest.approx(2 / 3)
    assert resolved.identity.retry == RetryOptions(1.0, 30.0)
    assert resolved.api_key == ""


def test_an_api_key_is_still_required_without_an_identity() -> None:
    with pytest.raises(ValueError, match="api_key is required"):
        resolve_config(ServiceConfig(base_url=DEAD))


def test_reprs_show_no_token_or_key() -> None:
    config = ServiceConfig(base_url=DEAD, api_key=SK)
    assert SK not in repr(config)
    assert "secret" not in repr(identity("oidc", token=lambda: "secret"))
