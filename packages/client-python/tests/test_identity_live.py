"""Workload identity against the real api (the shared live server) and the testkit's stand-ins:
an OIDC token file and an AWS ``GetCallerIdentity`` signed with botocore and checked by the STS
stand-in through the api's exchange; and a client whose keys live 60 s (the shortest the api
mints) and refresh every 3 s keeps serving across the refreshes and misses no change made across
them (``Last-Event-ID``)."""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import RecordingLogger
from support.fake_service import wait_until
from support.identity_upstreams import IdentityUpstreams
from support.live_server import LiveServer
from svc_client import (
    AwsCredentials,
    ChangeSet,
    ServiceClient,
    ServiceInitError,
    ServiceUnauthorizedError,
    WorkloadIdentity,
)

_workspaces = itertools.count(1)


@pytest.fixture(scope="module")
def upstreams() -> Iterator[IdentityUpstreams]:
    stand_ins = IdentityUpstreams()
    yield stand_ins
    stand_ins.close()


class Workspace:
    """A workspace with a project, a config and one identity per test (made on demand)."""

    def __init__(self, live: LiveServer, upstreams: IdentityUpstreams) -> None:
        self.live = live
        self.upstreams = upstreams
        self.ws = f"identity-py-{os.getpid()}-{next(_workspaces)}"
        self.path = f"/workspaces/{self.ws}/projects/web"
        live.admin("POST", "/workspaces", {"slug": self.ws, "name": "Identity"})
        live.admin("POST", f"/workspaces/{self.ws}/projects", {"slug": "web", "name": "Web"})
        live.admin("PUT", f"{self.path}/configs/greeting", {"value": "hello", "is_public": False})
        self.clients: list[ServiceClient] = []

    def identity(self, method: str, block: dict[str, Any], ttl: int = 900) -> str:
        body = {"name": f"{method} {ttl}", "kind": "secret", "ttl_s": ttl, "method": method}
        created = self.live.admin("POST", f"{self.path}/identities", {**body, method: block})
        return str(created["id"])

    def oidc_identity(self, ttl: int = 900) -> str:
        oidc = self.upstreams.oidc
        return self.identity(
            "oidc", {"issuer": oidc["issuer"], "audiences": [oidc["audience"]]}, ttl
        )

    def client(self, identity: WorkloadIdentity, **settings: Any) -> ServiceClient:
        client = ServiceClient.create(
            base_url=f"{self.live.api_url}/{self.ws}",
            identity=identity,
            logger=settings.pop("logger", RecordingLogger()),
            **{"stream": False, **settings},
        )
        self.clients.append(client)
        return client


@pytest.fixture
def workspace(live: LiveServer, upstreams: IdentityUpstreams) -> Iterator[Workspace]:
    space = Workspace(live, upstreams)
    yield space
    for client in space.clients:
        client.close()


def test_an_oidc_token_file_gets_a_working_key(
    workspace: Workspace, upstreams: IdentityUpstreams, tmp_path: Path
) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(upstreams.oidc["token"])
    identity_id = workspace.oidc_identity()
    client = workspace.client(WorkloadIdentity(identity_id, "oidc", token_file=token_file))
    assert client.get_config("greeting") == "hello"


def test_aws_signed_by_botocore_is_accepted_by_sts_through_the_api(
    workspace: Workspace, upstreams: IdentityUpstreams
) -> None:
    aws = upstreams.aws
    identity_id = workspace.identity(
        "aws",
        {
            "accounts": [aws["account"]],
            "principal_arns": [aws["role_arn_pattern"]],
            "sts_endpoint": aws["sts_endpoint"],
            "server_id": "svc.test",
        },
    )
    credentials = AwsCredentials(
        aws["access_key_id"], aws["secret_access_key"], aws["session_token"]
    )
    identity = WorkloadIdentity(
        identity_id,
        "aws",
        sts_endpoint=aws["sts_endpoint"],
        server_id="svc.test",
        credentials=credentials,
    )
    assert workspace.client(identity).get_config("greeting") == "hello"

    wrong = AwsCredentials(aws["access_key_id"], "not-the-secret", aws["session_token"])
    with pytest.raises(ServiceInitError) as caught:
        workspace.client(
            WorkloadIdentity(
                identity_id,
                "aws",
                sts_endpoint=aws["sts_endpoint"],
                server_id="svc.test",
                credentials=wrong,
            )
        )
    assert isinstance(caught.value.__cause__, ServiceUnauthorizedError)


def test_keeps_serving_across_refreshes_and_misses_no_change(
    workspace: Workspace, upstreams: IdentityUpstreams, live: LiveServer
) -> None:
    exchanges = itertools.count(1)
    tokens: list[int] = []

    def token() -> str:
        tokens.append(next(exchanges))
        return upstreams.oidc["token"]

    logger = RecordingLogger()
    # 5% of 60 s: a new key every 3 s.
    identity = WorkloadIdentity(workspace.oidc_identity(60), "oidc", token=token, refresh_at=0.05)
    client = workspace.client(identity, stream=True, logger=logger)
    wait_until(client.is_stream_connected, 10.0)
    seen: list[ChangeSet] = []
    client.on_change(seen.append)
    started, n = time.monotonic(), 0
    while time.monotonic() - started < 10.0:
        n += 1
        live.admin("PUT", f"{workspace.path}/configs/e2e.c{n}", {"value": n, "is_public": False})
        time.sleep(0.1)
    wait_until(lambda: client.get_config(f"e2e.c{n}") == n, 10.0)

    assert len(tokens) >= 4
    received = [change.key for change_set in seen for change in change_set.changes]
    assert received == [f"e2e.c{i}" for i in range(1, n + 1)]
    assert all(change_set.source == "stream" for change_set in seen)
    assert logger.messages("info").count("stream connected") >= 4
    listed = live.admin("GET", f"{workspace.path}/identities")
    assert next(i for i in listed if i["id"] == identity.identity_id)["live_keys"] >= 4
