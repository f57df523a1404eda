"""Reconnection delays of the stream: 1 s doubling to 30 s with jitter, back to the start once a
connection has lasted a minute (the contract's numbers are the defaults)."""

from __future__ import annotations

import random
from typing import Callable

from ._config import ReconnectOptions


class Backoff:
    def __init__(
        self, options: ReconnectOptions, rand: Callable[[], float] = random.random
    ) -> None:
        self._options = options
        self._random = rand
        self._attempts = 0

    def next(self) -> float:
        """Seconds before the next attempt: half of the doubled delay plus a random share of the
        other half ("equal jitter"), so that many clients that lost one server do not return in
        step."""
        options = self._options
        base = min(options.max_delay, options.initial_delay * (1 << min(self._attempts, 30)))
        self._attempts += 1
        return base / 2 + self._random() * base / 2

    def connection_ended(self, lasted: float) -> None:
        """A connection lasted ``lasted`` seconds: long enough, and the delays start over."""
        if self.is_long(lasted):
            self._attempts = 0

    def is_long(self, lasted: float) -> bool:
        """Whether a connection of ``lasted`` seconds counts as a long one."""
        return lasted >= self._options.reset_after

    def reset(self) -> None:
        self._attempts = 0
