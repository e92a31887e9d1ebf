"""Notebook edges: a pasted image (a cell attachment) is published as the image, and a file
that is not UTF-8 is named with its line and a hint. (Percent-script errors and a missing
attachment are in the broken corpus, tests/broken/notebooks/.)"""

from __future__ import annotations

import json
from pathlib import Path

from lessonkit.cli import main
from lessonkit.notebooks.convert import convert
from lessonkit.notebooks.site import code, markdown, notebook, notebook_bytes, raw

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYPgPAAEDAQAIicLsAAAAAElFTkSuQmCC"
FRONT = raw("---\ntitle: Pasted\ndescription: A notebook with a pasted image.\n---")


def test_an_attached_image_is_published_as_the_image() -> None:
    cell = markdown("# Pasted\n\n![A dot](attachment:dot.png)\n\n<img src='attachment:dot.png'>")
    cell["attachments"] = {"dot.png": {"image/png": PNG}}
    made = convert(notebook([FRONT, cell, code("x = 1")]))
    assert made.problems == []
    assert made.text.count(f"data:image/png;base64,{PNG}") == 2
    assert "attachment:" not in made.text


def test_a_notebook_that_is_not_utf8_is_named_with_its_line(tmp_path: Path, monkeypatch, capsys):
    data = notebook_bytes(notebook([FRONT, markdown("# Café"), code("x = 1")]))
    assert json.loads(data)  # a valid notebook, but for its encoding:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "n.ipynb").write_bytes(data.replace("é".encode(), b"\xe9"))
    (tmp_path / "mkdocs.yml").write_text("site_name: s\nplugins: [lessonkit]\n")
    line = data[: data.index("é".encode())].count(b"\n") + 1
    monkeypatch.chdir(tmp_path)
    assert main(["check"]) == 1
    out = capsys.readouterr().out
    assert f"docs/n.ipynb:{line}: error: the file is not UTF-8 text: byte 0xe9 at column" in out
    assert "hint: save the file as UTF-8" in out
    assert "position" not in out  # not Python's byte offset
