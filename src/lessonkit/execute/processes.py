"""Page processes and the operating system: whole process trees killed, deaths described.

No process lesson code starts may outlive its page. On Linux a page process is a child
subreaper: an orphan of lesson code becomes its child, so the page kills all it left
(:func:`kill_descendants`) and the build finds them below a page it stops (:func:`kill_tree`).

>>> describe_exit(3), describe_exit(-signal.SIGSEGV)
('exited with status 3', 'was killed by signal SIGSEGV (a segmentation fault)')
>>> format_size(4 * 2**30), format_size(1536 * 2**10), format_size(512)
('4 GiB', '1.5 MiB', '512 bytes')
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_LINUX = sys.platform.startswith("linux")


def _prctl(option: int, value: int) -> bool:
    try:
        return _LINUX and ctypes.CDLL(None).prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def become_subreaper() -> bool:
    """Make this process the parent of its descendants' orphans (Linux); whether it worked."""
    return _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def die_with_parent(signum: int = signal.SIGKILL) -> None:
    """Have the kernel send ``signum`` when the parent dies (Linux); exit if it already did."""
    parent = os.getppid()
    if _prctl(_PR_SET_PDEATHSIG, signum) and os.getppid() != parent:
        os._exit(1)


def descendants(pid: int) -> list[int]:
    """The live processes below ``pid``, parents before children (from ``/proc``; else none)."""
    children: dict[int, list[int]] = {}
    with contextlib.suppress(OSError):
        for name in filter(str.isdigit, os.listdir("/proc")):
            with contextlib.suppress(OSError, ValueError), open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()  # pid (command, which may hold spaces) state parent ...
                state, parent = stat[stat.rfind(b")") + 2 :].split()[:2]
                if state not in (b"Z", b"X"):
                    children.setdefault(int(parent), []).append(int(name))
    found, todo = [], list(children.get(pid, ()))
    while todo:
        found.append(child := todo.pop(0))
        todo.extend(children.get(child, ()))
    return found


def _signal(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signum)


def has_children() -> bool:
    """Reap every exited child of this process; whether a live one remains."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            return True


def kill_descendants() -> None:
    """Kill every process below this one and reap. Each round stops the tree (a stopped process
    cannot fork), then kills it; an escaped orphan is the next round's."""
    if not has_children():
        return  # nothing below this process: orphans of its pages would be its children
    for _ in range(50):
        found = descendants(os.getpid())
        has_children()
        if not found:
            return
        for child in found:
            _signal(child, signal.SIGSTOP)
        for child in found:
            _signal(child, signal.SIGKILL)
        time.sleep(0.001)
        has_children()


def kill_tree(pid: int) -> None:
    """Kill ``pid``, its tree and its process group from outside, stopping all first (none
    forks an orphan)."""
    stopped = {pid}
    _signal(pid, signal.SIGSTOP)
    for _ in range(50):
        new = [child for child in descendants(pid) if child not in stopped]
        if not new:
            break
        for child in new:
            _signal(child, signal.SIGSTOP)
        stopped.update(new)
    for child in stopped:
        _signal(child, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)  # without /proc, what the page started in its group


def limit_memory(limit: int) -> None:
    """Cap this process's (and its children's) memory at ``limit`` bytes (``MemoryError`` past
    it): on Linux ``RLIMIT_DATA``, not address space, which Go or JavaScript reserve much of."""
    import resource

    kind = resource.RLIMIT_DATA if _LINUX else resource.RLIMIT_AS
    with contextlib.suppress(ValueError, OSError):
        _, hard = resource.getrlimit(kind)
        cap = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
        resource.setrlimit(kind, (cap, cap))


CRASHES = {
    signal.SIGSEGV: "a segmentation fault",
    signal.SIGBUS: "a bus error",
    signal.SIGILL: "an illegal instruction",
    signal.SIGFPE: "an arithmetic fault",
    signal.SIGABRT: "an abort",
}


def describe_exit(exitcode: int) -> str:
    """What a process's exit code (negative: the signal that killed it) says, in words."""
    if exitcode >= 0:
        return f"exited with status {exitcode}"
    try:
        name = signal.Signals(-exitcode).name
    except ValueError:
        name = f"signal {-exitcode}"
    crash = f" ({CRASHES[-exitcode]})" if -exitcode in CRASHES else ""
    return f"was killed by signal {name}{crash}"


def format_size(size: int) -> str:
    """A byte count as people write it: ``4 GiB``, ``1.5 MiB``, ``512 bytes``."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            return f"{size / scale:.4g} {unit}"
    return f"{size} bytes"
