"""A workload identity's key over its life, against the exchange stand-in on a real socket (keys
living a few seconds): the exchange at ``create()``, the refresh at ``refresh_at`` of the key's
life, the stream reconnecting under each new key with ``Last-Event-ID`` so no change is missed,
backoff and ``Retry-After`` when the exchange fails, and a key that expired (or was revoked)
before a refresh succeeded not stopping the client."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, Callable

import pytest

from conftest import Create, RecordingLogger
from support.exchange_service import IDENTITY_ID, OK, ExchangeService, Verdict
from support.fake_service import wait_until
from svc_client import (
    ChangeSet,
    ReconnectOptions,
    RetryOptions,
    ServiceClient,
    ServiceInitError,
    ServiceUnauthorizedError,
    WorkloadIdentity,
)

FAST_RETRY = RetryOptions(initial_delay=0.1, max_delay=0.4)


@pytest.fixture
def service() -> Iterator[ExchangeService]:
    fake = ExchangeService()
    yield fake
    fake.close()


@pytest.fixture
def create(service: ExchangeService, make_client: Create) -> Create:
    def make(refresh_at: float = 0.5, **settings: Any) -> ServiceClient:
        identity = WorkloadIdentity(
            identity_id=IDENTITY_ID,
            method="oidc",
            token=lambda: "a-token",
            refresh_at=refresh_at,
            retry=FAST_RETRY,
        )
        options: dict[str, Any] = {
            "base_url": service.base_url,
            "identity": identity,
            "reconnect": ReconnectOptions(initial_delay=0.05, max_delay=0.2),
            **settings,
        }
        return make_client(**options)

    return make


def fail_exchanges(service: ExchangeService, verdict: Verdict) -> Callable[[], None]:
    """Fails every exchange with ``verdict`` until the returned function is called."""
    service.verify = lambda body: verdict

    def recover() -> None:
        service.verify = lambda body: OK

    return recover


def test_exchanges_at_create_then_syncs_and_streams_with_the_minted_key(
    create: Create, service: ExchangeService
) -> None:
    logger = RecordingLogger()
    client = create(logger=logger)
    wait_until(client.is_stream_connected)
    (key,) = service.minted
    assert [(s.path, s.api_key) for s in service.seen] == [("/v1/sync", key), ("/v1/stream", key)]
    assert key[4:] not in repr(logger.lines)
    assert key not in repr(client._config)


def test_refreshes_and_keeps_streaming_under_each_new_key_missing_no_change(
    create: Create, service: ExchangeService
) -> None:
    service.ttl = 3.0
    client = create(refresh_at=1 / 3)
    seen: list[ChangeSet] = []
    client.on_change(seen.append)
    wait_until(client.is_stream_connected)
    started, n = time.monotonic(), 0
    # Changes every 40 ms for about three refreshes (one a second with three-second keys).
    while time.monotonic() - started < 3.3:
        n += 1
        service.set(f"c{n}", n)
        time.sleep(0.04)
    wait_until(lambda: client.get_config(f"c{n}") == n, 5.0)

    assert len(service.minted) >= 3
    streams = [s for s in service.seen if s.path == "/v1/stream"]
    assert len({s.api_key for s in streams}) >= 3
    assert all(s.last_event_id and s.last_event_id.isdigit() for s in streams[1:])
    assert [s.path for s in service.seen].count("/v1/sync") == 1
    received = [change.key for change_set in seen for change in change_set.changes]
    assert received == [f"c{i}" for i in range(1, n + 1)]
    assert all(change_set.source == "stream" for change_set in seen)
    gaps = [b - a for a, b in zip(service.exchanged_at, service.exchanged_at[1:])]
    assert all(0.95 <= gap < 2.9 for gap in gaps), gaps
    assert service.refused == 0


def test_retries_a_failed_refresh_with_backoff_and_recovers(
    create: Create, service: ExchangeService
) -> None:
    logger = RecordingLogger()
    client = create(refresh_at=0.25, logger=logger)
    service.set("before", 1)
    wait_until(lambda: client.get_config("before") == 1)
    recover = fail_exchanges(service, Verdict(502, "upstream_unavailable"))
    count = len(service.exchanges)
    wait_until(lambda: len(service.exchanges) >= count + 4, 5.0)
    failed_at = service.exchanged_at[count : count + 4]
    gaps = [b - a for a, b in zip(failed_at, failed_at[1:])]
    # Doubling delays (0.1, 0.2, 0.4 s, with jitter: at least half of each).
    assert gaps[0] >= 0.045
    assert gaps[1] >= 0.095
    assert gaps[2] >= 0.195
    assert client.get_config("before") == 1
    assert any("exchange failed, retrying in" in m for m in logger.messages("error"))

    recover()
    minted = len(service.minted)
    wait_until(lambda: len(service.minted) > minted, 5.0)
    service.set("after", 2)
    wait_until(lambda: client.get_config("after") == 2, 5.0)


def test_waits_for_retry_after_when_the_exchange_answers_429(
    create: Create, service: ExchangeService
) -> None:
    create(refresh_at=0.25)
    recover = fail_exchanges(service, Verdict(429, "rate_limited", retry_after=1))
    count = len(service.exchanges)
    wait_until(lambda: len(service.exchanges) > count, 5.0)
    recover()
    wait_until(lambda: len(service.exchanges) > count + 1, 5.0)
    assert service.exchanged_at[count + 1] - service.exchanged_at[count] >= 0.95


def test_a_key_that_expired_before_a_refresh_succeeded_does_not_stop_the_client(
    create: Create, service: ExchangeService
) -> None:
    client = create()
    wait_until(client.is_stream_connected)
    recover = fail_exchanges(service, Verdict(401, "unauthorized", "expired"))
    # The key expires (two seconds); its stream ends and reconnects are refused.
    wait_until(lambda: service.refused > 0, 5.0)
    wait_until(lambda: not client.is_stream_connected(), 5.0)
    service.set("during", "the outage")
    time.sleep(0.3)
    assert client.get_config("during") is None

    recover()
    wait_until(lambda: client.get_config("during") == "the outage", 5.0)
    wait_until(client.is_stream_connected, 5.0)
    last = [s for s in service.seen if s.path == "/v1/stream"][-1]
    assert last.api_key == service.minted[-1]


def test_a_revoked_key_is_exchanged_again_at_once(create: Create, service: ExchangeService) -> None:
    service.ttl = 60.0
    client = create(refresh_at=2 / 3)
    wait_until(client.is_stream_connected)
    service.revoke_all()
    service.set("after-revoke", True)
    wait_until(lambda: client.get_config("after-revoke") is True, 5.0)
    assert len(service.exchanges) == 2


def test_without_a_stream_a_refused_key_is_followed_by_a_sync(
    create: Create, service: ExchangeService
) -> None:
    client = create(stream=False, cache_ttl=60.0)
    recover = fail_exchanges(service, Verdict(502, "upstream_unavailable"))
    time.sleep(2.1)  # the key has expired
    service.set("x", 1)
    with pytest.raises(ServiceUnauthorizedError):
        client.sync()
    recover()
    wait_until(lambda: client.get_config("x") == 1, 5.0)
    assert service.seen[-1].api_key == service.minted[-1]


def test_create_fails_with_the_exchange_reason_before_any_sync(
    create: Create, service: ExchangeService
) -> None:
    fail_exchanges(service, Verdict(401, "unauthorized", "audience"))
    with pytest.raises(ServiceInitError) as caught:
        create()
    assert isinstance(caught.value.__cause__, ServiceUnauthorizedError)
    assert "identity exchange: HTTP 401 unauthorized: audience" in str(caught.value)
    assert service.seen == []


def test_close_ends_the_refreshing(create: Create, service: ExchangeService) -> None:
    client = create(refresh_at=0.1)
    client.close()
    count = len(service.exchanges)
    time.sleep(0.6)
    assert len(service.exchanges) == count
