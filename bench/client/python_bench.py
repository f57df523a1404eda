"""The Python client's half of bench/client (run by run.ts --python on the same apps and data):

    python3 packages/client-python/scripts/run.py python bench/client/python_bench.py \
        --api http://127.0.0.1:PORT --small SLUG:KEY --large SLUG:KEY [--creates 50]

1. memory: Python heap growth (tracemalloc, after full collections) with one client holding the
   large snapshot (stream off), beside the same snapshot as bare ``json.loads`` output, and what
   stays after ``close()``;
2. reads: ``get_flag`` (hit, miss with a default) and ``get_config`` calls per second from the
   cache, beside a plain ``dict.get`` on the same keys (the floor any lookup pays), median of 5
   interleaved rounds;
3. ``create()`` to ready (initial sync, stream off) for both snapshots, beside a bare httpx GET +
   ``json.loads`` of the same ``/v1/sync`` (the floor any client pays).

Prints one JSON object on stdout.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import statistics
import time
import tracemalloc
from typing import Any, Callable

import httpx

from svc_client import ServiceClient, silent_logger


def create(api: str, slug: str, key: str) -> ServiceClient:
    return ServiceClient.create(
        base_url=f"{api}/{slug}", api_key=key, stream=False, logger=silent_logger
    )


def heap() -> int:
    gc.collect()
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def memory(api: str, slug: str, key: str) -> dict[str, float]:
    body = httpx.get(f"{api}/{slug}/v1/sync", headers={"X-Service-API-Key": key}).content
    tracemalloc.start()
    before = heap()
    parsed: Any = json.loads(body)
    bare = heap() - before
    del parsed
    before = heap()
    client: Any = create(api, slug, key)
    while_open = heap() - before
    client.close()
    client = None
    time.sleep(0.05)
    after = heap() - before
    tracemalloc.stop()
    mb = 2**20
    return {
        "snapshotBytes": len(body),
        "jsonLoadsMB": bare / mb,
        "heapMB": while_open / mb,
        "retainedAfterCloseMB": after / mb,
    }


def ops_per_second(fn: Callable[[int], object], iterations: int) -> float:
    for i in range(iterations // 10):  # warm-up
        fn(i)
    started = time.perf_counter()
    for i in range(iterations):
        fn(i)
    return iterations / (time.perf_counter() - started)


def reads(client: ServiceClient, items: int, iterations: int) -> dict[str, float]:
    flags = round(items * 0.3)
    configs = round(items * 0.6)
    flag_keys = [f"feature.flag_{i % flags}" for i in range(1024)]
    miss_keys = [f"feature.missing_{i}" for i in range(1024)]
    config_keys = [f"service.setting_{i % configs}" for i in range(1024)]
    plain = client.get_all_flags()
    cases: dict[str, Callable[[int], object]] = {
        "dict.get (baseline)": lambda i: plain.get(flag_keys[i & 1023]),
        "get_flag (hit)": lambda i: client.get_flag(flag_keys[i & 1023]),
        "get_flag (miss, default)": lambda i: client.get_flag(miss_keys[i & 1023], True),
        "get_config": lambda i: client.get_config(config_keys[i & 1023]),
    }
    rounds: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(5):  # rounds interleave the cases: a busy moment hits all of them
        for name, fn in cases.items():
            rounds[name].append(ops_per_second(fn, iterations // 5))
    return {name: statistics.median(values) for name, values in rounds.items()}


def percentiles(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "p50": ordered[len(ordered) // 2],
        "p99": ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))],
        "max": ordered[-1],
    }


def create_times(api: str, slug: str, key: str, creates: int) -> dict[str, Any]:
    client_ms: list[float] = []
    bare_ms: list[float] = []
    with httpx.Client(headers={"X-Service-API-Key": key, "Accept-Encoding": "gzip"}) as bare:
        for i in range(creates + 5):
            started = time.perf_counter()
            create(api, slug, key).close()
            elapsed = (time.perf_counter() - started) * 1000
            started = time.perf_counter()
            json.loads(bare.get(f"{api}/{slug}/v1/sync").content)
            bare_elapsed = (time.perf_counter() - started) * 1000
            if i >= 5:  # the first few warm the caches and the TLS context
                client_ms.append(elapsed)
                bare_ms.append(bare_elapsed)
    return {"client": percentiles(client_ms), "bareGetAndJsonLoads": percentiles(bare_ms)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--api", required=True)
    parser.add_argument("--small", required=True, help="SLUG:KEY")
    parser.add_argument("--large", required=True, help="SLUG:KEY")
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--creates", type=int, default=50)
    parser.add_argument("--reads", type=int, default=2_000_000)
    args = parser.parse_args()
    small_slug, small_key = args.small.split(":", 1)
    large_slug, large_key = args.large.split(":", 1)

    # Warms imports, the TLS context and the connection.
    create(args.api, small_slug, small_key).close()
    result: dict[str, Any] = {"python": platform.python_version(), "httpx": httpx.__version__}
    result["memory"] = {"items": args.items, **memory(args.api, large_slug, large_key)}
    client = create(args.api, large_slug, large_key)
    result["reads"] = reads(client, args.items, args.reads)
    client.close()
    result["createTimes"] = {
        "small (170 items)": create_times(args.api, small_slug, small_key, args.creates),
        f"large ({args.items} items)": create_times(args.api, large_slug, large_key, args.creates),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
