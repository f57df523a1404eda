"""File secrets on disk: modes, names, atomic rewrites only on change, removal on close() and at
interpreter exit."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from conftest import Create
from support.fake_service import SK, FakeService

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")


def file_secret(value: str, version: int = 1, file_name: str | None = "tls.pem") -> dict[str, Any]:
    secret: dict[str, Any] = {"value": value, "type": "file", "version": version}
    if file_name is not None:
        secret["file_name"] = file_name
    return secret


def mode(path: str | Path) -> str:
    return oct(stat.S_IMODE(os.stat(path).st_mode))[2:]


def test_files_have_mode_0600_in_private_0700_folders_named_after_file_name_or_key(
    service: FakeService, create: Create, tmp_path: Path
) -> None:
    service.snapshot["secrets"] = {
        "tls.cert": file_secret("PEM"),
        "ssh.key": file_secret("KEY", file_name=None),
        "dotted": file_secret("D", file_name=".hidden.tmp"),
        "text.one": {"value": "t", "type": "text", "version": 1},
    }
    client = create(secret_files_dir=str(tmp_path))
    cert = client.get_secret_file_path("tls.cert")
    key = client.get_secret_file_path("ssh.key")
    dotted = client.get_secret_file_path("dotted")
    assert cert is not None
    assert key is not None
    assert dotted is not None
    assert Path(cert).read_text() == "PEM"
    assert Path(cert).name == "tls.pem"
    assert Path(cert).parent.name == "tls.cert"
    assert Path(key).name == "ssh.key"
    assert Path(dotted).name == "_.hidden.tmp"
    private = Path(cert).parent.parent
    assert private.parent == tmp_path
    assert private.name.startswith("service-client-")
    for path in (cert, key):
        assert mode(path) == "600"
        assert mode(Path(path).parent) == "700"
    assert mode(private) == "700"
    assert client.get_secret_file_path("text.one") is None
    assert client.get_secret_file_path("nope") is None
    assert client.get_secret("tls.cert") == "PEM"


def test_rewritten_only_when_the_secret_changed_atomically_by_rename(
    service: FakeService, create: Create, tmp_path: Path
) -> None:
    service.snapshot["secrets"] = {"tls.cert": file_secret("PEM-1")}
    client = create(secret_files_dir=str(tmp_path))
    path = client.get_secret_file_path("tls.cert")
    assert path is not None
    inode = os.stat(path).st_ino
    service.snapshot.update(revision=2, flags={"unrelated": True})
    client.sync()
    assert os.stat(path).st_ino == inode
    service.snapshot.update(revision=3, secrets={"tls.cert": file_secret("PEM-2", version=2)})
    client.sync()
    assert client.get_secret_file_path("tls.cert") == path
    assert Path(path).read_text() == "PEM-2"
    assert os.stat(path).st_ino != inode  # a new file renamed over the old one
    assert [p.name for p in Path(path).parent.iterdir()] == ["tls.pem"]  # no temp file left


def test_follow_a_renamed_file_and_go_when_the_secret_goes_or_becomes_text(
    service: FakeService, create: Create, tmp_path: Path
) -> None:
    service.snapshot["secrets"] = {"a": file_secret("A"), "b": file_secret("B")}
    client = create(secret_files_dir=str(tmp_path))
    old_a, old_b = client.get_secret_file_path("a"), client.get_secret_file_path("b")
    assert old_a is not None
    assert old_b is not None
    service.snapshot.update(
        revision=2,
        secrets={
            "a": file_secret("A", version=2, file_name="a.crt"),
            "b": {"value": "B", "type": "text", "version": 2},
        },
    )
    client.sync()
    new_a = client.get_secret_file_path("a")
    assert new_a is not None
    assert Path(new_a).name == "a.crt"
    assert not os.path.exists(old_a)
    assert not os.path.exists(Path(old_b).parent)
    assert client.get_secret_file_path("b") is None
    service.snapshot.update(revision=3, secrets={})
    client.sync()
    assert not os.path.exists(Path(new_a).parent)


def test_removed_with_their_folder_on_close(
    service: FakeService, create: Create, tmp_path: Path
) -> None:
    service.snapshot["secrets"] = {"tls.cert": file_secret("PEM")}
    client = create(secret_files_dir=str(tmp_path))
    path = client.get_secret_file_path("tls.cert")
    assert path is not None
    client.close()
    assert not os.path.exists(path)
    assert list(tmp_path.iterdir()) == []
    assert client.get_secret_file_path("tls.cert") is None
    assert client.get_secret("tls.cert") == "PEM"  # reads keep answering from the cache


def test_no_file_secret_no_folder(service: FakeService, create: Create, tmp_path: Path) -> None:
    service.snapshot["secrets"] = {"text": {"value": "t", "type": "text", "version": 1}}
    create(secret_files_dir=str(tmp_path))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("ending", ["return", "sys.exit", "exception"])
def test_removed_when_the_interpreter_exits_without_close(
    service: FakeService, tmp_path: Path, ending: str
) -> None:
    service.snapshot["secrets"] = {"tls.cert": file_secret("PEM")}
    script = textwrap.dedent(
        f"""
        import sys
        from svc_client import ServiceClient, silent_logger
        client = ServiceClient.create(
            base_url={service.base_url!r}, api_key={SK!r},
            stream=True, logger=silent_logger, secret_files_dir={str(tmp_path)!r})
        print(client.get_secret_file_path("tls.cert"), flush=True)
        ending = {ending!r}
        if ending == "sys.exit":
            sys.exit(0)
        if ending == "exception":
            raise SystemExit("ended by an error")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=30, check=False
    )
    path = done.stdout.strip()
    assert path.startswith(str(tmp_path)), done.stderr
    assert not os.path.exists(path)
    assert list(tmp_path.iterdir()) == []
