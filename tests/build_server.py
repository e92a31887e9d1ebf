"""Build many small sites with ``mkdocs build --strict``, one after another, in one process.

A fresh ``python -m mkdocs build`` spends most of a one-page build starting Python, importing
MkDocs, Material and lessonkit, and starting a fork server that imports numpy and matplotlib
for the workers. The broken-lesson corpus builds a hundred one-page sites; this process pays
those once. It runs MkDocs' own command line (``mkdocs.__main__.cli``) for each site, in the
site's folder, and answers with what a separate process would have given: the exit code and
what the command wrote to stderr (its log, formatted as the command formats it for a pipe).

Each build gets a fresh configuration and fresh plugin objects, as a new process does; the
workers that run a page's code are new processes either way. What is shared is only what a
process imports. `tests/test_build_server.py` checks that a build here says exactly what a
separate process says.

Protocol: one JSON line in (the folder), one JSON line out (``[returncode, stderr]``).
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import sys
import traceback


def build(folder: str) -> tuple[int, str]:
    """Run ``mkdocs build --strict`` in ``folder``; its exit code and what it wrote to stderr."""
    from mkdocs.__main__ import cli

    loggers = _loggers()
    before = {name: (list(log.handlers), list(log.filters)) for name, log in loggers.items()}
    written = io.StringIO()
    here = os.getcwd()
    code: int | str | None = 0
    os.chdir(folder)
    try:
        with contextlib.redirect_stderr(written), contextlib.redirect_stdout(io.StringIO()):
            cli.main(["build", "--strict"], prog_name="mkdocs")
    except SystemExit as exit:
        code = exit.code
    except Exception:  # what Python prints of an uncaught exception, and its exit code
        written.write(traceback.format_exc())
        code = 1
    finally:
        os.chdir(here)
        for name, log in _loggers().items():  # what the command added: its stderr handler,
            log.handlers[:], log.filters[:] = before.get(name, ([], []))  # its duplicate filter
    if not isinstance(code, int):  # sys.exit("message"): Python prints it and exits 1
        written.write(f"{code}\n" if code else "")
        code = 1 if code else 0
    return code, written.getvalue()


def _loggers() -> dict[str, logging.Logger]:
    """MkDocs' loggers: the command gives them handlers and filters that last a process."""
    made = logging.root.manager.loggerDict
    return {
        name: log
        for name, log in [("mkdocs", logging.getLogger("mkdocs")), *made.items()]
        if name.startswith("mkdocs") and isinstance(log, logging.Logger)
    }


def serve() -> None:
    """Answer build requests on stdin until it closes."""
    answers = sys.stdout
    for line in sys.stdin:
        answers.write(json.dumps(build(json.loads(line))) + "\n")
        answers.flush()


if __name__ == "__main__":
    serve()
