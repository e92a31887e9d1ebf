"""Pages never share state: two pages in one worker, in both orders, on a fresh worker and on one
that already ran pages, see exactly the same process state whatever the other page did."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lessonkit.execute.program import parse_program
from lessonkit.execute.worker import Job, WorkerPool

OBSERVE = r"""
```python exec output="none"
import builtins, decimal, gc, json, os, random, resource, signal, socket, sys, tempfile
import threading, time, warnings

import matplotlib as mpl
import numpy as np

import lessonkit.execute.runner as runner
from lessonkit.lab.attention import softmax

alarm = signal.alarm(0)  # the seconds left of a pending alarm (none: 0), set again below
if alarm:
    signal.alarm(alarm)
umask = os.umask(0o022)
os.umask(umask)
state = {
    "numpy print options": repr(np.array([1 / 3])),
    "random": random.random(),
    "numpy legacy random": float(np.random.rand()),
    "os.environ": sorted(os.environ.items()),
    "sys.path": sys.path,
    "lab function": [float(v) for v in softmax([0.0, 0.0])],
    "lessonkit's own function": runner._hint_for.__name__,
    "builtins": sorted(dir(builtins)),
    "builtins.print": builtins.print is print and print.__module__ == "builtins",
    "recursion limit": sys.getrecursionlimit(),
    "decimal context": repr(decimal.getcontext()),
    "numpy error handling": np.geterr(),
    "matplotlib rcParams": sorted((k, repr(v)) for k, v in mpl.rcParams.items()),
    "matplotlib defaults": sorted((k, repr(v)) for k, v in mpl.rcParamsDefault.items()),
    "working folder is fresh and empty": os.getcwd() != "/" and not os.listdir("."),
    "umask": umask,
    "signal handlers": [repr(signal.getsignal(s)) for s in (signal.SIGUSR1, signal.SIGTERM)],
    "pending alarm": alarm,
    "sys.modules": sorted(name for name in sys.modules if "polluted" in name),
    "module count": len(sys.modules),
    "warnings filters": [repr(f) for f in warnings.filters[:3]],
    "sys.stderr": type(sys.stderr).__name__,
    "trace function": repr(sys.gettrace()),
    "threads": threading.active_count(),
    "open files": len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else 0,
    "niceness": os.nice(0),
    "open-file limit": resource.getrlimit(resource.RLIMIT_NOFILE),
    "garbage collector": [gc.isenabled(), gc.get_threshold()],
    "socket timeout": socket.getdefaulttimeout(),
    "time zone": time.tzname,
    "tempfile folder": os.path.basename(tempfile.gettempdir()).startswith("lessonkit-"),
}
_ = sys.stdout.write(json.dumps(state, default=repr))
```
"""

POLLUTE = r"""
```python exec
import builtins, decimal, gc, io, os, random, resource, signal, socket, sys, tempfile
import threading, time, types, warnings

import matplotlib as mpl
import numpy as np

import lessonkit.execute.runner as runner
import lessonkit.lab.attention as attention

np.set_printoptions(precision=1)
random.seed(99)
np.random.seed(99)
os.environ["POLLUTED"] = "yes"
os.environ["TZ"] = "Asia/Tokyo"
time.tzset()
sys.path.insert(0, "/polluted")
attention.softmax = lambda scores: [9.0]
runner._hint_for = lambda error: "polluted"
builtins.polluted = True
builtins.print = lambda *a, **k: None
sys.setrecursionlimit(123)
decimal.getcontext().prec = 3
np.seterr(all="raise")
mpl.rcParams["font.size"] = 31
mpl.rcParamsDefault["font.size"] = 31
os.chdir("/")
os.umask(0o077)
signal.signal(signal.SIGUSR1, lambda *_: None)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.alarm(300)
sys.modules["polluted_module"] = types.ModuleType("polluted_module")
warnings.simplefilter("error")
sys.stderr = io.StringIO()
sys.settrace(lambda *a: None)
threading.Thread(target=time.sleep, args=(300,), daemon=True).start()
leaked = open("/dev/null")
os.nice(1)
resource.setrlimit(resource.RLIMIT_NOFILE, (200, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
gc.disable()
gc.set_threshold(1, 1, 1)
socket.setdefaulttimeout(3)
tempfile.tempdir = "/"
```
"""

POLLUTER = POLLUTE + OBSERVE
"""The polluter changes every kind of state, then observes it: each change must show."""


def _observed(pool: WorkerPool, text: str, page: str) -> dict:
    program = parse_program(text, page="observer.md")  # one seed for both: the same numbers
    job = Job(program, f"docs/{page}", text, Path("/nonexistent"))
    result = pool.run(job)
    assert result.ok, result.problems
    return json.loads(result.steps[-1].stdout)


@pytest.fixture(scope="module")
def runs():
    """The observer's view of its process, page after page through one worker."""
    pool = WorkerPool(1, default_timeout=30)
    try:
        seen = {}
        seen["cold, alone"] = _observed(pool, OBSERVE, "observer.md")
        seen["polluter"] = _observed(pool, POLLUTER, "polluter.md")
        seen["cold, after the polluter"] = _observed(pool, OBSERVE + "\n# an edit\n", "o.md")
        seen["warm, polluter then observer"] = (
            _observed(pool, POLLUTER, "polluter.md"),
            _observed(pool, OBSERVE, "observer.md"),
        )[1]
        seen["warm, observer then polluter"] = _observed(pool, OBSERVE, "observer.md")
        _observed(pool, POLLUTER, "polluter.md")
        pool.close()
        fresh = WorkerPool(1, default_timeout=30)  # a cold worker whose first page pollutes
        try:
            _observed(fresh, POLLUTER, "polluter.md")
            seen["cold worker, polluter first"] = _observed(fresh, OBSERVE, "observer.md")
        finally:
            fresh.close()
        return seen
    finally:
        pool.close()


def test_no_process_state_crosses_between_pages_in_one_worker(runs) -> None:
    """Checked: numpy's print options, ``random``'s and numpy's legacy global generators,
    ``os.environ``, ``sys.path``, a monkeypatched lab function and one of lessonkit's own,
    builtins (a new name, a replaced ``print``), the recursion limit, decimal's context,
    ``np.seterr``, matplotlib's rcParams (and its defaults), the working folder, the umask,
    signal handlers and a pending ``alarm``, ``sys.modules`` additions (and their count),
    warnings filters, ``sys.stderr``, a trace function, threads left running, open files, the
    process's niceness and open-file limit, the garbage collector's settings, the socket
    timeout, the time zone (``TZ`` and ``tzset``), ``tempfile``'s folder. In every order, on a
    cold and a warm worker, the observer sees what it saw alone."""
    alone = runs["cold, alone"]
    for schedule, seen in runs.items():
        if schedule != "polluter":
            differs = sorted(k for k in alone if seen[k] != alone[k])
            assert not differs, f"{schedule}: state crossed from another page: {differs}"


def test_the_polluter_really_changes_every_kind_of_state(runs) -> None:
    alone, polluted = runs["cold, alone"], runs["polluter"]
    same = sorted(k for k in alone if polluted[k] == alone[k])
    assert not same, f"the polluter did not change (or the observer cannot see): {same}"
