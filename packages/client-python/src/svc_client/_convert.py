"""``get_config_as``: a config's JSON value checked and converted to a Python type.

Pydantic models are validated by pydantic (when it is installed); dataclasses and plain types
(``str``, ``int``, ``float``, ``bool``, ``list[T]``, ``dict[str, T]``, ``Optional[T]``,
``Union``, ``Literal``, ``Any``) by the small strict converter below, so that installing
pydantic never changes how they convert. Nothing is coerced: a string is not a number, a
fraction is not an ``int``, ``null`` fits only an optional type. Unknown object keys are
ignored (as Jackson and zod do by default).
"""

from __future__ import annotations

import collections.abc
import dataclasses
import sys
import types
import typing
from typing import Any, Callable, Union

from ._snapshot import JsonValue, copy_json


class ConversionError(ValueError):
    """The value does not fit the type; ``path`` says where (``pools[2].max``)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}" if path else reason)


def convert(value: JsonValue, target: Any) -> Any:
    """``value`` as ``target``; a :class:`ValueError` when it does not fit."""
    validate = _pydantic_validator(target)
    if validate is not None:
        return validate(value)
    return _convert(value, target, "")


def _pydantic_validator(target: Any) -> Callable[[JsonValue], Any] | None:
    # Only when the application imported pydantic: never imported here on our own.
    pydantic = sys.modules.get("pydantic")
    if pydantic is None or not isinstance(target, type):
        return None
    base_model = getattr(pydantic, "BaseModel", None)
    if base_model is None or not issubclass(target, base_model):
        return None
    validate: Callable[[JsonValue], Any] = getattr(target, "model_validate")  # noqa: B009
    return validate


_ORIGIN_LIST = (list, collections.abc.Sequence, collections.abc.MutableSequence)
_ORIGIN_DICT = (dict, collections.abc.Mapping, collections.abc.MutableMapping)


def _convert(value: Any, target: Any, path: str) -> Any:
    if target is Any or target is object:
        return copy_json(value)
    if target is None or target is type(None):
        if value is None:
            return None
        raise _mismatch(path, "null", value)
    origin = typing.get_origin(target)
    if origin is Union or _is_union_type(target):
        return _convert_union(value, typing.get_args(target), path)
    if origin is typing.Literal:
        if any(
            value == choice and type(value) is type(choice) for choice in typing.get_args(target)
        ):
            return value
        raise ConversionError(path, f"expected one of {list(typing.get_args(target))!r}")
    if origin in _ORIGIN_LIST or target in _ORIGIN_LIST:
        return _convert_list(value, typing.get_args(target), path)
    if origin in _ORIGIN_DICT or target in _ORIGIN_DICT:
        return _convert_dict(value, typing.get_args(target), path)
    if isinstance(target, type) and dataclasses.is_dataclass(target):
        return _convert_dataclass(value, target, path)
    if target is bool:
        if type(value) is bool:
            return value
        raise _mismatch(path, "a boolean", value)
    if target is int:
        if type(value) is int or (type(value) is float and value.is_integer()):
            return int(value)
        raise _mismatch(path, "an integer", value)
    if target is float:
        if type(value) in (int, float):
            return float(value)
        raise _mismatch(path, "a number", value)
    if target is str:
        if isinstance(value, str):
            return value
        raise _mismatch(path, "a string", value)
    raise TypeError(f"get_config_as cannot convert to {target!r}")


def _is_union_type(target: Any) -> bool:
    # `int | None` (Python 3.10+) is a types.UnionType, whose origin is not typing.Union.
    union_type = getattr(types, "UnionType", None)
    return union_type is not None and isinstance(target, union_type)


def _convert_union(value: Any, members: tuple[Any, ...], path: str) -> Any:
    reasons: list[str] = []
    for member in members:
        try:
            return _convert(value, member, path)
        except ConversionError as error:
            reasons.append(str(error))
    raise ConversionError(path, f"fits none of the union's types ({'; '.join(reasons)})")


def _convert_list(value: Any, args: tuple[Any, ...], path: str) -> list[Any]:
    if not isinstance(value, list):
        raise _mismatch(path, "an array", value)
    item = args[0] if args else Any
    return [_convert(v, item, f"{path}[{i}]") for i, v in enumerate(value)]


def _convert_dict(value: Any, args: tuple[Any, ...], path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _mismatch(path, "an object", value)
    if args and args[0] is not str:
        raise TypeError("get_config_as converts to dictionaries with str keys only")
    item = args[1] if len(args) > 1 else Any
    return {k: _convert(v, item, _join(path, k)) for k, v in value.items()}


def _convert_dataclass(value: Any, target: type, path: str) -> Any:
    if not isinstance(value, dict):
        raise _mismatch(path, "an object", value)
    hints = typing.get_type_hints(target)
    arguments: dict[str, Any] = {}
    for field in dataclasses.fields(target):
        if not field.init:
            continue
        if field.name in value:
            arguments[field.name] = _convert(
                value[field.name], hints[field.name], _join(path, field.name)
            )
        elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            raise ConversionError(_join(path, field.name), "missing")
    return target(**arguments)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _mismatch(path: str, expected: str, value: Any) -> ConversionError:
    kind = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(
        type(value), "null" if value is None else "a number"
    )
    return ConversionError(path, f"expected {expected}, got {kind}")
