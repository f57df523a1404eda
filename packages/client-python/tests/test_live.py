"""The client against the real console and api (child processes, temp SQLite): how fast a console
change reaches get_flag over the stream, the time-to-live without one, replay on reconnect,
revocation, and file secrets on disk."""

from __future__ import annotations

import itertools
import os
import stat
import statistics
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from conftest import RecordingLogger
from support.fake_service import wait_until
from support.live_server import LiveServer
from svc_client import ChangeSet, ReconnectOptions, ServiceClient
from svc_client._transport import Transport

_projects = itertools.count(1)


class Project:
    """A workspace with one project of its own, and a secret key of it."""

    def __init__(self, live: LiveServer) -> None:
        self.live = live
        self.ws = f"live-py-{os.getpid()}-{next(_projects)}"
        self.path = f"/workspaces/{self.ws}/projects/web"
        live.admin("POST", "/workspaces", {"slug": self.ws, "name": "Live"})
        live.admin("POST", f"/workspaces/{self.ws}/projects", {"slug": "web", "name": "Web"})
        live.admin("PUT", f"{self.path}/flags/checkout.v2", {"is_active": False})
        live.admin(
            "PUT",
            f"{self.path}/secrets/tls.cert",
            {"value": "PEM-live", "type": "file", "file_name": "tls.pem"},
        )
        key = live.admin("POST", f"{self.path}/keys", {"kind": "secret"})
        self.key: str = key["key"]
        self.key_id: str = key["id"]
        live.await_key(self.ws, self.key)
        self.clients: list[ServiceClient] = []

    def client(self, **settings: Any) -> ServiceClient:
        options: dict[str, Any] = {
            "base_url": f"{self.live.api_url}/{self.ws}",
            "api_key": self.key,
            "logger": RecordingLogger(),
            **settings,
        }
        client = ServiceClient.create(**options)
        self.clients.append(client)
        return client


@pytest.fixture
def project(live: LiveServer) -> Iterator[Project]:
    made = Project(live)
    yield made
    for client in made.clients:
        client.close()


def syncs(logger: RecordingLogger) -> int:
    return sum(1 for m in logger.messages("debug") if m.startswith("sync: "))


def test_a_console_change_reaches_get_flag_within_50_ms_with_the_stream_on(
    project: Project,
) -> None:
    client = project.client()
    wait_until(client.is_stream_connected)
    from_start: list[float] = []
    after_answer: list[float] = []
    for round_ in range(10):
        want = round_ % 2 == 0
        seen = threading.Event()
        arrived: list[float] = []

        def listener(
            _: ChangeSet,
            want: bool = want,
            seen: threading.Event = seen,
            arrived: list[float] = arrived,
        ) -> None:
            if client.get_flag("checkout.v2") is want and not seen.is_set():
                arrived.append(time.perf_counter())
                seen.set()

        remove = client.on_change(listener)
        started = time.perf_counter()
        project.live.admin("PUT", f"{project.path}/flags/checkout.v2", {"is_active": want})
        answered = time.perf_counter()
        assert seen.wait(5), f"round {round_}: the change never arrived"
        remove()
        from_start.append((arrived[0] - started) * 1000)
        after_answer.append((arrived[0] - answered) * 1000)
    print(
        "console PUT start -> get_flag: "
        + " ".join(f"{ms:.1f}" for ms in sorted(from_start))
        + " ms; after its answer: "
        + " ".join(f"{ms:.1f}" for ms in sorted(after_answer))
        + " ms"
    )
    # Once the console has answered, the change is committed; it typically reaches get_flag in a
    # few milliseconds. The median must be within 50 ms; the slowest round may also carry a busy
    # CI core, but a missed event (a sync or a reconnect instead) would take far longer.
    assert statistics.median(after_answer) < 50
    assert max(after_answer) < 250
    # From before the console's request, its own write (slow on a loaded machine) is inside.
    assert statistics.median(from_start) < 250


def test_asks_for_gzip_and_reads_the_gzip_encoded_snapshot(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Enough configs for a snapshot over 1 KiB, which the api then sends compressed.
    value = {"enabled": True, "name": "setting number 29"}
    for i in range(30):
        project.live.admin(
            "PUT",
            f"{project.path}/configs/service.setting_{i}",
            {"value": value, "is_public": False},
        )
    # httpcore reports each answer's head to the trace the transport passes along.
    answers: list[dict[bytes, bytes]] = []
    trace = Transport._trace

    def spy(self: Transport, event: str, info: dict[str, Any]) -> Any:
        if event == "http11.receive_response_headers.complete":
            _, status, _, headers = info["return_value"]
            if status == 200:
                answers.append({name.lower(): v for name, v in headers})
        return trace(self, event, info)

    monkeypatch.setattr(Transport, "_trace", spy)
    client = project.client(stream=False)

    def synced_all() -> bool:
        client.sync()
        return client.get_config("service.setting_29") is not None

    wait_until(synced_all)
    assert client.get_config("service.setting_29") == value
    assert answers[-1].get(b"content-encoding") == b"gzip"
    assert b"accept-encoding" in answers[-1].get(b"vary", b"").lower()


def test_with_the_stream_off_the_time_to_live_re_sync_picks_a_change_up(project: Project) -> None:
    logger = RecordingLogger()
    client = project.client(stream=False, cache_ttl=0.2, logger=logger)
    before = client.get_flag("checkout.v2")
    changed_at = time.monotonic()
    project.live.admin("PUT", f"{project.path}/flags/checkout.v2", {"is_active": not before})
    wait_until(lambda: client.get_flag("checkout.v2") is (not before), 3)
    assert time.monotonic() - changed_at < 1
    assert "stream connected" not in logger.messages("info")
    assert syncs(logger) >= 2


def test_reconnects_with_last_event_id_and_gets_the_missed_changes_replayed_without_a_sync(
    project: Project,
) -> None:
    logger = RecordingLogger()
    client = project.client(logger=logger)
    wait_until(client.is_stream_connected)
    client.disconnect_stream()
    project.live.admin(
        "PUT", f"{project.path}/configs/replayed", {"value": {"n": 1}, "is_public": False}
    )
    time.sleep(0.05)
    assert client.get_config("replayed") is None
    client.connect_stream()
    wait_until(lambda: client.get_config("replayed") is not None)
    assert client.get_config("replayed") == {"n": 1}
    assert logger.messages("info").count("stream connected") == 2
    # Had the client not sent Last-Event-ID, the api would have answered with a resync at
    # another revision, and the client would have synced.
    assert syncs(logger) == 1


def test_file_secrets_exist_with_mode_0600_while_open_and_are_gone_after_close(
    project: Project,
) -> None:
    client = project.client(stream=False)
    path = client.get_secret_file_path("tls.cert")
    assert path is not None
    with open(path) as file:
        assert file.read() == "PEM-live"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode) == 0o700
    client.close()
    assert not os.path.exists(path)
    assert not os.path.exists(os.path.dirname(os.path.dirname(path)))


def test_a_revoked_key_the_stream_ends_and_is_not_reconnected_the_cache_keeps_serving(
    project: Project,
) -> None:
    logger = RecordingLogger()
    fast = ReconnectOptions(initial_delay=0.02, max_delay=0.04)
    client = project.client(logger=logger, reconnect=fast)
    wait_until(client.is_stream_connected)
    flag = client.get_flag("checkout.v2")
    project.live.admin("DELETE", f"{project.path}/keys/{project.key_id}")
    wait_until(lambda: not client.is_stream_connected(), 3)
    wait_until(lambda: any("not reconnecting" in m for m in logger.messages("error")), 3)
    lines = len(logger.lines)
    time.sleep(0.3)
    assert len(logger.lines) == lines  # no further attempt
    assert client.get_flag("checkout.v2") is flag
