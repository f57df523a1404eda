"""One daemon thread per client for its background work: syncs the stream asked for, and the
single time-to-live timer (set again after every sync, so one slot is enough)."""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Callable

Task = Callable[[], None]


class Scheduler:
    def __init__(self, name: str) -> None:
        self._name = name
        self._condition = threading.Condition()
        self._queue: deque[Task] = deque()
        self._timer: tuple[float, Task] | None = None
        self._thread: threading.Thread | None = None
        self._stopped = False

    def execute(self, task: Task) -> None:
        """Runs ``task`` on the scheduler's thread, soon."""
        with self._condition:
            if self._stopped:
                return
            self._queue.append(task)
            self._wake()

    def set_timer(self, due: float, task: Task) -> None:
        """Runs ``task`` at ``due`` (``time.monotonic()``), replacing the timer set before."""
        with self._condition:
            if self._stopped:
                return
            self._timer = (due, task)
            self._wake()

    def cancel_timer(self) -> None:
        with self._condition:
            self._timer = None
            self._condition.notify()

    def shutdown(self) -> None:
        """Drops what is planned and ends the thread once its current task (if any) is done."""
        with self._condition:
            self._stopped = True
            self._queue.clear()
            self._timer = None
            self._condition.notify()

    def _wake(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
            self._thread.start()
        self._condition.notify()

    def _run(self) -> None:
        while True:
            with self._condition:
                task = self._next()
                if task is None:
                    return
            task()  # tasks catch and log their own errors

    def _next(self) -> Task | None:
        """The next task to run, waiting for it; None once stopped. Holds the condition."""
        while not self._stopped:
            if self._queue:
                return self._queue.popleft()
            if self._timer is None:
                self._condition.wait()
                continue
            due, task = self._timer
            left = due - time.monotonic()
            if left <= 0:
                self._timer = None
                return task
            self._condition.wait(left)
        return None
