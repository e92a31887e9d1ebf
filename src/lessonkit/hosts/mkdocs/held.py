"""Under ``mkdocs serve``: lessonkit's own code, as the serve's process holds it.

A serve imports lessonkit once. An edit of lessonkit's own source while it runs (a contributor's)
does not reach the modules it holds, and those it loads only when first needed (a quiz's reader,
the notebook writer, the deferred conversion: build speed) come in edited, beside older code
they may not fit (an ``ImportError``, or old and new behaviour mixed). The workers that run the
pages are replaced (:mod:`lessonkit.execute.imports`); this process cannot be. So each rebuild
after such an edit warns, naming the file, until the serve is restarted. A lab module's edit
needs no restart: the build's process holds no lab module, and the pages that import it run
again in fresh workers.
"""

from __future__ import annotations

import os

from lessonkit.core.problems import Problem


def note() -> None:
    """After each of a serve's builds: note the lessonkit files this process holds now (one it
    noted before keeps what it was then)."""
    from lessonkit.execute import imports  # here: only a serve notes, and a build loads none

    imports.remember_loaded()


def edited() -> list[Problem]:
    """A warning if a lessonkit file this process holds has been edited since it loaded it."""
    from lessonkit.execute import imports

    files = sorted(imports.edited_sources())
    if not files:
        return []
    shown = ", ".join(os.path.basename(path) for path in files[:3])
    more = f" and {len(files) - 3} more" if len(files) > 3 else ""
    return [
        Problem(
            f"lessonkit's own source changed since this serve loaded it ({shown}{more}): the "
            "serve still runs the code it loaded before, beside what it loads from now on",
            hint="restart `mkdocs serve` to build with the edit",
            severity="warning",
            path=files[0],
        )
    ]
