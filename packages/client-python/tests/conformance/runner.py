"""The Python runner of the shared client scenarios (``packages/client-conformance``): plays one
scenario file against a live api, as that package's README says, and raises an AssertionError
naming the first step that does not behave as stated."""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import json
import os
import re
import stat
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from support.live_server import CONFORMANCE_DIR, LiveServer
from svc_client import (
    ServiceClient,
    ServiceError,
    ServiceQuarantinedError,
    ServiceRateLimitedError,
    silent_logger,
)

CALLS = [
    "getConfig",
    "getConfigAs",
    "getAllConfigs",
    "getFlag",
    "getAllFlags",
    "evaluateAB",
    "getSecret",
    "getSecretFilePath",
    "setSecret",
    "deleteSecret",
    "deleteSecretVersion",
    "getKeyType",
    "getSyncedAt",
    "isStreamConnected",
    "sync",
    "connectStream",
    "disconnectStream",
    "close",
]
"""Every call name a scenario may use (README: "Calls and arguments")."""

ERROR_TYPES = [
    "IllegalArgument",
    "Service",
    "ServiceInit",
    "ServiceUnauthorized",
    "ServiceNotFound",
    "ServicePublicKey",
    "ServiceSecretNotFound",
    "ServiceAbAddonNotAvailable",
    "ServiceBilling",
    "ServiceRateLimited",
    "ServiceQuarantined",
]
"""Every error type a scenario may expect (README: "Errors")."""


@dataclasses.dataclass
class Pool:
    """The ``Pool`` type of ``getConfigAs``."""

    max: int


TYPES: dict[str, Any] = {"Pool": Pool, "String": str}
"""Named target types of ``getConfigAs`` (README: "Types for getConfigAs")."""

_EMPTY: Any = object()
"""What a call returned when it returned nothing (an absent config, file path, ...)."""
_PLACEHOLDER = re.compile(r"\{([A-Za-z][A-Za-z0-9_]*)\}")
_POLL = 0.025
_workspaces = itertools.count(1)


def scenario_files() -> list[Path]:
    return sorted((CONFORMANCE_DIR / "scenarios").glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    scenario: dict[str, Any] = json.loads(path.read_text())
    return scenario


@dataclasses.dataclass
class Outcome:
    """What a call did: returned ``value``, or raised ``error``."""

    value: Any = None
    error: BaseException | None = None

    @classmethod
    def of(cls, call: Callable[[], Any]) -> Outcome:
        try:
            return cls(value=call())
        except Exception as error:
            return cls(error=error)


class ScenarioRunner:
    def __init__(self, live: LiveServer, dead_url: str) -> None:
        self._live = live
        self._dead_url = dead_url

    def run(self, scenario: dict[str, Any]) -> None:
        """Runs one scenario; closes every client it created, whatever happened."""
        name = scenario["name"]
        ws = f"cfp-{name}-{os.getpid()}-{next(_workspaces)}"[:60].rstrip("-")
        variables: dict[str, Any] = {
            "ws": ws,
            "apiUrl": self._live.api_url,
            "deadUrl": self._dead_url,
        }
        clients: dict[str, ServiceClient] = {}
        try:
            for call in scenario.get("setup", []):
                self._admin(call, variables)
            for index, step in enumerate(scenario["steps"]):
                try:
                    self._step(step, variables, clients)
                except Exception as error:
                    raise AssertionError(
                        f"{name} step {index}: {error}\n  step: {json.dumps(step)}"
                    ) from error
        finally:
            for client in clients.values():
                client.close()

    def _admin(self, call: dict[str, Any], variables: dict[str, Any]) -> None:
        method, path = fill(call["method"], variables), fill(call["path"], variables)
        response = self._live.admin_raw(method, path, fill(call.get("body"), variables))
        if not response.is_success:
            raise AssertionError(
                f"{method} {path} answered {response.status_code}: {response.text}"
            )
        for name, field in call.get("save", {}).items():
            answer = response.json()
            if field not in answer:
                raise AssertionError(f"the answer has no field {field}: {response.text}")
            value = answer[field]
            variables[name] = value
            if isinstance(value, str) and re.match(r"sv[sp]_", value):
                self._live.await_key(variables["ws"], value)

    def _step(
        self, step: dict[str, Any], variables: dict[str, Any], clients: dict[str, ServiceClient]
    ) -> None:
        if "admin" in step:
            self._admin(step["admin"], variables)
            return
        if "sleepMs" in step:
            time.sleep(step["sleepMs"] / 1000)
            return
        if "assertFileAbsent" in step:
            path = fill(step["assertFileAbsent"], variables)
            if os.path.exists(path):
                raise AssertionError(f"{path} still exists")
            return
        expect = step.get("expect", {})
        if "create" in step:
            settings = client_settings(fill(step.get("config", {}), variables))
            outcome = Outcome.of(lambda: ServiceClient.create(**settings))
            check(outcome, expect, variables)
            if outcome.error is None:
                previous = clients.get(step["create"])
                clients[step["create"]] = outcome.value
                if previous is not None:
                    previous.close()
            return
        if "call" not in step or "client" not in step:
            raise AssertionError(
                "a step needs admin, sleepMs, assertFileAbsent, create, or client + call"
            )
        client = clients.get(step["client"])
        if client is None:
            raise AssertionError(f"no client named {step['client']}")
        args = fill(step.get("args", []), variables)

        def attempt() -> Outcome:
            return Outcome.of(lambda: invoke(client, step["call"], args))

        if "repeat" in step:
            # Until the expected outcome, or any failure (which check() then judges).
            outcome = attempt()
            for _ in range(1, step["repeat"]):
                if outcome.error is not None or matches(outcome, expect, variables):
                    break
                outcome = attempt()
        elif "eventually" in step:
            eventually = step["eventually"]
            deadline = time.monotonic() + eventually.get("timeoutMs", 5000) / 1000
            while True:
                if eventually.get("sync"):
                    with contextlib.suppress(ServiceError):  # README: ignoring what it throws
                        client.sync()
                outcome = attempt()
                if matches(outcome, expect, variables) or time.monotonic() > deadline:
                    break
                time.sleep(_POLL)
        else:
            outcome = attempt()
        check(outcome, expect, variables)
        if "save" in step and outcome.error is None:
            variables[step["save"]] = outcome.value


def client_settings(config: dict[str, Any]) -> dict[str, Any]:
    """A scenario's ``config`` as keyword arguments of ``ServiceClient.create``."""
    names = {"baseUrl": "base_url", "apiKey": "api_key", "stream": "stream"}
    settings: dict[str, Any] = {"logger": silent_logger}
    for key, value in config.items():
        if key == "cacheTtlMs":
            settings["cache_ttl"] = value / 1000
        elif key in names:
            settings[names[key]] = value
        else:
            raise AssertionError(f"unknown config field {key}")
    return settings


def invoke(client: ServiceClient, call: str, a: list[Any]) -> Any:
    """Calls one client operation with the scenario's language-neutral arguments."""
    if call == "getConfig":
        return client.get_config(a[0], _EMPTY)
    if call == "getConfigAs":
        if a[1] not in TYPES:
            raise AssertionError(f"unknown type {a[1]}")
        return none_as_empty(client.get_config_as(a[0], TYPES[a[1]]))
    if call == "getAllConfigs":
        return client.get_all_configs()
    if call == "getFlag":
        return client.get_flag(a[0], a[1]) if len(a) > 1 else client.get_flag(a[0])
    if call == "getAllFlags":
        return client.get_all_flags()
    if call == "evaluateAB":
        return client.evaluate_ab(a[0], a[1], a[2])
    if call == "getSecret":
        return client.get_secret(a[0])
    if call == "getSecretFilePath":
        return none_as_empty(client.get_secret_file_path(a[0]))
    if call == "setSecret":
        return client.set_secret(a[0], a[1], a[2]) if len(a) > 2 else client.set_secret(a[0], a[1])
    if call == "deleteSecret":
        return client.delete_secret(a[0])
    if call == "deleteSecretVersion":
        return client.delete_secret_version(a[0], a[1])
    if call == "getKeyType":
        return client.get_key_type()
    if call == "getSyncedAt":
        return client.get_synced_at()
    if call == "isStreamConnected":
        return client.is_stream_connected()
    if call == "sync":
        return client.sync()
    if call == "connectStream":
        return client.connect_stream()
    if call == "disconnectStream":
        return client.disconnect_stream()
    if call == "close":
        return client.close()
    raise AssertionError(f"unknown call {call}")


def none_as_empty(value: Any) -> Any:
    return _EMPTY if value is None else value


def matches(outcome: Outcome, expect: dict[str, Any], variables: dict[str, Any]) -> bool:
    try:
        check(outcome, expect, variables)
    except AssertionError:
        return False
    return True


def check(outcome: Outcome, expect: dict[str, Any], variables: dict[str, Any]) -> None:
    if "error" in expect:
        if outcome.error is None:
            raise AssertionError(
                f"expected {expect['error']['type']}, got the result {show(outcome.value)}"
            )
        check_error(outcome.error, expect["error"])
        return
    if outcome.error is not None:
        raise AssertionError(f"unexpected error: {describe(outcome.error)}")
    value = outcome.value
    if expect.get("empty") and value is not _EMPTY:
        raise AssertionError(f"expected nothing, got {show(value)}")
    if "result" in expect:
        if value is _EMPTY:
            raise AssertionError(f"expected {json.dumps(expect['result'])}, got nothing")
        actual = as_json(value)
        if not same_json(actual, expect["result"]):
            raise AssertionError(f"expected {json.dumps(expect['result'])}, got {show(value)}")
    if "instant" in expect:
        check_instant(value, expect["instant"], variables)
    if "file" in expect:
        check_file(value, expect["file"])


def check_instant(value: Any, instant: dict[str, Any], variables: dict[str, Any]) -> None:
    if not isinstance(value, datetime) or value.tzinfo is None:
        raise AssertionError(f"expected an aware datetime, got {show(value)}")
    if "withinMsOfNow" in instant:
        off = abs((datetime.now(timezone.utc) - value).total_seconds() * 1000)
        if off > instant["withinMsOfNow"]:
            raise AssertionError(
                f"{value.isoformat()} is not within {instant['withinMsOfNow']} ms of now"
            )
    if "after" in instant:
        before = variables.get(instant["after"])
        if not isinstance(before, datetime):
            raise AssertionError(f"{instant['after']} is not a saved instant")
        if not value > before:
            raise AssertionError(f"{value.isoformat()} is not after {before.isoformat()}")


def check_file(value: Any, file: dict[str, Any]) -> None:
    if not isinstance(value, str) or not os.path.isabs(value):
        raise AssertionError(f"expected an absolute path, got {show(value)}")
    if not os.path.isfile(value):
        raise AssertionError(f"{value} does not exist")
    content = Path(value).read_text(encoding="utf-8")
    if content != file["content"]:
        raise AssertionError(f"{value} holds {content!r}")
    if os.name == "posix":
        mode = oct(stat.S_IMODE(os.stat(value).st_mode))[2:]
        if "mode" in file and mode != file["mode"]:
            raise AssertionError(f"{value} has mode {mode}")
        dir_mode = oct(stat.S_IMODE(os.stat(os.path.dirname(value)).st_mode))[2:]
        if "dirMode" in file and dir_mode != file["dirMode"]:
            raise AssertionError(f"{os.path.dirname(value)} has mode {dir_mode}")


def check_error(error: BaseException | None, expected: dict[str, Any]) -> None:
    kind = error_type(error)
    if kind != expected["type"]:
        raise AssertionError(f"expected {expected['type']}, got {kind}: {describe(error)}")
    if "code" in expected and getattr(error, "code", None) != expected["code"]:
        code = getattr(error, "code", None)
        raise AssertionError(f"expected code {expected['code']}, got {code}: {describe(error)}")
    if "retryAfterAtLeast" in expected:
        retry_after = (
            error.retry_after
            if isinstance(error, (ServiceRateLimitedError, ServiceQuarantinedError))
            else None
        )
        if retry_after is None or retry_after < expected["retryAfterAtLeast"]:
            raise AssertionError(
                f"expected retry_after >= {expected['retryAfterAtLeast']}, got {retry_after}"
            )
    if "cause" in expected:
        if error is None or error.__cause__ is None:
            raise AssertionError(f"expected a cause, got none: {describe(error)}")
        check_error(error.__cause__, expected["cause"])


def error_type(error: BaseException | None) -> str:
    """The language-neutral name of an error (README: "Errors")."""
    if isinstance(error, ServiceError):
        return type(error).__name__.removesuffix("Error")
    if isinstance(error, ValueError):
        return "IllegalArgument"
    return f"unexpected {type(error).__name__}"


def describe(error: BaseException | None) -> str:
    if error is None:
        return "None"
    cause = "" if error.__cause__ is None else f" (cause: {describe(error.__cause__)})"
    return f"{type(error).__name__}: {error}{cause}"


def same_json(actual: Any, expected: Any) -> bool:
    """JSON equality: objects without key order, numbers by value, booleans apart from numbers."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(actual) is type(expected) and actual == expected
    if isinstance(expected, (int, float)):
        return isinstance(actual, (int, float)) and actual == expected
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and actual.keys() == expected.keys()
            and all(same_json(actual[k], expected[k]) for k in expected)
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(same_json(a, e) for a, e in zip(actual, expected))
        )
    return type(actual) is type(expected) and actual == expected


def as_json(value: Any) -> Any:
    """A result as JSON data (a ``Pool`` as its fields)."""
    return dataclasses.asdict(value) if isinstance(value, Pool) else value


def show(value: Any) -> str:
    if value is _EMPTY:
        return "nothing"
    if isinstance(value, datetime):
        return value.isoformat()
    try:
        return json.dumps(as_json(value))
    except TypeError:
        return repr(value)


def fill(value: Any, variables: dict[str, Any]) -> Any:
    """Replaces ``{name}`` in every string of ``value``; an unknown name is an error."""
    if isinstance(value, str):

        def replace(match: re.Match[str]) -> str:
            if match.group(1) not in variables:
                raise AssertionError(f"unknown placeholder {{{match.group(1)}}}")
            return str(variables[match.group(1)])

        return _PLACEHOLDER.sub(replace, value)
    if isinstance(value, list):
        return [fill(v, variables) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, variables) for k, v in value.items()}
    return value
