"""Reads from many threads while syncs and stream events replace the cache: every read sees one
whole snapshot, never part of one and part of the next."""

from __future__ import annotations

import threading
import time
from typing import Any, cast

from conftest import Create
from support.fake_service import FakeResponse, FakeService, RecordedRequest, wait_until

ITEMS = 200
READERS = 8


def test_readers_never_see_a_torn_snapshot_during_syncs(
    service: FakeService, create: Create
) -> None:
    counter = {"revision": 1}

    def snapshot_of(revision: int) -> dict[str, Any]:
        # Every item of a revision carries that revision: a mix of two is visible at once.
        return {
            "revision": revision,
            "configs": {f"c{i}": {"rev": revision} for i in range(ITEMS)},
            "flags": {f"f{i}": revision % 2 == 0 for i in range(ITEMS)},
            "secrets": {
                f"s{i}": {"value": str(revision), "type": "text", "version": revision}
                for i in range(10)
            },
        }

    def every_sync_is_new(request: RecordedRequest) -> FakeResponse | None:
        if request.path != "/v1/sync":
            return None
        counter["revision"] += 1
        revision = counter["revision"]
        return FakeResponse(200, snapshot_of(revision), {"ETag": f'"r{revision}"'})

    service.respond = every_sync_is_new
    client = create(stream=True)
    stream = service.wait_for_streams(1)
    pushed: list[int] = []
    client.on_change(lambda change_set: pushed.append(1) if change_set.source == "stream" else None)
    stop = threading.Event()
    problems: list[str] = []
    seen_revisions: set[int] = set()
    reads = [0] * READERS

    def reader(index: int) -> None:
        while not stop.is_set():
            flags = client.get_all_flags()
            configs = client.get_all_configs()
            revisions = {
                cast(dict[str, int], v)["rev"] for k, v in configs.items() if k != "pushed"
            }
            if len(set(flags.values())) != 1 or len(revisions) != 1:
                problems.append(f"torn: flags {set(flags.values())}, configs {revisions}")
            seen_revisions.update(revisions)
            client.get_flag("f1")
            client.get_config("c7")
            client.get_secret("s3")
            reads[index] += 1

    def syncer() -> None:
        while not stop.is_set():
            client.sync()

    def pusher() -> None:
        # Stream changes of a key of their own at the latest revision, applied under the same
        # lock as syncs.
        n = 0
        while not stop.is_set():
            n += 1
            change = {"kind": "config", "key": "pushed", "op": "upsert", "value": n}
            stream.event("change", {"revision": counter["revision"], **change})
            time.sleep(0.001)

    threads = [threading.Thread(target=reader, args=(i,)) for i in range(READERS)]
    threads += [threading.Thread(target=syncer), threading.Thread(target=pusher)]
    for thread in threads:
        thread.start()
    try:
        # At least 1.5 s, and until the readers overlapped several syncs (on a slow machine too).
        time.sleep(1.5)
        wait_until(lambda: len(seen_revisions) >= 5, 10)
    finally:
        stop.set()
        for thread in threads:
            thread.join(10)
    assert problems == []
    assert min(reads) > 10
    assert len(seen_revisions) >= 5, "the readers should have seen several syncs"
    # (Eight busy readers leave the pushing thread few turns: a dozen batches or so.)
    assert len(pushed) >= 3, "stream changes should have been applied between the syncs"
