"""The peak memory of a command and every process it starts, sampled from ``/proc`` (Linux).

A build forks workers and per-page processes; they share much of their memory with the
process they were forked from (copy on write), so adding up each process's resident set would
count those pages once per process. Each process's proportional set size (PSS, from
``/proc/PID/smaps_rollup``) divides a shared page among the processes that map it, so the sum
over the process tree is what the tree holds. The tree is found through
``/proc/PID/task/TID/children`` (one read per thread, not a scan of every process on the
machine), every ``INTERVAL`` seconds: a peak shorter than that can be missed, and a page shared
with a process outside the tree counts only for the tree's share of it.
"""

from __future__ import annotations

import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

INTERVAL = 0.02
"""Seconds between two samples."""
PROC = Path("/proc")


@dataclass
class Peak:
    """The largest memory a process tree held at once, and how many processes it had at most."""

    pss: int
    """Bytes: the largest sum of the tree's PSS seen in one sample."""
    processes: int


def descendants(pid: int) -> list[int]:
    """``pid`` and every live process below it (children of any of their threads)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            listed = list((PROC / str(current) / "task").glob("*/children"))
        except OSError:  # the process ended meanwhile
            continue
        for children in listed:
            try:
                todo += [int(child) for child in children.read_text().split()]
            except OSError:  # the thread or the process ended meanwhile
                continue
    return found


def pss(pid: int) -> int:
    """Bytes of ``pid``'s proportional set size, or 0 when it has ended."""
    try:
        rollup = (PROC / str(pid) / "smaps_rollup").read_text()
    except OSError:
        return 0
    for line in rollup.splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) * 1024
    return 0


def sample(pid: int) -> tuple[int, int]:
    """The tree's PSS in bytes now, and how many processes it has."""
    tree = descendants(pid)
    return sum(pss(p) for p in tree), len(tree)


def run_sampled(command: list[str], env: dict[str, str], what: str) -> tuple[Peak, str]:
    """Run ``command`` to its end, sampling its tree; return the peak and what it wrote to stderr.

    Its stderr goes to a temporary file, not a pipe, so a chatty build never blocks on it.
    """
    if not (PROC / "self" / "smaps_rollup").exists():
        raise SystemExit("measuring memory needs Linux's /proc/PID/smaps_rollup (Linux 4.14+)")
    peak = Peak(0, 0)
    with open(Path("/dev/null"), "w") as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=err)
        while process.poll() is None:
            now, processes = sample(process.pid)
            peak = Peak(max(peak.pss, now), max(peak.processes, processes))
            time.sleep(INTERVAL)
        err.seek(0)
        log = err.read().decode(errors="replace")
    if process.returncode != 0:
        raise SystemExit(f"{what} failed:\n{log[-3000:]}")
    return peak, log
