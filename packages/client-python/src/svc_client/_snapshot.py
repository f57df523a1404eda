"""The client's cache: an immutable snapshot of what its key sees.

A sync builds a new one from the ``/v1/sync`` body and stream changes derive a new one from the
current; the client swaps the reference, so a reader never sees half of an update. Nothing
mutates a snapshot's dictionaries once it is built.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Union

from ._errors import ServiceError

JsonValue = Union[None, bool, int, float, str, list["JsonValue"], dict[str, "JsonValue"]]
"""Any JSON value, as a config holds it."""

ItemKind = Literal["config", "flag", "secret"]
"""The kinds of item a snapshot holds."""


@dataclass(frozen=True)
class SecretEntry:
    """A secret as the cache holds it."""

    value: str
    type: Literal["text", "file"]
    version: int
    file_name: str | None
    """The file name for file secrets, when the secret has one."""


@dataclass(frozen=True)
class Change:
    """One changed item, as change listeners see it (read the new value from the client)."""

    kind: ItemKind
    key: str
    op: Literal["upsert", "delete"]
    """``upsert``: added or changed; ``delete``: gone from this key's view."""


@dataclass(frozen=True)
class ItemChange:
    """One item of a ``change`` event of the stream."""

    revision: int
    kind: ItemKind
    key: str
    op: Literal["upsert", "delete"]
    value: JsonValue = None
    """Config value or flag state (``upsert`` of a config or flag)."""
    secret: SecretEntry | None = None
    """The secret (``upsert`` of a secret)."""


class Snapshot:
    """One revision of the key's view."""

    __slots__ = ("configs", "flags", "revision", "secrets")

    def __init__(
        self,
        revision: int,
        configs: dict[str, JsonValue],
        flags: dict[str, bool],
        secrets: dict[str, SecretEntry],
    ) -> None:
        self.revision = revision
        self.configs = configs
        self.flags = flags
        self.secrets = secrets


EMPTY = Snapshot(-1, {}, {}, {})


def parse_snapshot(body: object) -> Snapshot:
    """Reads a ``/v1/sync`` body; a :class:`ServiceError` when it is not the contract's shape."""
    if not isinstance(body, dict):
        raise _invalid("the body is not an object")
    revision = _as_int(body.get("revision"))
    if revision is None:
        raise _invalid("revision is not an integer")
    configs = body.get("configs")
    flags = body.get("flags")
    secrets = body.get("secrets", {})
    if not isinstance(configs, dict):
        raise _invalid("configs is not an object")
    if not isinstance(flags, dict):
        raise _invalid("flags is not an object")
    if not isinstance(secrets, dict):
        raise _invalid("secrets is not an object")
    for key, value in flags.items():
        if type(value) is not bool:
            raise _invalid(f"flag {key} is not a boolean")
    # The parsed dictionaries are this snapshot's own: kept as they are, never copied.
    parsed = {key: _parse_secret(key, value) for key, value in secrets.items()}
    return Snapshot(revision, configs, flags, parsed)


def parse_change(data: str) -> ItemChange:
    """Reads the ``data:`` of a ``change`` event; a :class:`ServiceError` for any other shape."""
    try:
        event = json.loads(data)
    except ValueError as error:
        raise ServiceError("stream: a change event is not JSON") from error
    if not isinstance(event, dict):
        raise _invalid_change("not an object")
    revision = _as_int(event.get("revision"))
    kind, key, op = event.get("kind"), event.get("key"), event.get("op")
    if revision is None:
        raise _invalid_change("revision is not an integer")
    if kind not in ("config", "flag", "secret"):
        raise _invalid_change("bad kind")
    if not isinstance(key, str):
        raise _invalid_change("key is not a string")
    if op == "delete":
        return ItemChange(revision, kind, key, "delete")
    if op != "upsert":
        raise _invalid_change("bad op")
    if kind == "secret":
        return ItemChange(revision, kind, key, "upsert", secret=_parse_secret(key, event))
    if "value" not in event:
        raise _invalid_change("an upsert without a value")
    value = event["value"]
    if kind == "flag" and type(value) is not bool:
        raise _invalid_change("flag is not a boolean")
    return ItemChange(revision, kind, key, "upsert", value=value)


def apply_changes(snapshot: Snapshot, changes: Sequence[ItemChange]) -> Snapshot:
    """A new snapshot with ``changes`` applied (each dictionary copied at most once)."""
    configs: dict[str, JsonValue] | None = None
    flags: dict[str, bool] | None = None
    secrets: dict[str, SecretEntry] | None = None
    revision = snapshot.revision
    for change in changes:
        revision = max(revision, change.revision)
        if change.kind == "config":
            configs = dict(snapshot.configs) if configs is None else configs
            _put(configs, change.key, None if change.op == "delete" else change.value, change.op)
        elif change.kind == "flag":
            flags = dict(snapshot.flags) if flags is None else flags
            _put(flags, change.key, change.value is True, change.op)
        else:
            secrets = dict(snapshot.secrets) if secrets is None else secrets
            _put(secrets, change.key, change.secret, change.op)
    return Snapshot(
        revision,
        snapshot.configs if configs is None else configs,
        snapshot.flags if flags is None else flags,
        snapshot.secrets if secrets is None else secrets,
    )


def _put(target: dict[str, Any], key: str, value: Any, op: str) -> None:
    if op == "delete":
        target.pop(key, None)
    else:
        target[key] = value


def diff(before: Snapshot, after: Snapshot) -> list[Change]:
    """The items that differ between two snapshots."""
    changes: list[Change] = []
    _diff_maps("config", before.configs, after.configs, changes)
    _diff_maps("flag", before.flags, after.flags, changes)
    _diff_maps("secret", before.secrets, after.secrets, changes)
    return changes


def _diff_maps(
    kind: ItemKind, before: Mapping[str, Any], after: Mapping[str, Any], out: list[Change]
) -> None:
    if before is after:
        return
    for key, value in after.items():
        if key not in before or not json_equal(before[key], value):
            out.append(Change(kind, key, "upsert"))
    out.extend(Change(kind, key, "delete") for key in before if key not in after)


def json_equal(a: object, b: object) -> bool:
    """Equality of JSON values where ``True`` differs from ``1`` (unlike Python's ``==``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    return a == b


def copy_json(value: JsonValue) -> JsonValue:
    """A deep copy of a JSON value, so that no caller can change the cache."""
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    return value


def _parse_secret(key: str, value: object) -> SecretEntry:
    if not isinstance(value, dict):
        raise _invalid(f"secret {key} is not an object")
    plaintext, kind, file_name = value.get("value"), value.get("type"), value.get("file_name")
    version = _as_int(value.get("version"))
    if not isinstance(plaintext, str):
        raise _invalid(f"secret {key} has no string value")
    if kind not in ("text", "file"):
        raise _invalid(f"secret {key} has an unknown type")
    if version is None:
        raise _invalid(f"secret {key} has no version")
    if file_name is not None and not isinstance(file_name, str):
        raise _invalid(f"secret {key} has a bad file_name")
    return SecretEntry(plaintext, kind, version, file_name)


def _as_int(value: object) -> int | None:
    """``value`` when it is a JSON integer (not a boolean), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _invalid(reason: str) -> ServiceError:
    return ServiceError(f"sync: the snapshot does not follow the contract: {reason}")


def _invalid_change(reason: str) -> ServiceError:
    return ServiceError(f"stream: a change event does not follow the contract: {reason}")
