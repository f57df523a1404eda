"""ServiceClient.create()'s settings: checked before any request, defaults filled in."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from support.fake_service import PK, SK, FakeService
from svc_client import ReconnectOptions, ServiceClient, ServiceConfig, StdlibLogger
from svc_client._config import resolve_config

BAD: list[tuple[str, dict[str, Any], type[Exception]]] = [
    ("no base_url", {"base_url": None}, ValueError),
    ("empty base_url", {"base_url": " ", "api_key": SK}, ValueError),
    ("not a URL", {"base_url": "not a url", "api_key": SK}, ValueError),
    ("ftp", {"base_url": "ftp://127.0.0.1/acme", "api_key": SK}, ValueError),
    ("no host", {"base_url": "http:///acme", "api_key": SK}, ValueError),
    ("bad port", {"base_url": "http://127.0.0.1:x/acme", "api_key": SK}, ValueError),
    ("query", {"base_url": "http://127.0.0.1/acme?x=1", "api_key": SK}, ValueError),
    ("fragment", {"base_url": "http://127.0.0.1/acme#x", "api_key": SK}, ValueError),
    ("credentials", {"base_url": "http://u:p@127.0.0.1/acme", "api_key": SK}, ValueError),
    ("no api_key", {"api_key": None}, ValueError),
    ("empty api_key", {"api_key": ""}, ValueError),
    ("wrong checksum", {"api_key": SK[:-1] + "M"}, ValueError),
    ("short key", {"api_key": SK[:-1]}, ValueError),
    ("cache_ttl 0", {"cache_ttl": 0}, ValueError),
    ("negative timeout", {"request_timeout": -1}, ValueError),
    ("infinite ttl", {"cache_ttl": float("inf")}, ValueError),
    ("ttl as text", {"cache_ttl": "60"}, TypeError),
    ("stream as text", {"stream": "yes"}, TypeError),
    ("logger without methods", {"logger": object()}, TypeError),
    ("bad reconnect", {"reconnect": ReconnectOptions(initial_delay=0)}, ValueError),
]


@pytest.mark.parametrize(("name", "settings", "error"), BAD, ids=[b[0] for b in BAD])
def test_bad_settings_fail_before_any_request(
    service: FakeService, name: str, settings: dict[str, Any], error: type[Exception]
) -> None:
    options = {"base_url": service.base_url, "api_key": SK, **settings}
    config = ServiceConfig(**{k: v for k, v in options.items() if v is not None})
    with pytest.raises(error):
        ServiceClient.create(config)
    assert service.requests == []


def test_never_puts_the_key_in_its_messages(service: FakeService) -> None:
    bad = SK[:-1] + "M"
    with pytest.raises(ValueError, match="checksum") as raised:
        ServiceClient.create(base_url=service.base_url, api_key=bad)
    assert bad not in str(raised.value)


def test_normalizes_the_base_url_and_trims_the_key() -> None:
    resolved = resolve_config(
        ServiceConfig(base_url=" HTTP://Example.com/acme/// ", api_key=f" {PK} ")
    )
    assert resolved.base_url == "http://Example.com/acme"
    assert resolved.api_key == PK
    assert resolved.key_type == "pk"


def test_fills_in_the_defaults_of_the_contract() -> None:
    resolved = resolve_config(ServiceConfig(base_url="https://acme.example.com", api_key=SK))
    assert resolved.stream is True
    assert resolved.cache_ttl == 60.0
    assert resolved.request_timeout == 10.0
    assert resolved.reconnect == ReconnectOptions(1.0, 30.0, 60.0, 45.0)
    assert resolved.secret_files_dir is None
    assert isinstance(resolved.logger, StdlibLogger)


def test_a_config_object_and_keyword_arguments_combine(service: FakeService) -> None:
    base = ServiceConfig(base_url="http://127.0.0.1:1/nowhere", api_key=SK, stream=False)
    with ServiceClient.create(base, base_url=service.base_url, cache_ttl=5) as client:
        assert client.get_key_type() == "sk"
    assert service.count("/v1/sync") == 1
    assert service.count("/v1/stream") == 0


def test_accepts_a_logging_logger() -> None:
    resolved = resolve_config(
        ServiceConfig(base_url="http://h/acme", api_key=SK, logger=logging.getLogger("mine"))
    )
    assert isinstance(resolved.logger, StdlibLogger)


def test_clients_come_from_create_only() -> None:
    resolved = resolve_config(ServiceConfig(base_url="http://h/acme", api_key=SK))
    with pytest.raises(TypeError, match="create"):
        ServiceClient(resolved)
