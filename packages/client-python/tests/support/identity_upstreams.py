"""The testkit's identity stand-ins (an OIDC issuer and an STS checking SigV4) as a Node process
(``packages/testkit/src/identity/upstreams-process.ts``), for the end-to-end tests against the
real api: it prints their addresses and test credentials, and runs until its stdin closes."""

from __future__ import annotations

import json
import subprocess
from typing import Any

from .live_server import REPO_ROOT

SCRIPT = "packages/testkit/src/identity/upstreams-process.ts"


class IdentityUpstreams:
    def __init__(self) -> None:
        self._process = subprocess.Popen(
            ["node", "--import", "tsx", SCRIPT],
            cwd=REPO_ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            self.close()
            raise RuntimeError(f"{SCRIPT} printed nothing (exit code {self._process.poll()})")
        info: dict[str, Any] = json.loads(line)
        self.oidc: dict[str, str] = info["oidc"]
        self.aws: dict[str, str] = info["aws"]

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        try:
            self._process.wait(10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(5)
