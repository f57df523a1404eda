"""The api as a real process, killed and started again: the client keeps serving its cache while
the api is gone, reconnects by itself, and converges on what changed meanwhile."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from conftest import RecordingLogger
from support.fake_service import wait_until
from support.live_server import LiveServer
from svc_client import ReconnectOptions, ServiceClient, ServiceError

P = "/workspaces/acme/projects/web"


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[LiveServer, str]]:
    # During a SIGTERM shutdown the api keeps serving open keep-alive connections, so a
    # reconnecting client keeps it busy until its grace period ends: one second keeps this short.
    live = LiveServer.start({"SHUTDOWN_GRACE_MS": "1000"})
    live.admin("POST", "/workspaces", {"slug": "acme", "name": "Acme"})
    live.admin("POST", "/workspaces/acme/projects", {"slug": "web", "name": "Web"})
    live.admin("PUT", f"{P}/flags/checkout.v2", {"is_active": False})
    live.admin("PUT", f"{P}/configs/ui.theme", {"value": "dark", "is_public": True})
    live.admin(
        "PUT", f"{P}/secrets/tls.cert", {"value": "PEM-1", "type": "file", "file_name": "tls.pem"}
    )
    key: str = live.admin("POST", f"{P}/keys", {"kind": "secret"})["key"]
    live.await_key("acme", key, timeout=10)
    yield live, key
    live.close()


@pytest.mark.parametrize("hard", [True, False], ids=["SIGKILL", "SIGTERM"])
def test_the_client_serves_its_cache_meanwhile_reconnects_and_converges(
    server: tuple[LiveServer, str], hard: bool
) -> None:
    live, key = server
    with ServiceClient.create(
        base_url=f"{live.api_url}/acme",
        api_key=key,
        logger=RecordingLogger(),
        cache_ttl=0.3,
        reconnect=ReconnectOptions(initial_delay=0.1, max_delay=0.4),
    ) as client:
        wait_until(client.is_stream_connected)
        flag = client.get_flag("checkout.v2")
        path = client.get_secret_file_path("tls.cert")

        live.kill_api(hard)
        wait_until(lambda: not client.is_stream_connected())
        # Changes while the api is down (the console still writes to the database).
        live.admin("PUT", f"{P}/flags/checkout.v2", {"is_active": not flag})
        live.admin("PUT", f"{P}/configs/ui.theme", {"value": f"theme-{hard}", "is_public": True})
        live.admin(
            "PUT",
            f"{P}/secrets/tls.cert",
            {"value": f"PEM-{hard}", "type": "file", "file_name": "tls.pem"},
        )
        # Reads keep answering from the cache; a sync fails without touching it.
        time.sleep(0.4)
        assert client.get_flag("checkout.v2") is flag
        with pytest.raises(ServiceError):
            client.sync()
        assert client.get_secret_file_path("tls.cert") == path

        live.start_api()
        wait_until(client.is_stream_connected, 10)
        wait_until(lambda: client.get_flag("checkout.v2") is (not flag))
        assert client.get_config("ui.theme") == f"theme-{hard}"
        assert client.get_secret("tls.cert") == f"PEM-{hard}"
        assert path is not None
        with open(path) as file:
            assert file.read() == f"PEM-{hard}"

        # And the stream works again: a new change arrives without a sync.
        live.admin("PUT", f"{P}/flags/checkout.v2", {"is_active": flag})
        wait_until(lambda: client.get_flag("checkout.v2") is flag, 2)
