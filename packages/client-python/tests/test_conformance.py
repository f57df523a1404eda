"""The shared client scenarios (packages/client-conformance/scenarios/*.json) against the real
console and api started as child processes with the settings the scenarios assume
(server-env.json): one test per scenario file, in file-name order."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.runner import CALLS, ERROR_TYPES, ScenarioRunner, load, scenario_files
from support.live_server import LiveServer, dead_url

FILES = scenario_files()


@pytest.mark.parametrize("path", FILES, ids=[path.stem for path in FILES])
def test_shared_scenario(live: LiveServer, path: Path) -> None:
    ScenarioRunner(live, dead_url()).run(load(path))


def test_the_scenarios_cover_every_call_and_every_error() -> None:
    assert FILES, "no scenario files"
    calls: set[str] = set()
    errors: set[str] = set()
    for path in FILES:
        for step in load(path)["steps"]:
            if "call" in step:
                calls.add(step["call"])
            if "create" in step:
                calls.add("create")
            error = step.get("expect", {}).get("error")
            while error is not None:
                errors.add(error["type"])
                error = error.get("cause")
    assert sorted(calls) == sorted([*CALLS, "create"])
    assert sorted(errors) == sorted(ERROR_TYPES)
