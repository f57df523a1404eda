"""A live service for the tests: the real console and api as child processes
(``node --import tsx apps/{console,api}/src/main.ts`` from the repository root) on free loopback
ports over one temp SQLite folder.

``LiveServer.start()`` fails (it does not skip) when either process cannot be started or does
not become ready, with the end of that process's log in the message.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

REPO_ROOT = Path(__file__).resolve().parents[4]
CONFORMANCE_DIR = REPO_ROOT / "packages" / "client-conformance"
ADMIN_TOKEN = "client-python-test-admin-token-0123456789"
READY_TIMEOUT = 90.0
# Settings of the surrounding shell (a DATABASE_URL for the PostgreSQL tests, say) must not leak in.
NOT_INHERITED = (
    "DATABASE_URL",
    "SERVICE_ROOT_KEY",
    "SERVICE_ROOT_KEY_PREVIOUS",
    "BASE_DOMAIN",
    "STREAM_MAX_AGE_S",
    "PORT",
    "CONSOLE_PORT",
    "METRICS_PORT",
    "METRICS_HOST",
)


def scenario_env() -> dict[str, str]:
    """The api settings the shared scenarios assume (``server-env.json``)."""
    env = json.loads((CONFORMANCE_DIR / "server-env.json").read_text())
    return {str(k): str(v) for k, v in env.items()}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def dead_url() -> str:
    """A root URL where nothing listens."""
    return f"http://127.0.0.1:{free_port()}"


class LiveServer:
    def __init__(self, env: dict[str, str]) -> None:
        self.data_dir = Path(tempfile.mkdtemp(prefix="svc-client-python-"))
        self.api_port = free_port()
        self.console_port = free_port()
        self._env = {
            **{k: v for k, v in os.environ.items() if k not in NOT_INHERITED},
            "DATA_DIR": str(self.data_dir / "data"),
            "HOST": "127.0.0.1",
            "CONSOLE_ADMIN_TOKEN": ADMIN_TOKEN,
            "LOG_LEVEL": "warn",
            "SEED_DEMO": "false",
            "SHUTDOWN_GRACE_MS": "2000",
            **env,
        }
        self._processes: dict[str, subprocess.Popen[bytes]] = {}
        self._http = httpx.Client(timeout=30)

    @classmethod
    def start(cls, env: dict[str, str] | None = None) -> LiveServer:
        """Starts the console, waits until it is ready, then the api."""
        server = cls(env or {})
        atexit.register(server.close)
        try:
            server._launch("console", {"CONSOLE_PORT": str(server.console_port)})
            server.start_api()
        except BaseException:
            server.close()
            raise
        return server

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.api_port}"

    def start_api(self) -> None:
        """Starts the api (again: same port and data) and waits until it is ready."""
        self._launch("api", {"PORT": str(self.api_port)})

    def kill_api(self, hard: bool = False) -> None:
        """Stops the api process (SIGKILL when ``hard``, else SIGTERM) and waits for its exit."""
        process = self._processes.pop("api")
        process.send_signal(signal.SIGKILL if hard else signal.SIGTERM)
        process.wait(30)

    def admin_raw(self, method: str, path: str, body: Any = None) -> httpx.Response:
        """A management API call (``path`` below ``/api``) with the admin token."""
        return self._http.request(
            method,
            f"http://127.0.0.1:{self.console_port}/api{path}",
            headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
            json=body,
        )

    def admin(self, method: str, path: str, body: Any = None) -> Any:
        """The same, failing unless the answer is 2xx; the answer's JSON (None when empty)."""
        response = self.admin_raw(method, path, body)
        if not response.is_success:
            raise AssertionError(
                f"{method} {path} answered {response.status_code}: {response.text}"
            )
        return response.json() if response.content else None

    def sync_status(self, ws: str, api_key: str) -> int:
        response = self._http.get(
            f"{self.api_url}/{ws}/v1/sync", headers={"X-Service-API-Key": api_key}, timeout=10
        )
        return response.status_code

    def await_key(self, ws: str, api_key: str, timeout: float = 5.0) -> None:
        """Waits until the api accepts a new key (it learns of it through its change feed, a few
        milliseconds later; everything written before the key is then visible too)."""
        deadline = time.monotonic() + timeout
        while True:
            status = self.sync_status(ws, api_key)
            if status == 200:
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"the api never accepted a new key: {status}")
            time.sleep(0.025)

    def close(self) -> None:
        # The api first: it holds the streams; then the console.
        for name in ("api", "console"):
            process = self._processes.pop(name, None)
            if process is None or process.poll() is not None:
                continue
            process.terminate()
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        self._http.close()
        shutil.rmtree(self.data_dir, ignore_errors=True)

    def _launch(self, name: str, env: dict[str, str]) -> None:
        log_path = self.data_dir / f"{name}.log"
        entry = f"apps/{name}/src/main.ts"
        env = {**self._env, "METRICS_PORT": str(free_port()), **env}
        with open(log_path, "ab") as log:
            try:
                process = subprocess.Popen(
                    ["node", "--import", "tsx", entry],
                    cwd=REPO_ROOT,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            except OSError as error:
                raise RuntimeError(
                    f"cannot start the {name} (is node on the PATH?): {error}"
                ) from error
        self._processes[name] = process
        port = int(env["CONSOLE_PORT" if name == "console" else "PORT"])
        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            if process.poll() is not None:
                raise RuntimeError(
                    f"the {name} exited with {process.returncode} before it was ready:\n"
                    + _tail(log_path)
                )
            try:
                if self._http.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass  # not listening yet
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"the {name} was not ready within {READY_TIMEOUT:g} s:\n" + _tail(log_path)
                )
            time.sleep(0.1)


def _tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError as error:
        return f"(no log: {error})"
