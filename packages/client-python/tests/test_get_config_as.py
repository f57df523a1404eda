"""get_config_as: dataclasses and plain types by the client's strict converter, pydantic models
by pydantic."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Optional, Union

import pydantic
import pytest

from conftest import Create
from support.fake_service import FakeService


@dataclass
class Pool:
    max: int
    min: int = 1
    hosts: list[str] = field(default_factory=list)


@dataclass
class Database:
    pool: Pool
    mode: Literal["primary", "replica"]
    timeout: Optional[float] = None  # noqa: UP045 (evaluated by get_type_hints on Python 3.9)


class PoolModel(pydantic.BaseModel):
    max: int
    min: int = 1


CONFIGS: dict[str, Any] = {
    "db": {
        "pool": {"max": 10, "hosts": ["a", "b"], "extra": True},
        "mode": "replica",
        "timeout": 2,
    },
    "pool": {"max": 10},
    "fraction": {"max": 2.5},
    "text": "dark",
    "number": 3,
    "whole": 3.0,
    "flag": True,
    "nothing": None,
    "list": [1, 2, 3],
    "map": {"a": 1.5, "b": 2},
}


@pytest.fixture
def client(service: FakeService, create: Create) -> Any:
    service.snapshot["configs"] = CONFIGS
    return create()


def test_dataclasses_nested_with_defaults_literals_and_unknown_keys_ignored(client: Any) -> None:
    db = client.get_config_as("db", Database)
    assert db == Database(Pool(10, 1, ["a", "b"]), "replica", 2.0)
    assert isinstance(db.timeout, float)
    assert client.get_config_as("pool", Pool) == Pool(10)


def test_plain_types(client: Any) -> None:
    assert client.get_config_as("text", str) == "dark"
    assert client.get_config_as("number", int) == 3
    assert client.get_config_as("whole", int) == 3
    assert client.get_config_as("number", float) == 3.0
    assert client.get_config_as("flag", bool) is True
    assert client.get_config_as("list", list[int]) == [1, 2, 3]
    assert client.get_config_as("map", dict[str, float]) == {"a": 1.5, "b": 2.0}
    assert client.get_config_as("nothing", Optional[str]) is None
    assert client.get_config_as("text", Union[int, str]) == "dark"
    assert client.get_config_as("map", Any) == {"a": 1.5, "b": 2}


def test_absent_keys_are_none(client: Any) -> None:
    assert client.get_config_as("missing", Pool) is None
    assert client.get_config_as("missing", str) is None


@pytest.mark.parametrize(
    ("key", "target", "reason"),
    [
        ("text", Pool, "expected an object, got a string"),
        ("fraction", Pool, "max: expected an integer, got a number"),
        ("pool", Database, "pool: missing"),
        ("number", str, "expected a string, got a number"),
        ("text", int, "expected an integer"),
        ("flag", int, "expected an integer, got a boolean"),
        ("nothing", str, "expected a string, got null"),
        ("list", list[str], "[0]: expected a string"),
    ],
)
def test_a_value_that_does_not_fit_is_a_value_error_naming_where(
    client: Any, key: str, target: Any, reason: str
) -> None:
    with pytest.raises(ValueError, match=f'config "{key}" does not fit') as raised:
        client.get_config_as(key, target)
    assert reason in str(raised.value)


def test_pydantic_models_are_validated_by_pydantic(client: Any) -> None:
    assert client.get_config_as("pool", PoolModel) == PoolModel(max=10, min=1)
    with pytest.raises(ValueError, match='config "text" does not fit PoolModel') as raised:
        client.get_config_as("text", PoolModel)
    assert isinstance(raised.value.__cause__, pydantic.ValidationError)


def test_a_target_type_the_converter_does_not_know_is_a_type_error(client: Any) -> None:
    with pytest.raises(TypeError, match="cannot convert"):
        client.get_config_as("text", bytes)


def test_the_result_is_not_the_cache(client: Any) -> None:
    first = client.get_config_as("map", dict[str, Any])
    first["a"] = 0
    assert client.get_config_as("map", dict[str, Any]) == {"a": 1.5, "b": 2}
