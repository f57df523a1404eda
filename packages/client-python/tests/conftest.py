"""Fixtures of the client's tests: a scripted fake service on loopback, clients that are closed
after each test, and a recording logger."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Callable

import pytest

from support.fake_service import SK, FakeService
from support.live_server import LiveServer, scenario_env
from svc_client import ServiceClient, silent_logger


class RecordingLogger:
    """A ServiceLogger that keeps every line (errors with their cause)."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []
        self.causes: list[BaseException | None] = []

    def debug(self, message: str) -> None:
        self.lines.append(("debug", message))

    def info(self, message: str) -> None:
        self.lines.append(("info", message))

    def error(self, message: str, cause: BaseException | None = None) -> None:
        self.lines.append(("error", message))
        self.causes.append(cause)

    def messages(self, level: str) -> list[str]:
        return [message for lvl, message in self.lines if lvl == level]


@pytest.fixture
def service() -> Iterator[FakeService]:
    fake = FakeService()
    yield fake
    fake.close()


Create = Callable[..., ServiceClient]


@pytest.fixture
def make_client() -> Iterator[Create]:
    """``make_client(**options)``: ``ServiceClient.create(**options)``, closed after the test."""
    clients: list[ServiceClient] = []

    def make(**options: Any) -> ServiceClient:
        client = ServiceClient.create(**options)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def create(service: FakeService, make_client: Create) -> Create:
    """``create(**settings)``: a client of the fake service (secret key, stream off, silent
    logger unless given), closed after the test."""

    def make(**settings: Any) -> ServiceClient:
        options: dict[str, Any] = {
            "base_url": service.base_url,
            "api_key": SK,
            "stream": False,
            "logger": silent_logger,
            **settings,
        }
        return make_client(**options)

    return make


@pytest.fixture(scope="session")
def live() -> Iterator[LiveServer]:
    """The real console and api as child processes, with the shared scenarios' settings
    (``server-env.json``), for every test of the session that asks for them."""
    server = LiveServer.start(scenario_env())
    yield server
    server.close()
