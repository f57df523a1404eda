"""Runs a check of the Python client in its own virtual environment, made or refreshed first.

    python3 scripts/run.py typecheck|lint|test [extra arguments for the tool]
    python3 scripts/run.py python [arguments]     (the venv's python: bench/client runs this way)

The venv lives in ``.venv`` beside ``pyproject.toml`` (git-ignored). It is created with the
``python3`` that runs this script and gets ``pip install -e '.[dev]'`` whenever
``pyproject.toml`` or that Python changed since its last install (pip's own cache, by default
``~/.cache/pip``, keeps reruns fast). turbo runs typecheck, lint and test at once: a file lock
lets one of them build the venv while the others wait.
"""

from __future__ import annotations

import fcntl
import hashlib
import subprocess
import sys
import venv
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent
VENV = PACKAGE / ".venv"
STAMP = VENV / ".svc-installed"
BENCH = str(PACKAGE.parent.parent / "bench" / "client" / "python_bench.py")
MINIMUM = (3, 9)

TOOLS: dict[str, list[list[str]]] = {
    "typecheck": [["-m", "mypy"]],
    # The bench's Python half (bench/client/python_bench.py) is checked with this package.
    "lint": [
        ["-m", "ruff", "check", "--config", "pyproject.toml", ".", BENCH],
        ["-m", "ruff", "format", "--check", "--config", "pyproject.toml", ".", BENCH],
    ],
    "test": [["-m", "pytest"]],
    "python": [[]],
}


def wanted_stamp() -> str:
    digest = hashlib.sha256((PACKAGE / "pyproject.toml").read_bytes())
    digest.update(sys.version.encode())
    return digest.hexdigest()


def venv_python() -> Path:
    return VENV / "bin" / "python"


def ensure_venv() -> None:
    with open(PACKAGE / ".venv.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp = wanted_stamp()
        if STAMP.exists() and STAMP.read_text() == stamp and venv_python().exists():
            return
        print(f"svc-client: preparing {VENV} (pip install -e '.[dev]')", file=sys.stderr)
        try:
            venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
        except (OSError, subprocess.CalledProcessError) as error:
            sys.exit(
                f"cannot create a virtual environment with {sys.executable}: {error}\n"
                "(on Debian: apt-get install python3-venv)"
            )
        pip = [str(venv_python()), "-m", "pip", "--disable-pip-version-check"]
        subprocess.run([*pip, "install", "-q", "-e", ".[dev]"], cwd=PACKAGE, check=True)
        STAMP.write_text(stamp)


def main() -> int:
    if sys.version_info < MINIMUM:
        sys.exit(f"the Python client needs Python 3.9 or later, not {sys.version.split()[0]}")
    if len(sys.argv) < 2 or sys.argv[1] not in TOOLS:
        sys.exit(f"usage: python3 scripts/run.py {'|'.join(TOOLS)} [arguments]")
    ensure_venv()
    status = 0
    for arguments in TOOLS[sys.argv[1]]:
        command = [str(venv_python()), *arguments, *sys.argv[2:]]
        cwd = None if sys.argv[1] == "python" else PACKAGE  # plain python: the caller's folder
        status = subprocess.run(command, cwd=cwd, check=False).returncode or status
    return status


if __name__ == "__main__":
    sys.exit(main())
