"""The corpus of real-world notebook patterns, run through the modules the runner calls.

Each notebook runs here as the page's process would run it: its code cells in order in one
namespace, the notebook's folder as the working folder, each cell through
:func:`~lessonkit.notebooks.ipython.prepare_cell` and the page's ``InteractiveShell`` with a
:class:`~lessonkit.notebooks.ipython.DisplayCapture`; its figures described when they have no
alt text; a ``raises-exception`` cell shown as Jupyter shows it; its links mapped to pages.
"""

from __future__ import annotations

import ast
import builtins
import io
import json
import linecache
import re
import shutil
import sys
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import matplotlib
import pytest
from IPython.core.displayhook import DisplayHook
from markdown.extensions.toc import slugify

from lessonkit.notebooks import expected, ipython
from lessonkit.notebooks.alt_text import GENERATED, describe
from lessonkit.notebooks.links import to_pages

matplotlib.use("Agg")
import matplotlib.pyplot as plt

HERE = Path(__file__).parent
DOCS = HERE / "corpus" / "docs"


def _cells(name: str, kind: str = "code", docs: Path = DOCS) -> list[dict[str, Any]]:
    cells = json.loads((docs / name).read_text())["cells"]
    return [c for c in cells if c["cell_type"] == kind]


def _source(cell: dict[str, Any]) -> str:
    return "".join(cell["source"])


class Cell:
    """What one cell showed: printed text, displays, its value's bundle, figures, an error."""

    def __init__(self) -> None:
        self.stdout = ""
        self.shown: list[ipython.Shown] = []
        self.value: dict[str, Any] = {}
        self.figures: list[str] = []
        self.error: str = ""


def _run(name: str, docs: Path, monkeypatch: pytest.MonkeyPatch) -> list[Cell]:
    """Run the notebook ``name`` of the corpus copied to ``docs`` as a page's process would."""
    path = str(docs / name)
    monkeypatch.chdir((docs / name).parent)
    namespace: dict[str, Any] = {"__name__": "__lesson__"}
    shell = ipython.bind(namespace)
    cells = []
    for cell in _cells(name, docs=docs):
        source = _source(cell)
        code = ipython.prepare_cell(source)
        linecache.cache[path] = (len(source), None, source.splitlines(True), path)
        tree = ast.parse(code, filename=path)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        out, buffer, value = Cell(), io.StringIO(), None
        with redirect_stdout(buffer), ipython.DisplayCapture(shell, buffer.tell) as capture:
            try:
                exec(compile(tree, path, "exec"), namespace)
                if last is not None:
                    value = eval(compile(ast.Expression(last.value), path, "eval"), namespace)
            except Exception as error:
                assert "raises-exception" in cell["metadata"].get("tags", []), error
                out.error = expected.shown(error, path)
        if "raises-exception" in cell["metadata"].get("tags", []) and not out.error:
            out.error = expected.not_raised(1).message
        out.stdout, out.shown = buffer.getvalue(), capture.shown
        quiet = DisplayHook.semicolon_at_end_of_expression(source)  # a ; hides the value
        if not quiet and not type(value).__module__.startswith("matplotlib"):
            out.value = ipython.value_bundle(shell, value)
        out.figures = [describe(plt.figure(n)) for n in plt.get_fignums()]
        plt.close("all")
        cells.append(out)
    return cells


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """A copy of the corpus's docs: a notebook may write files next to itself."""
    return Path(shutil.copytree(DOCS, tmp_path / "docs"))


def test_the_corpus_is_what_make_corpus_writes(tmp_path: Path) -> None:
    sys.path.insert(0, str(HERE))
    try:
        import make_corpus
    finally:
        sys.path.remove(str(HERE))
    make_corpus.write(tmp_path)
    made = sorted(p.relative_to(tmp_path / "docs") for p in (tmp_path / "docs").rglob("*.*"))
    assert made == sorted(p.relative_to(DOCS) for p in DOCS.rglob("*.*"))
    for path in made:
        assert (tmp_path / "docs" / path).read_text() == (DOCS / path).read_text(), path


@pytest.mark.parametrize(
    "name", sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.ipynb"))
)
def test_every_cell_is_python_once_prepared_with_its_lines_in_place(name: str) -> None:
    for cell in _cells(name):
        source = _source(cell)
        code = ipython.prepare_cell(source)
        ast.parse(code)
        assert code.count("\n") >= source.count("\n")


def test_magics_and_shell_escapes_run_in_the_notebooks_folder(docs, monkeypatch) -> None:
    cells = _run("magics.ipynb", docs, monkeypatch)
    timeit, cell_time, line_time, shell, listing, bash, expanded = (c for c in cells[1:])
    assert re.search(r"per loop \(mean .* of 2 runs, 10 loops each\)", timeit.stdout)
    assert "Wall time:" in cell_time.stdout and "Wall time:" in line_time.stdout
    assert line_time.value == {"text/plain": "1000"}
    assert shell.stdout == "hello from the shell\nn,square\n1,1\n2,4\n"  # no \r: no terminal
    assert listing.value["text/plain"] == "['numbers.csv']"
    assert bash.stdout.split() == ["a", "bash", "cell", "5"]
    assert expanded.stdout == "lessons lessons\n"


def test_display_and_rich_reprs_show_best_first_in_order(docs, monkeypatch) -> None:
    cells = _run("display.ipynb", docs, monkeypatch)
    mixed, table, both, quiet, _saved, listing, image, figure = cells[1:]
    assert mixed.stdout == "before\nafter\n"
    assert [(s.at, ipython.best_output(s.bundle)) for s in mixed.shown] == [
        (len("before\n"), ("text/html", "<b>bold</b>")),
        (len("before\n"), ("text/markdown", "*emphasis*")),
    ]
    html = "<table><tr><td>apples</td><td>3</td></tr><tr><td>pears</td><td>5</td></tr></table>"
    assert ipython.best_output(table.value) == ("text/html", html)
    assert [ipython.best_output(s.bundle) for s in both.shown] == [
        ("text/html", html),
        ("text/plain", "{'total': 8}"),
    ]
    assert quiet.value == {} and quiet.figures  # the ; hides the value, not the figure
    assert listing.stdout == "my_figure.png\n"
    mime, data = ipython.best_output(image.value)
    assert mime == "image/png" and ipython.png_size(data) == (200, 150)  # 4 x 3 in at 50 dpi
    assert figure.shown[0].bundle == {} and figure.shown[0].figure is not None
    assert not (DOCS / "my_figure.png").exists()


def test_figures_without_alt_text_are_described(docs, monkeypatch) -> None:
    cells = _run("figures.ipynb", docs, monkeypatch)
    described = [c.figures[0] for c in cells[1:]]
    assert all(text.startswith(GENERATED) for text in described)
    scatter, histogram, image, bars, lines = described
    assert 'a scatter plot of 5,000 points titled "Five thousand points"' in scatter
    assert 'x axis "x" from' in scatter and 'y axis "y" from' in scatter
    assert "a histogram of 30 bins" in histogram and 'x axis "value"' in histogram
    assert "an image of 28 × 28 values" in image and "panels" not in image  # colorbar: no panel
    assert (
        'a bar chart of 3 bars titled "Votes"; x axis: red, green, blue; y axis from 0 to 5' in bars
    )
    assert 'a line plot of 2 lines; x axis "time (s)" from 0 to 10' in lines
    assert lines.endswith("series: sin, cos.")


def test_an_expected_error_is_shown_as_jupyter_shows_it(docs, monkeypatch) -> None:
    cells = _run("errors.ipynb", docs, monkeypatch)
    shown = cells[1].error.splitlines()
    assert shown[1].startswith("ValueError") and shown[1].endswith("(most recent call last)")
    assert "----> 3 a + b" in shown
    assert shown[-1] == (
        "ValueError: operands could not be broadcast together with shapes (3,2) (3,) "
    )
    assert not any("numpy" in line for line in shown[:-1])  # the cell's frames only


def test_a_cell_that_stops_raising_fails_the_build(docs, monkeypatch) -> None:
    notebook = docs / "errors.ipynb"
    data = json.loads(notebook.read_text())
    tagged = next(c for c in data["cells"] if "raises-exception" in c["metadata"].get("tags", []))
    tagged["source"] = "a = np.ones((3, 2))\na + a"
    notebook.write_text(json.dumps(data))
    cells = _run("errors.ipynb", docs, monkeypatch)
    assert cells[1].error == "the cell is tagged raises-exception but raised no exception"


def test_a_notebook_in_a_subfolder_reads_data_next_to_it(docs, monkeypatch) -> None:
    reading, piped = _run("sub/reading.ipynb", docs, monkeypatch)
    assert reading.value == {"text/plain": "4"}
    assert piped.stdout.strip() == "4"


def _headings(name: str) -> list[str]:
    text = "\n".join(_source(c) for c in _cells(name, "markdown"))
    return re.findall(r"^#+ (.+)$", text, re.MULTILINE)


def test_links_by_ipynb_name_and_jupyter_anchors_reach_their_headings() -> None:
    pages = [p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.ipynb")]
    texts = {p: "\n".join(_source(c) for c in _cells(p, "markdown")) for p in pages}
    texts["index.md"] = (DOCS / "index.md").read_text()
    links = 0
    for page, text in texts.items():
        for target in re.findall(r"\]\(([^)]+\.ipynb[^)]*)\)", text):
            notebook = (Path(page).parent / target.partition("#")[0]).as_posix()
            notebook = re.sub(r"[^/]+/\.\./", "", notebook)
            page_link, _, anchor = to_pages(f"]({target}")[2:].partition("#")
            assert page_link == target.partition("#")[0].removesuffix(".ipynb") + ".md"
            if "#" in target:
                ids = {slugify(heading, "-") for heading in _headings(notebook)}  # as toc's
                assert anchor in ids, target
            links += 1
    assert links == 6


def test_the_shell_leaves_the_process_as_plain_python() -> None:
    main = sys.modules["__main__"]
    namespace: dict[str, Any] = {}
    ipython.bind(namespace)
    assert sys.modules["__main__"] is main
    assert not hasattr(builtins, "__IPYTHON__") and not hasattr(builtins, "display")
    assert namespace["get_ipython"]() is ipython.bind({})


def test_pip_installs_nothing(monkeypatch) -> None:
    from IPython.core.error import UsageError

    namespace: dict[str, Any] = {}
    ipython.bind(namespace)
    exec(ipython.prepare_cell("%pip install -q numpy matplotlib"), namespace)  # installed
    with pytest.raises(UsageError, match="no-such-package-here is not installed"):
        exec(ipython.prepare_cell("%pip install no-such-package-here"), namespace)
