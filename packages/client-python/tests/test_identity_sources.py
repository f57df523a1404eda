"""Workload identity token sources, each against a real socket: the token files of Kubernetes
and OIDC, an OIDC callback, stand-ins for the GCP metadata server and the Azure instance
metadata service, and an AWS ``GetCallerIdentity`` signed with botocore from given and from
default-chain credentials, checked on the receiving side by signing it again."""

from __future__ import annotations

import base64
import dataclasses
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable
from urllib.parse import parse_qs, urlsplit

import pytest
from botocore.credentials import Credentials

from support.exchange_service import IDENTITY_ID, OK, ExchangeService, Verdict
from support.sigv4_check import sigv4_problem
from svc_client import (
    AwsCredentials,
    ServiceClient,
    ServiceInitError,
    WorkloadIdentity,
    silent_logger,
)


@pytest.fixture(scope="module")
def service() -> Iterator[ExchangeService]:
    fake = ExchangeService()
    fake.ttl = 600
    yield fake
    fake.close()


@pytest.fixture(autouse=True)
def _reset(service: ExchangeService) -> None:
    service.exchanges.clear()
    service.metadata_requests.clear()
    service.verify = lambda body: OK


Create = Callable[..., ServiceClient]


@pytest.fixture
def create(service: ExchangeService) -> Iterator[Create]:
    clients: list[ServiceClient] = []

    def make(method: str, **settings: Any) -> ServiceClient:
        identity = WorkloadIdentity(identity_id=IDENTITY_ID, method=method, **settings)  # type: ignore[arg-type]
        client = ServiceClient.create(
            base_url=service.base_url, identity=identity, stream=False, logger=silent_logger
        )
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


def create_fails(create: Create, method: str, **settings: Any) -> str:
    """The exchange's failure at ``create()``: the reason's message."""
    with pytest.raises(ServiceInitError) as caught:
        create(method, **settings)
    return str(caught.value.__cause__)


def test_kubernetes_sends_the_token_file_read_again_at_each_exchange(
    create: Create, service: ExchangeService, tmp_path: Path
) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("k8s-token-1\n")
    client = create("kubernetes", token_file=token_file)
    assert service.exchanges == [{"identity_id": IDENTITY_ID, "token": "k8s-token-1"}]
    assert client.get_key_type() == "sk"
    token_file.write_text("k8s-token-2")
    create("kubernetes", token_file=str(token_file))
    assert service.exchanges[1]["token"] == "k8s-token-2"


def test_kubernetes_default_file_is_the_service_account_token(
    create: Create, service: ExchangeService
) -> None:
    reason = create_fails(create, "kubernetes")
    assert reason.startswith(
        "identity: cannot read the token file /var/run/secrets/kubernetes.io/serviceaccount/token"
    )
    assert service.exchanges == []


def test_oidc_token_file_empty_or_oversized_is_refused(
    create: Create, service: ExchangeService, tmp_path: Path
) -> None:
    token_file = tmp_path / "oidc"
    token_file.write_text("  eyJ.oidc.token  ")
    create("oidc", token_file=token_file)
    assert service.exchanges[0]["token"] == "eyJ.oidc.token"
    token_file.write_text("\n")
    assert "gave an empty token" in create_fails(create, "oidc", token_file=token_file)
    token_file.write_text("x" * (65 * 1024))
    assert "larger than 65536" in create_fails(create, "oidc", token_file=token_file)
    assert len(service.exchanges) == 1


def test_oidc_callback_is_asked_at_each_exchange(create: Create, service: ExchangeService) -> None:
    calls = iter(range(1, 10))
    create("oidc", token=lambda: f"ci-token-{next(calls)}")
    create("oidc", token=lambda: f"ci-token-{next(calls)}")
    assert [e["token"] for e in service.exchanges] == ["ci-token-1", "ci-token-2"]

    def broken() -> str:
        raise RuntimeError("no CI token")

    assert create_fails(create, "oidc", token=broken) == "identity: the token callback failed"


def test_gcp_asks_the_metadata_server_for_the_audience(
    create: Create, service: ExchangeService
) -> None:
    service.gcp_token = "gcp.jwt.token"
    create("gcp", audience="https://svc.example/acme", metadata_url=f"{service.origin}/gcp")
    url, headers = service.metadata_requests[0]
    parts = urlsplit(url)
    assert parts.path == "/gcp/computeMetadata/v1/instance/service-accounts/default/identity"
    assert parse_qs(parts.query) == {"audience": ["https://svc.example/acme"], "format": ["full"]}
    assert headers["metadata-flavor"] == "Google"
    assert service.exchanges[0]["token"] == "gcp.jwt.token"


def test_azure_asks_the_instance_metadata_service_for_the_audience(
    create: Create, service: ExchangeService
) -> None:
    service.azure_token = "azure.jwt.token"
    metadata_url = f"{service.origin}/azure/"
    create("azure", audience="api://svc", metadata_url=metadata_url)
    create("azure", audience="api://svc", metadata_url=metadata_url, client_id="c-123")
    system, user = (parse_qs(urlsplit(url).query) for url, _ in service.metadata_requests)
    assert system == {"api-version": ["2018-02-01"], "resource": ["api://svc"]}
    assert user["client_id"] == ["c-123"]
    assert service.metadata_requests[0][1]["metadata"] == "true"
    assert [e["token"] for e in service.exchanges] == ["azure.jwt.token"] * 2


def test_a_metadata_server_that_refuses_or_is_absent_fails_create(
    create: Create, service: ExchangeService
) -> None:
    refused = create_fails(create, "gcp", audience="x", metadata_url=f"{service.origin}/gcp/x")
    assert refused == "identity: the GCP metadata server answered HTTP 404"
    down = create_fails(create, "azure", audience="x", metadata_url="http://127.0.0.1:9")
    assert down.startswith("identity: the Azure metadata service failed: ")
    assert service.exchanges == []


CREDENTIALS = AwsCredentials(
    access_key="AKIAIOSFODNN7EXAMPLE",
    secret_key="wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    token="session-token-example",
)


def accept_signed_by(
    service: ExchangeService,
    credentials: AwsCredentials,
    region: str = "us-east-1",
    must_sign: tuple[str, ...] = (),
) -> list[str | None]:
    """The exchange accepts only a request signed by ``credentials``."""
    problems: list[str | None] = []
    botocore_credentials = Credentials(credentials.access_key, credentials.secret_key)

    def verify(body: dict[str, Any]) -> Verdict:
        problem = sigv4_problem(body.get("aws") or {}, botocore_credentials, region, must_sign)
        problems.append(problem)
        return OK if problem is None else Verdict(401, "unauthorized", "upstream_rejected")

    service.verify = verify
    return problems


def test_aws_signs_get_caller_identity_for_the_global_endpoint(
    create: Create, service: ExchangeService
) -> None:
    problems = accept_signed_by(service, CREDENTIALS)
    create("aws", credentials=CREDENTIALS)
    assert problems == [None]
    aws = service.exchanges[0]["aws"]
    assert "token" not in service.exchanges[0]
    assert aws["method"] == "POST"
    assert aws["url"] == "https://sts.amazonaws.com/"
    assert base64.b64decode(aws["body"]) == b"Action=GetCallerIdentity&Version=2011-06-15"
    assert aws["headers"]["Host"] == "sts.amazonaws.com"
    assert aws["headers"]["X-Amz-Security-Token"] == "session-token-example"


def test_aws_signs_the_server_id_for_a_regional_endpoint(
    create: Create, service: ExchangeService
) -> None:
    problems = accept_signed_by(service, CREDENTIALS, "eu-west-1", ("x-svc-server-id",))
    create(
        "aws",
        credentials=lambda: CREDENTIALS,
        server_id="svc.example.com",
        sts_endpoint="https://sts.eu-west-1.amazonaws.com",
    )
    assert problems == [None]
    assert service.exchanges[0]["aws"]["headers"]["X-Svc-Server-Id"] == "svc.example.com"


def test_the_check_fails_for_another_secret_or_a_changed_header(
    create: Create, service: ExchangeService
) -> None:
    other = dataclasses.replace(CREDENTIALS, secret_key="another-secret")
    problems = accept_signed_by(service, other)
    reason = create_fails(create, "aws", credentials=CREDENTIALS)
    assert reason == "identity exchange: HTTP 401 unauthorized: upstream_rejected"
    assert problems == ["bad signature"]
    tampered = dict(service.exchanges[0]["aws"])
    tampered["headers"] = {**tampered["headers"], "Content-Type": "text/plain"}
    botocore_credentials = Credentials(CREDENTIALS.access_key, CREDENTIALS.secret_key)
    assert sigv4_problem(tampered, botocore_credentials, "us-east-1") == "bad signature"


def test_aws_takes_the_default_chain(
    create: Create, service: ExchangeService, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAENVEXAMPLE000001")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "env-secret-access-key-example")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    problems = accept_signed_by(
        service, AwsCredentials("AKIAENVEXAMPLE000001", "env-secret-access-key-example")
    )
    create("aws")
    assert problems == [None]


def test_aws_without_botocore_names_the_extra(
    create: Create, service: ExchangeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    # None in sys.modules makes the import fail, as it does where botocore is not installed.
    monkeypatch.setitem(sys.modules, "botocore.auth", None)
    reason = create_fails(create, "aws", credentials=CREDENTIALS)
    assert reason == "identity: the aws method needs botocore: pip install 'svc-client[aws]'"
    assert service.exchanges == []
