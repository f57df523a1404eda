"""Runs a command and prints, as JSON, its wall time and the CPU time (user + system) it and its
children used, in milliseconds: wait4's rusage has microseconds, /usr/bin/time prints
hundredths. The CPU time does not count time spent waiting for a core, so it stays meaningful
on a machine other processes keep busy.

    python3 rusage.py node -e 0   ->  {"status": 0, "wall_ms": 41.2, "cpu_ms": 35.7}
"""
import json
import os
import sys
import time

started = time.perf_counter()
pid = os.fork()
if pid == 0:
    # The command's own output would mix with the answer.
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
wall = (time.perf_counter() - started) * 1000
cpu = (usage.ru_utime + usage.ru_stime) * 1000
print(json.dumps({"status": os.waitstatus_to_exitcode(status), "wall_ms": wall, "cpu_ms": cpu}))
