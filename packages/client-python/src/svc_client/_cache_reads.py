"""The read surface of :class:`ServiceClient`: configs, flags and secrets from the live snapshot.
Reads never touch the network and take no lock: the snapshot is replaced whole, never changed."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypeVar, overload

from ._api_key import KeyType, require_secret_key
from ._convert import convert
from ._errors import ServiceSecretNotFoundError
from ._live_cache import LiveCache
from ._snapshot import JsonValue, copy_json

T = TypeVar("T")
_ABSENT: Any = object()


class CacheReads(LiveCache):
    """What a caller reads from the cache, on any thread."""

    @overload
    def get_config(self, key: str) -> JsonValue: ...
    @overload
    def get_config(self, key: str, default: T) -> JsonValue | T: ...
    def get_config(self, key: str, default: Any = None) -> Any:
        """A config's value (a copy: changing it does not change the cache), or ``default`` when
        the key is absent. A config whose value is JSON null is ``None``; pass a default of your
        own to tell it from an absent key."""
        value = self._snapshot.configs.get(key, _ABSENT)
        return default if value is _ABSENT else copy_json(value)

    @overload
    def get_config_as(self, key: str, target: type[T]) -> T | None: ...
    @overload
    def get_config_as(self, key: str, target: Any) -> Any: ...
    def get_config_as(self, key: str, target: Any) -> Any:
        """A config's value converted to ``target``: a dataclass, a pydantic model (when pydantic
        is installed), or a plain type such as ``str``, ``int``, ``list[int]``,
        ``dict[str, float]`` or ``Optional[str]``; None when the key is absent.

        :raises ValueError: when the value does not fit (nothing is coerced: ``"10"`` is not an
            ``int``); the reason is in the message and ``__cause__``.
        :raises TypeError: for a target type the converter does not know.
        """
        value = self._snapshot.configs.get(key, _ABSENT)
        if value is _ABSENT:
            return None
        try:
            return convert(value, target)
        except ValueError as error:
            name = getattr(target, "__name__", repr(target))
            raise ValueError(f'config "{key}" does not fit {name}: {error}') from error

    def get_all_configs(self) -> dict[str, JsonValue]:
        """Every config of the cache, as a new dictionary of copies (public keys see configs with
        ``is_public`` only)."""
        return {key: copy_json(value) for key, value in self._snapshot.configs.items()}

    def get_flag(self, key: str, default: bool = False) -> bool:
        """A flag's ``is_active``, or ``default`` when the flag is absent."""
        value = self._snapshot.flags.get(key)
        return default if value is None else value

    def get_all_flags(self) -> dict[str, bool]:
        """Every flag of the cache (key to ``is_active``), as a new dictionary."""
        return dict(self._snapshot.flags)

    def get_secret(self, key: str) -> str:
        """A secret's plaintext (for a file secret: the file's content).

        :raises ServicePublicKeyError: when this client holds a public key.
        :raises ServiceSecretNotFoundError: when the secret is not in the cache.
        """
        require_secret_key(self._config.key_type, "get_secret")
        secret = self._snapshot.secrets.get(key)
        if secret is None:
            raise ServiceSecretNotFoundError(key)
        return secret.value

    def get_all_secrets(self) -> dict[str, str]:
        """Every secret of the cache (key to plaintext), as a new dictionary.

        :raises ServicePublicKeyError: when this client holds a public key.
        """
        require_secret_key(self._config.key_type, "get_all_secrets")
        return {key: secret.value for key, secret in self._snapshot.secrets.items()}

    def get_secret_file_path(self, key: str) -> str | None:
        """The absolute path of the file written for a file secret (mode 0600, in a private 0700
        folder that ``close()`` removes; a rotated secret is rewritten in place, atomically), or
        None for an unknown key, a text secret, a public key, or a closed client."""
        return self._files.path_of(key)

    def get_key_type(self) -> KeyType:
        """``sk`` for a secret key, ``pk`` for a public key (from the configured key)."""
        return self._config.key_type

    def get_synced_at(self) -> datetime:
        """When the last sync succeeded, in UTC (a 304 counts: the cache was confirmed
        current)."""
        return self._synced_at
