"""File secrets on local disk.

One private folder per client (mode 0700) under the temp folder, a sub-folder per secret, and
the file itself with mode 0600. A file is written to a temporary name and renamed into place,
so a reader never sees half a secret; it is rewritten only when the secret changed. The folder
goes on ``close()`` and, failing that, when the interpreter exits (``atexit``).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import secrets as random_names
import shutil
import tempfile
import threading
from collections.abc import Mapping
from urllib.parse import quote

from ._logger import ServiceLogger
from ._snapshot import SecretEntry

_live_folders: set[str] = set()
_live_lock = threading.Lock()
_exit_hook_installed = False
_exiting = False


def _remove_live_folders() -> None:
    global _exiting  # noqa: PLW0603  (set once, at interpreter exit)
    with _live_lock:
        # Daemon threads (a client's stream) still run during exit: no file is written after this.
        _exiting = True
        folders = list(_live_folders)
        _live_folders.clear()
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


def _remove_on_exit(folder: str) -> None:
    global _exit_hook_installed  # noqa: PLW0603  (one hook per interpreter)
    with _live_lock:
        _live_folders.add(folder)
        if not _exit_hook_installed:
            _exit_hook_installed = True
            atexit.register(_remove_live_folders)


class FileSecrets:
    """The files of one client. ``update`` and ``close`` run under the client's cache lock;
    ``path_of`` may run on any thread (it reads one dictionary that is replaced, never
    changed)."""

    def __init__(self, parent: str | None, logger: ServiceLogger) -> None:
        self._parent = parent
        self._logger = logger
        self._folder: str | None = None
        self._files: dict[str, tuple[SecretEntry, str]] = {}

    def path_of(self, key: str) -> str | None:
        """The absolute path of the file written for ``key``, when it is a file secret on disk."""
        file = self._files.get(key)
        return None if file is None else file[1]

    def update(self, secrets: Mapping[str, SecretEntry]) -> None:
        """Brings the files in line with ``secrets``: writes new and changed ones, removes the
        rest."""
        files = dict(self._files)
        for key, (_, path) in self._files.items():
            secret = secrets.get(key)
            if secret is None or secret.type != "file":
                del files[key]
                shutil.rmtree(os.path.dirname(path), ignore_errors=True)
                self._logger.debug(f"removed file secret {key}")
        for key, secret in secrets.items():
            if secret.type != "file":
                continue
            current = files.get(key)
            if current is not None and current[0] == secret:
                continue
            try:
                files[key] = (secret, self._write(key, secret, current))
            except OSError as error:
                self._logger.error(f"writing the file for secret {key} failed", error)
        self._files = files

    def close(self) -> None:
        """Removes every file and the private folder."""
        self._files = {}
        folder, self._folder = self._folder, None
        if folder is None:
            return
        shutil.rmtree(folder, ignore_errors=True)
        with _live_lock:
            _live_folders.discard(folder)

    def _write(self, key: str, secret: SecretEntry, current: tuple[SecretEntry, str] | None) -> str:
        folder = os.path.join(self._private_folder(), _folder_name(key))
        os.makedirs(folder, mode=0o700, exist_ok=True)
        os.chmod(folder, 0o700)
        path = os.path.join(folder, _file_name(key, secret.file_name))
        temp = os.path.join(folder, f".{random_names.token_hex(6)}.tmp")
        with os.fdopen(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as file:
            file.write(secret.value.encode())
            file.flush()
            os.fsync(file.fileno())
        os.replace(temp, path)
        if current is not None and current[1] != path:
            with contextlib.suppress(FileNotFoundError):
                os.remove(current[1])
        self._logger.debug(f"wrote file secret {key} version {secret.version}")
        return path

    def _private_folder(self) -> str:
        if _exiting:
            raise OSError("the interpreter is exiting")
        if self._folder is None:
            folder = tempfile.mkdtemp(prefix="service-client-", dir=self._parent)
            os.chmod(folder, 0o700)
            _remove_on_exit(folder)
            self._folder = folder
        return self._folder


def _folder_name(key: str) -> str:
    """Secret keys are dot-separated ``[A-Za-z0-9_-]`` segments: safe as a folder name once
    leading dots are encoded."""
    encoded = quote(key, safe="")
    dots = len(encoded) - len(encoded.lstrip("."))
    return "%2E" * dots + encoded[dots:]


_PLAIN_NAME = re.compile(r"[^/\\\0]+")


def _file_name(key: str, wanted: str | None) -> str:
    """The secret's ``file_name`` when it is a plain name, else the key."""
    if wanted is not None and _PLAIN_NAME.fullmatch(wanted) and wanted not in (".", ".."):
        return f"_{wanted}" if wanted.startswith(".") and wanted.endswith(".tmp") else wanted
    return _folder_name(key)
