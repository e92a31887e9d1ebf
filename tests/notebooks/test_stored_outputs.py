"""Stored outputs: no problem of the page (a strict build passes), noted once by ``lessonkit
check``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from lessonkit.cli import main
from lessonkit.notebooks.convert import convert
from lessonkit.notebooks.lesson import read_lesson

STALE = Path(__file__).parent / "stale-outputs.ipynb"


def test_a_notebook_with_stored_outputs_reads_without_a_problem() -> None:
    """The strict build fails on a page's warnings: stored outputs must not be one."""
    assert convert(json.loads(STALE.read_text())).problems == []
    assert read_lesson(STALE, "stale-outputs.ipynb", str(STALE)).notes == []


def test_lessonkit_check_notes_stored_outputs_once_and_passes(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    for name in ("a.ipynb", "b.ipynb"):
        shutil.copy(STALE, tmp_path / name)
    (tmp_path / "clean.ipynb").write_text(STALE.read_text().replace('"41\\n"', '"x"'))
    clean = json.loads((tmp_path / "clean.ipynb").read_text())
    for cell in clean["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    (tmp_path / "clean.ipynb").write_text(json.dumps(clean))
    monkeypatch.chdir(tmp_path)
    assert main(["check", "."]) == 0
    out, err = capsys.readouterr()
    notes = [line for line in out.splitlines() if "stored outputs" in line]
    assert notes == [
        "note: 2 notebooks carry stored outputs (a.ipynb, b.ipynb): their pages show what the "
        "build computes, not them; "
        "lessonkit strip removes them (smaller diffs)"
    ]
    assert "0 error(s), 0 warning(s)" in err
