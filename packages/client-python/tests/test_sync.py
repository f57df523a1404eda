"""sync(): the initial sync, conditional requests, the cache swap, the time-to-live re-sync, the
quarantine, and change listeners, against the scripted fake service."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest

from conftest import Create, RecordingLogger
from support.fake_service import SK, FakeResponse, FakeService, RecordedRequest, problem, wait_until
from svc_client import (
    ChangeSet,
    ServiceClient,
    ServiceError,
    ServiceInitError,
    ServiceNotFoundError,
    ServiceQuarantinedError,
    ServiceUnauthorizedError,
    silent_logger,
)
from svc_client._snapshot import Change


class TestCreate:
    @pytest.mark.parametrize(
        ("status", "code", "cause"),
        [
            (401, "unauthorized", ServiceUnauthorizedError),
            (404, "not_found", ServiceNotFoundError),
            (429, "sync_quarantined", ServiceQuarantinedError),
            (500, "internal", ServiceError),
        ],
    )
    def test_a_failed_initial_sync_is_an_init_error_with_its_cause(
        self, service: FakeService, status: int, code: str, cause: type[ServiceError]
    ) -> None:
        service.respond = lambda _: problem(status, code, **{"Retry-After": "7"})
        with pytest.raises(ServiceInitError) as raised:
            ServiceClient.create(base_url=service.base_url, api_key=SK, logger=silent_logger)
        assert type(raised.value.__cause__) is cause
        assert isinstance(raised.value.__cause__, ServiceError)
        assert raised.value.__cause__.status == status
        assert raised.value.__cause__.code == code
        assert service.count("/v1/stream") == 0

    def test_a_network_failure_or_a_body_off_the_contract_is_caused_by_a_service_error(
        self, service: FakeService
    ) -> None:
        with pytest.raises(ServiceInitError) as raised:
            ServiceClient.create(base_url="http://127.0.0.1:9/acme", api_key=SK)
        assert type(raised.value.__cause__) is ServiceError
        service.respond = lambda _: FakeResponse(200, {"revision": "x", "configs": {}})
        with pytest.raises(ServiceInitError, match="revision"):
            ServiceClient.create(base_url=service.base_url, api_key=SK, logger=silent_logger)
        service.respond = lambda _: FakeResponse(200, "not json")
        with pytest.raises(ServiceInitError, match="not JSON"):
            ServiceClient.create(base_url=service.base_url, api_key=SK, logger=silent_logger)

    def test_times_out_a_sync_that_never_answers(self, service: FakeService) -> None:
        service.respond = lambda _: FakeResponse(200, service.snapshot, delay=3)
        started = time.monotonic()
        with pytest.raises(ServiceInitError, match="timed out"):
            ServiceClient.create(
                base_url=service.base_url, api_key=SK, request_timeout=0.2, logger=silent_logger
            )
        assert time.monotonic() - started < 2


class TestSync:
    def test_sends_the_key_and_then_if_none_match_a_304_keeps_the_cache(
        self, service: FakeService, create: Create
    ) -> None:
        service.snapshot["flags"] = {"a": True}
        client = create()
        first = client.get_synced_at()
        assert first.tzinfo is not None
        assert abs(datetime.now(timezone.utc) - first) < timedelta(seconds=5)
        time.sleep(0.01)
        client.sync()
        first_request, second = service.requests_to("/v1/sync")
        assert first_request.headers["x-service-api-key"] == SK
        assert first_request.headers["user-agent"].startswith("svc-client-python/")
        assert first_request.headers["accept-encoding"] == "gzip"
        assert "if-none-match" not in first_request.headers
        assert second.headers["if-none-match"] == '"r1"'
        assert client.get_flag("a") is True
        assert client.get_synced_at() > first

    def test_decodes_a_gzip_body(self, service: FakeService, create: Create) -> None:
        service.gzip_sync = True
        service.snapshot["configs"] = {f"c{i}": {"n": i} for i in range(200)}
        client = create()
        assert client.get_config("c199") == {"n": 199}

    def test_replaces_the_whole_cache_at_once(self, service: FakeService, create: Create) -> None:
        service.snapshot.update(
            revision=1,
            configs={"a": 1, "b": 2},
            flags={"f": True},
            secrets={"s": {"value": "x", "type": "text", "version": 1}},
        )
        client = create()
        assert client.get_all_secrets() == {"s": "x"}
        service.snapshot.update(revision=2, configs={"b": 3}, flags={}, secrets={})
        client.sync()
        assert client.get_all_secrets() == {}
        assert client.get_all_configs() == {"b": 3}
        assert client.get_all_flags() == {}
        assert client.get_config("a") is None

    def test_tells_an_absent_config_from_a_json_null(
        self, service: FakeService, create: Create
    ) -> None:
        service.snapshot["configs"] = {"nothing": None}
        client = create()
        absent = object()
        assert client.get_config("nothing", absent) is None
        assert client.get_config("missing", absent) is absent
        assert client.get_config("missing") is None

    def test_hands_out_copies_so_no_caller_can_change_the_cache(
        self, service: FakeService, create: Create
    ) -> None:
        service.snapshot["configs"] = {"pool": {"max": 10, "hosts": ["a"]}}
        client = create()
        value = client.get_config("pool")
        assert isinstance(value, dict)
        value["max"] = 99
        hosts = value["hosts"]
        assert isinstance(hosts, list)
        hosts.append("b")
        client.get_all_configs()["pool"] = 1
        assert client.get_config("pool") == {"max": 10, "hosts": ["a"]}

    def test_calls_made_while_a_sync_runs_share_one_follow_up_sync(
        self, service: FakeService, create: Create
    ) -> None:
        client = create()
        gate = threading.Event()

        def slow(request: RecordedRequest) -> FakeResponse | None:
            if request.path == "/v1/sync":
                gate.wait(5)
            return None

        service.respond = slow
        first = threading.Thread(target=client.sync)
        first.start()
        wait_until(lambda: service.count("/v1/sync") == 2)
        waiting = [threading.Thread(target=client.sync) for _ in range(4)]
        for thread in waiting:
            thread.start()
        time.sleep(0.05)
        gate.set()
        for thread in [first, *waiting]:
            thread.join(5)
        # The running sync, then one follow-up sync shared by the four that waited.
        assert service.count("/v1/sync") == 3

    def test_keeps_the_cache_when_a_sync_fails(self, service: FakeService, create: Create) -> None:
        service.snapshot["flags"] = {"a": True}
        client = create()
        synced = client.get_synced_at()
        service.respond = lambda _: problem(500, "internal")
        with pytest.raises(ServiceError, match="HTTP 500"):
            client.sync()
        assert client.get_flag("a") is True
        assert client.get_synced_at() == synced


class TestTimeToLive:
    def test_re_syncs_in_the_background_while_no_stream_is_connected(
        self, service: FakeService, create: Create
    ) -> None:
        started = time.monotonic()
        create(cache_ttl=0.1)
        wait_until(lambda: service.count("/v1/sync") >= 4, 5)
        elapsed = time.monotonic() - started
        # Paced by the time-to-live: three of them at least between the first and the fourth
        # sync, and never more than one per time-to-live.
        assert elapsed >= 0.29
        assert service.count("/v1/sync") <= elapsed / 0.1 + 1

    def test_a_manual_sync_a_304_too_restarts_the_time_to_live(
        self, service: FakeService, create: Create
    ) -> None:
        client = create(cache_ttl=1.0)
        for _ in range(4):
            time.sleep(0.3)
            client.sync()
        assert service.count("/v1/sync") == 5  # the initial one and the four manual ones

    def test_retries_a_failing_background_sync_once_per_time_to_live_logging_it(
        self, service: FakeService, create: Create
    ) -> None:
        logger = RecordingLogger()
        create(cache_ttl=0.1, logger=logger)
        service.respond = lambda _: problem(503, "unavailable")
        wait_until(lambda: len(logger.messages("error")) >= 2, 3)
        assert "background sync (cache time-to-live) failed" in logger.messages("error")[0]
        assert isinstance(logger.causes[0], ServiceError)

    def test_picks_up_a_change_without_any_call(self, service: FakeService, create: Create) -> None:
        client = create(cache_ttl=0.1)
        service.snapshot.update(revision=2, flags={"late": True})
        wait_until(lambda: client.get_flag("late"), 3)


class TestQuarantine:
    def test_honours_retry_after_then_syncs_again(
        self, service: FakeService, create: Create
    ) -> None:
        client = create(cache_ttl=60)
        service.respond = lambda _: problem(429, "sync_quarantined", **{"Retry-After": "1"})
        with pytest.raises(ServiceQuarantinedError) as raised:
            client.sync()
        assert raised.value.retry_after == 1
        service.respond = None
        # Refused locally, without a request, until Retry-After has passed.
        with pytest.raises(ServiceQuarantinedError) as again:
            client.sync()
        assert again.value.retry_after == 1
        assert again.value.code == "sync_quarantined"
        assert service.count("/v1/sync") == 2
        time.sleep(1.05)
        client.sync()
        assert service.count("/v1/sync") == 3

    def test_reads_an_http_date_retry_after(self, service: FakeService, create: Create) -> None:
        client = create()
        at = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=30), usegmt=True)
        service.respond = lambda _: problem(429, "sync_quarantined", **{"Retry-After": at})
        with pytest.raises(ServiceQuarantinedError) as raised:
            client.sync()
        assert 28 <= raised.value.retry_after <= 31


class TestOnChange:
    def test_reports_what_a_sync_changed_and_stops_after_unsubscribe(
        self, service: FakeService, create: Create
    ) -> None:
        service.snapshot.update(configs={"a": 1, "b": True}, flags={"f": False})
        client = create()
        seen: list[ChangeSet] = []
        remove = client.on_change(seen.append)
        client.sync()  # 304: nothing
        service.snapshot.update(
            revision=2,
            configs={"a": 1, "b": 1, "c": None},
            flags={},
            secrets={"s": {"value": "v", "type": "text", "version": 1}},
        )
        client.sync()
        assert len(seen) == 1
        assert seen[0].revision == 2
        assert seen[0].source == "sync"
        assert set(seen[0].changes) == {
            Change("config", "b", "upsert"),  # true became 1: a change
            Change("config", "c", "upsert"),
            Change("flag", "f", "delete"),
            Change("secret", "s", "upsert"),
        }
        remove()
        service.snapshot.update(revision=3, configs={})
        client.sync()
        assert len(seen) == 1

    def test_logs_a_listener_that_raises_and_keeps_going(
        self, service: FakeService, create: Create
    ) -> None:
        logger = RecordingLogger()
        client = create(logger=logger)
        seen: list[int] = []

        def broken(_: ChangeSet) -> None:
            raise RuntimeError("boom")

        client.on_change(broken)
        client.on_change(lambda change_set: seen.append(change_set.revision))
        service.snapshot.update(revision=5, flags={"x": True})
        client.sync()
        assert seen == [5]
        assert "a change listener raised" in logger.messages("error")
        assert isinstance(logger.causes[-1], RuntimeError)
