"""The change stream against the scripted fake service: real SSE bytes over a loopback socket,
reconnects, silence, backoff, and how it meets the time-to-live and syncs."""

from __future__ import annotations

import threading
import time

import pytest

from conftest import Create, RecordingLogger
from support.fake_service import FakeResponse, FakeService, RecordedRequest, problem, wait_until
from svc_client import ReconnectOptions, ServiceError
from svc_client._backoff import Backoff

FAST = ReconnectOptions(initial_delay=0.05, max_delay=0.2, reset_after=60, silence_timeout=5)


def test_connects_with_the_sse_headers_and_last_event_id_no_sync_when_resync_matches(
    service: FakeService, create: Create
) -> None:
    service.snapshot["revision"] = 7
    client = create(stream=True)
    stream = service.wait_for_streams(1)
    wait_until(client.is_stream_connected)
    assert stream.request.headers["accept"] == "text/event-stream"
    assert stream.request.headers["cache-control"] == "no-cache"
    assert stream.request.headers["last-event-id"] == "7"
    assert stream.request.headers["x-service-api-key"]
    time.sleep(0.1)
    assert service.count("/v1/sync") == 1


def test_applies_change_events_of_every_kind_and_ignores_older_ones(
    service: FakeService, create: Create
) -> None:
    service.snapshot.update(revision=5, configs={"old": 1}, flags={"f": False})
    client = create(stream=True)
    stream = service.wait_for_streams(1)
    stream.event(
        "change",
        {"revision": 6, "kind": "config", "key": "c", "op": "upsert", "value": {"a": [1]}},
        6,
    )
    stream.event(
        "change", {"revision": 6, "kind": "flag", "key": "f", "op": "upsert", "value": True}, 6
    )
    stream.event(
        "change",
        {
            "revision": 7,
            "kind": "secret",
            "key": "s",
            "op": "upsert",
            "value": "v",
            "type": "text",
            "version": 2,
        },
        7,
    )
    stream.event("change", {"revision": 7, "kind": "config", "key": "old", "op": "delete"}, 7)
    wait_until(lambda: client.get_config("old") is None)
    assert client.get_config("c") == {"a": [1]}
    assert client.get_flag("f") is True
    assert client.get_secret("s") == "v"
    # An event older than the cache changes nothing.
    stream.event(
        "change", {"revision": 3, "kind": "flag", "key": "f", "op": "upsert", "value": False}, 3
    )
    stream.event(
        "change", {"revision": 8, "kind": "flag", "key": "marker", "op": "upsert", "value": True}, 8
    )
    wait_until(lambda: client.get_flag("marker"))
    assert client.get_flag("f") is True
    assert service.count("/v1/sync") == 1


def test_syncs_when_resync_names_another_revision(service: FakeService, create: Create) -> None:
    client = create(stream=True)
    stream = service.wait_for_streams(1)
    service.snapshot.update(revision=9, flags={"new": True})
    stream.event("resync", {"revision": 9})
    wait_until(lambda: client.get_flag("new"))
    assert service.count("/v1/sync") == 2


def test_logs_a_malformed_change_and_keeps_the_stream(service: FakeService, create: Create) -> None:
    logger = RecordingLogger()
    client = create(stream=True, logger=logger)
    stream = service.wait_for_streams(1)
    stream.send("event: change\ndata: {not json\n\n")
    stream.event(
        "change", {"revision": 2, "kind": "flag", "key": "f", "op": "upsert", "value": "yes"}
    )
    stream.event(
        "change", {"revision": 2, "kind": "flag", "key": "ok", "op": "upsert", "value": True}
    )
    wait_until(lambda: client.get_flag("ok"))
    assert logger.messages("error").count("stream: ignored a malformed change event") == 2
    assert client.is_stream_connected()


def test_reconnects_with_last_event_id_after_the_server_ends_the_stream_and_catches_up(
    service: FakeService, create: Create
) -> None:
    client = create(stream=True, reconnect=FAST)
    first = service.wait_for_streams(1)
    first.event(
        "change", {"revision": 4, "kind": "flag", "key": "a", "op": "upsert", "value": True}, 4
    )
    wait_until(lambda: client.get_flag("a"))
    first.end()
    second = service.wait_for_streams(2)
    assert second.request.headers["last-event-id"] == "4"
    second.event(
        "change", {"revision": 5, "kind": "flag", "key": "b", "op": "upsert", "value": True}, 5
    )
    wait_until(lambda: client.get_flag("b"))
    wait_until(client.is_stream_connected)


def test_reconnects_at_once_after_a_connection_that_reached_the_server_maximum_age(
    service: FakeService, create: Create
) -> None:
    long_lived = ReconnectOptions(initial_delay=5, max_delay=10, reset_after=0.2, silence_timeout=5)
    create(stream=True, reconnect=long_lived)
    first = service.wait_for_streams(1)
    time.sleep(0.3)
    first.end()
    started = time.monotonic()
    service.wait_for_streams(2, timeout=3)
    assert time.monotonic() - started < 2  # not the 2.5-5 s of a first backoff step


def test_treats_silence_as_a_dead_connection_and_reconnects(
    service: FakeService, create: Create
) -> None:
    service.auto_resync = False
    logger = RecordingLogger()
    silent = ReconnectOptions(
        initial_delay=0.05, max_delay=0.1, reset_after=60, silence_timeout=0.3
    )
    create(stream=True, reconnect=silent, logger=logger)
    first = service.wait_for_streams(1)
    service.wait_for_streams(2, timeout=3)
    assert any("no data for 0.3 s" in line for line in logger.messages("error"))
    first.closed.wait(2)
    assert first.closed.is_set()


def test_a_server_that_never_answers_the_head_is_silent_too(
    service: FakeService, create: Create
) -> None:
    client = create(stream=False)
    silent = ReconnectOptions(
        initial_delay=0.05, max_delay=0.1, reset_after=60, silence_timeout=0.3
    )
    client.close()
    service.respond = lambda r: FakeResponse(200, "", delay=5) if r.path == "/v1/stream" else None
    client = create(stream=True, reconnect=silent)
    wait_until(lambda: service.count("/v1/stream") >= 2, 3)


def test_backs_off_between_failed_connections_and_stops_for_good_on_401(
    service: FakeService, create: Create
) -> None:
    service.stream_status = problem(500, "internal")
    logger = RecordingLogger()
    backoff = ReconnectOptions(initial_delay=0.1, max_delay=0.4, reset_after=60, silence_timeout=5)
    client = create(stream=True, reconnect=backoff, logger=logger)
    wait_until(lambda: service.count("/v1/stream") >= 4, 5)
    times = [r for r in service.requests if r.path == "/v1/stream"]
    assert len(times) >= 4
    service.stream_status = problem(401, "unauthorized")
    wait_until(lambda: any("not reconnecting" in m for m in logger.messages("error")), 5)
    attempts = service.count("/v1/stream")
    time.sleep(0.6)
    assert service.count("/v1/stream") == attempts
    assert not client.is_stream_connected()
    # connect_stream() starts over.
    service.stream_status = None
    client.connect_stream()
    wait_until(client.is_stream_connected)


def test_the_delays_grow(service: FakeService, create: Create) -> None:
    arrivals: list[float] = []

    def record(request: RecordedRequest) -> FakeResponse | None:
        if request.path == "/v1/stream":
            arrivals.append(time.monotonic())
            return problem(503, "unavailable")
        return None

    service.respond = record
    backoff = ReconnectOptions(initial_delay=0.1, max_delay=10, reset_after=60, silence_timeout=5)
    create(stream=True, reconnect=backoff)
    wait_until(lambda: len(arrivals) >= 4, 5)
    gaps = [b - a for a, b in zip(arrivals, arrivals[1:])]
    # Equal jitter: each delay is between half and all of 0.1, 0.2, 0.4 s.
    # (The upper bounds leave room for a loaded machine.)
    assert 0.05 <= gaps[0] < 1
    assert 0.1 <= gaps[1] < 1.5
    assert 0.2 <= gaps[2] < 2


def test_stops_on_404_too(service: FakeService, create: Create) -> None:
    service.stream_status = problem(404, "not_found")
    create(stream=True, reconnect=FAST)
    wait_until(lambda: service.count("/v1/stream") == 1)
    time.sleep(0.4)
    assert service.count("/v1/stream") == 1


def test_pauses_the_time_to_live_while_connected_and_resumes_it_when_the_stream_goes(
    service: FakeService, create: Create
) -> None:
    client = create(stream=True, cache_ttl=0.1, reconnect=FAST)
    wait_until(client.is_stream_connected)
    while_connected = service.count("/v1/sync")
    time.sleep(0.4)
    assert service.count("/v1/sync") == while_connected
    client.disconnect_stream()
    wait_until(lambda: service.count("/v1/sync") >= while_connected + 2, 3)


def test_keeps_stream_changes_newer_than_a_sync_answer_still_on_its_way(
    service: FakeService, create: Create
) -> None:
    client = create(stream=True)
    stream = service.wait_for_streams(1)
    wait_until(client.is_stream_connected)
    gate = threading.Event()
    old_answer = dict(service.snapshot, revision=2, flags={"f": False})

    def slow(request: RecordedRequest) -> FakeResponse | None:
        if request.path != "/v1/sync":
            return None
        gate.wait(5)
        return FakeResponse(200, old_answer, {"ETag": '"r2"'})

    service.respond = slow
    syncing = threading.Thread(target=client.sync)
    syncing.start()
    wait_until(lambda: service.count("/v1/sync") == 2)
    stream.event(
        "change", {"revision": 3, "kind": "flag", "key": "f", "op": "upsert", "value": True}, 3
    )
    wait_until(lambda: client.get_flag("f"))
    gate.set()
    syncing.join(5)
    assert client.get_flag("f") is True


def test_connect_stream_and_disconnect_stream_are_idempotent(
    service: FakeService, create: Create
) -> None:
    client = create(stream=False)
    client.connect_stream()
    client.connect_stream()
    wait_until(client.is_stream_connected)
    time.sleep(0.1)
    assert service.count("/v1/stream") == 1
    started = time.monotonic()
    client.disconnect_stream()
    assert time.monotonic() - started < 1
    assert not client.is_stream_connected()
    client.disconnect_stream()
    service.last_stream.closed.wait(2)
    assert service.last_stream.closed.is_set()


def test_close_ends_the_stream_and_the_client(service: FakeService, create: Create) -> None:
    client = create(stream=True)
    wait_until(client.is_stream_connected)
    client.close()
    assert not client.is_stream_connected()
    service.last_stream.closed.wait(2)
    assert service.last_stream.closed.is_set()
    with pytest.raises(ServiceError, match="closed"):
        client.connect_stream()
    with pytest.raises(ServiceError, match="closed"):
        client.sync()


def test_close_ends_a_request_in_flight(service: FakeService, create: Create) -> None:
    client = create()
    service.respond = lambda _: FakeResponse(200, service.snapshot, delay=5)
    errors: list[BaseException] = []

    def sync() -> None:
        try:
            client.sync()
        except ServiceError as error:
            errors.append(error)

    thread = threading.Thread(target=sync)
    thread.start()
    wait_until(lambda: service.count("/v1/sync") == 2)
    started = time.monotonic()
    client.close()
    thread.join(3)
    assert time.monotonic() - started < 1
    assert len(errors) == 1
    assert "closed" in str(errors[0])


class TestBackoff:
    def test_doubles_from_1_s_to_30_s_with_jitter_in_the_upper_half(self) -> None:
        options = ReconnectOptions()
        low = Backoff(options, lambda: 0.0)
        high = Backoff(options, lambda: 0.999999)
        lows = [low.next() for _ in range(8)]
        highs = [high.next() for _ in range(8)]
        assert lows == [0.5, 1, 2, 4, 8, 15, 15, 15]
        assert [round(h) for h in highs] == [1, 2, 4, 8, 16, 30, 30, 30]

    def test_starts_over_after_a_connection_that_lasted_60_s_not_after_a_short_one(self) -> None:
        backoff = Backoff(ReconnectOptions(), lambda: 0.0)
        backoff.next()
        backoff.next()
        backoff.connection_ended(59)
        assert backoff.next() == 2
        backoff.connection_ended(60)
        assert backoff.next() == 0.5
