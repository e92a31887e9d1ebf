"""Lessons written as notebooks (.ipynb, jupytext percent .py): the same page as their Markdown
twin, every problem at its notebook, cell and line, and nothing paid by a Markdown-only build."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import jupytext
import nbformat
import pytest

from lessonkit.cli import main
from lessonkit.notebooks.site import code, markdown, notebook, notebook_bytes, raw
from lessonkit.notebooks.twin import markdown_notebook

TWIN = """\
---
title: Sums
description: Adding numbers, with a figure.
resources:
  - kind: Article
    title: Summation
    author: Someone
    url: https://example.org/sums
    note: Where sums come from.
---

# Sums

A token is counted once.

```python exec
import matplotlib.pyplot as plt
total = sum([1, 2, 3])
print(total)
```

The total is {{ total }}, twice that is {{ 2 * total:.1f }}.

```python exec source="hide" alt="One bar of height six"
fig, ax = plt.subplots(figsize=(2, 2))
ax.bar([0], [total])
```

```pycon
>>> total * 2
12
```

/// quiz
What is the total?

- [x] 6

    Right.

- [ ] 5

    Count again.
///
"""
"""A Markdown lesson with every feature a notebook lesson must carry the same."""
GLOSSARY = "- term: token\n  definition: A piece of text.\n"
CONFIG = """\
site_name: twins
repo_url: https://github.com/someone/lessons
theme: {name: material, font: false, features: [content.action.edit]}
plugins:
  - lessonkit:
      workers: 1
markdown_extensions: [admonition, pymdownx.superfences, lessonkit.quiz]
nav:
  - twin.md
  - notebook.md
  - script.md
"""
ARTICLE = re.compile(r'<article class="md-content__inner md-typeset">(.*?)</article>', re.S)
DOWNLOAD = re.compile(
    r'<p><a class="md-button" download="[^"]+" href="[^"]+">Download this '
    r"lesson as a notebook \(\.ipynb\)</a></p>"
)
EDIT = re.compile(r'<a href="[^"]*/edit/[^"]*"[^>]*>.*?</a>', re.S)


def twin_cells() -> list[dict]:
    """TWIN as notebook cells, hand-made (tags, metadata)."""
    front, prose = TWIN.split("\n---\n\n", 1)
    return [
        raw(front + "\n---"),
        markdown("# Sums\n\nA token is counted once."),
        code("import matplotlib.pyplot as plt\ntotal = sum([1, 2, 3])\nprint(total)"),
        markdown("The total is {{ total }}, twice that is {{ 2 * total:.1f }}."),
        code(
            "fig, ax = plt.subplots(figsize=(2, 2))\nax.bar([0], [total])",
            tags=["hide-input"],
            alt="One bar of height six",
        ),
        markdown(prose.split("```pycon", 1)[1].join(["```pycon", ""])),
    ]


@pytest.fixture(scope="module")
def twins(tmp_path_factory: pytest.TempPathFactory, mkdocs_build) -> Path:
    """One site: the Markdown lesson, its .ipynb twin (hand-made: tags, metadata) and its
    jupytext percent twin."""
    root = tmp_path_factory.mktemp("twins")
    docs = root / "docs"
    docs.mkdir()
    (docs / "twin.md").write_text(TWIN)
    (docs / "glossary.yml").write_text(GLOSSARY)
    cells = twin_cells()
    (docs / "notebook.ipynb").write_bytes(notebook_bytes(notebook(cells)))
    script = jupytext.writes(nbformat.from_dict(notebook(cells)), fmt="py:percent")
    (docs / "script.py").write_text(script)
    (root / "mkdocs.yml").write_text(CONFIG)
    done = mkdocs_build(root)
    assert done.returncode == 0, done.stderr
    return root / "site"


def _article(site: Path, page: str) -> str:
    """The page's article, without its edit button; a figure's ids name their page."""
    article = EDIT.sub("", ARTICLE.search((site / page / "index.html").read_text())[1])
    for own in (f'id="lk-{page}-', f"#lk-{page}-", f"url={page}%2F"):  # report links: its URL
        article = article.replace(own, own.replace(page, "PAGE"))
    return article


@pytest.mark.parametrize("twin", ["notebook", "script"])
def test_a_notebook_lesson_is_the_page_its_markdown_twin_is(twins: Path, twin: str) -> None:
    markdown_page, notebook_page = _article(twins, "twin"), _article(twins, twin)
    assert len(DOWNLOAD.findall(notebook_page)) == 1
    assert DOWNLOAD.sub("", notebook_page) == markdown_page
    for shown in ("lk-figure", "lk-quiz", "lk-term", "Summation", "The total is 6, twice that is"):
        assert shown in markdown_page, shown
    html = (twins / twin / "index.html").read_text()
    twin_html = (twins / "twin" / "index.html").read_text()
    assert "<style" not in html  # no inlined stylesheet
    requests = re.compile(r'(?:src="|<link [^>]*href=")https?://')  # a link is not a request
    assert not requests.search(html), requests.search(html)
    assert abs(len(html) - len(twin_html)) <= 0.1 * len(twin_html)


def test_the_edit_link_is_the_notebook_and_the_download_is_what_the_build_ran(twins) -> None:
    html = (twins / "notebook" / "index.html").read_text()
    assert "/edit/master/docs/notebook.ipynb" in html
    assert 'download="notebook.ipynb" href="../notebook.executed.ipynb"' in html
    assert not (twins / "notebook.ipynb").exists(), "the source is not published: the page is"
    downloaded = nbformat.reads((twins / "notebook.executed.ipynb").read_text(), as_version=4)
    nbformat.validate(downloaded)
    printed = [o for c in downloaded.cells for o in c.get("outputs", []) if "text" in o]
    assert printed[0]["text"] == "6\n"
    assert (twins / "script.ipynb").is_file()


def test_a_markdown_lesson_converts_to_a_notebook_that_reads_back_as_it(tmp_path: Path) -> None:
    """``lessonkit notebook`` writes the twin; reading it gives the lesson's own Markdown."""
    from lessonkit.notebooks.convert import convert, parse

    source = tmp_path / "twin.md"
    source.write_text(TWIN)
    assert main(["notebook", str(source)]) == 0
    written = tmp_path / "twin.ipynb"
    nbformat.validate(nbformat.reads(written.read_text(), as_version=4))
    bar = 'alt="One bar of height six"'
    options = (f'source="hide" {bar}', f'{bar} source="hide"')  # written in a stable order
    assert convert(parse(written.read_text(), "twin.ipynb")).text == TWIN.replace(*options)
    assert main(["notebook", str(source)]) == 1  # an existing notebook is kept
    assert notebook_bytes(markdown_notebook(TWIN, "twin.md")) == written.read_bytes()


def test_strip_removes_stored_outputs_and_nothing_else(tmp_path: Path, capsys) -> None:
    stale = Path(__file__).parent / "notebooks" / "stale-outputs.ipynb"
    copy = tmp_path / "stale.ipynb"
    copy.write_text(stale.read_text())
    assert main(["strip", str(copy)]) == 0
    data = json.loads(copy.read_text())
    assert [c.get("outputs") for c in data["cells"] if c["cell_type"] == "code"] == [[]]
    before = json.loads(stale.read_text())
    assert [c["source"] for c in data["cells"]] == [c["source"] for c in before["cells"]]
    assert "stripped" in capsys.readouterr().out
    assert main(["strip", str(copy)]) == 0 and "stripped" not in capsys.readouterr().out


def test_a_markdown_only_build_imports_neither_nbformat_nor_jupytext(tmp_path: Path) -> None:
    # Nor lessonkit's notebook conversion: a site with no notebook lesson pays for none of it.
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "twin.md").write_text(TWIN)
    (tmp_path / "mkdocs.yml").write_text("site_name: md\nplugins: [lessonkit]\n")
    probe = (
        "import sys\nfrom mkdocs.commands.build import build\n"
        "from mkdocs.config import load_config\nbuild(load_config('mkdocs.yml'))\n"
        "heavy = ('nbformat', 'jupytext', 'lessonkit.notebooks.convert')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_a_warm_build_writes_the_notebook_the_cold_build_wrote(
    tmp_path: Path, mkdocs_build
) -> None:
    """A warm build runs nothing, and loads the notebook writer only when it writes a notebook
    (build speed): the download is there all the same, byte for byte, from the cached result."""
    (tmp_path / "docs").mkdir()
    page = TWIN.replace("title: Sums\n", "title: Sums\nnotebook: true\n", 1)
    (tmp_path / "docs" / "twin.md").write_text(page)
    (tmp_path / "mkdocs.yml").write_text("site_name: md\nplugins: [lessonkit]\n")
    written = []
    for ran in ("1 page(s) ran", "0 page(s) ran"):
        built = mkdocs_build(tmp_path)
        assert built.returncode == 0 and f"lessonkit: {ran}" in built.stderr, built.stderr
        [notebook] = (tmp_path / "site").rglob("*.ipynb")
        written.append(notebook.read_bytes())
    assert written[0] == written[1]
    assert any(cell.get("outputs") for cell in json.loads(written[1])["cells"])


# --- the broken notebooks --------------------------------------------------------------------

BROKEN = Path(__file__).parent / "broken" / "notebooks"
CASES = sorted(p for p in BROKEN.iterdir() if p.suffix in (".ipynb", ".py"))
EXPECT = re.compile(r"<!-- expect: (.+?): (.+?) -->")
SITE_CONFIG = """\
site_name: broken
plugins:
  - lessonkit:
      workers: 1
markdown_extensions: [admonition, pymdownx.superfences, lessonkit.quiz]
"""


def _expected(case: Path) -> str:
    """``docs/NAME:WHERE: error: TEXT`` from the case's ``<!-- expect: WHERE: TEXT -->``
    (WHERE: ``cell N:LINE``, ``cell N``, a file line, or ``-`` for the file as a whole)."""
    where, text = EXPECT.search(case.read_text()).groups()
    text = text.replace('\\"', '"')  # as a notebook's JSON writes it
    at = "" if where == "-" else f":{where}"
    return f"docs/{case.name}{at}: error: {text}"


@pytest.fixture(scope="module")
def broken_builds(tmp_path_factory: pytest.TempPathFactory, mkdocs_build_shared) -> dict:
    root = tmp_path_factory.mktemp("broken-notebooks")

    def build(case: Path) -> tuple[Path, subprocess.CompletedProcess]:
        site = root / case.stem
        (site / "docs").mkdir(parents=True)
        (site / "docs" / case.name).write_bytes(case.read_bytes())
        (site / "mkdocs.yml").write_text(SITE_CONFIG)
        return site, mkdocs_build_shared(site)

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return dict(zip(CASES, pool.map(build, CASES), strict=True))


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_a_broken_notebook_fails_at_its_cell_and_line(
    case: Path, broken_builds, monkeypatch, capsys
) -> None:
    """The strict build fails naming the notebook, the cell and the line in it, with a hint;
    ``lessonkit check`` says the same, unless only running the code can tell."""
    site, build = broken_builds[case]
    expected = _expected(case)
    assert build.returncode != 0
    assert expected in build.stderr, build.stderr
    assert "hint:" in build.stderr and "Traceback (most recent" not in build.stderr
    monkeypatch.chdir(site)
    code = main(["check"])
    checked = capsys.readouterr()
    runs = any(word in expected for word in ("ZeroDivisionError", "NameError", "raised no"))
    if not runs:
        assert expected in checked.out + checked.err
        assert code == 1


ZENSICAL_CONFIG = """\
site_name: z
repo_url: https://github.com/someone/lessons
theme: {name: material, font: false}
watch: [docs]
extra_css: [assets/lessonkit/lessonkit.css]
extra_javascript: [assets/lessonkit/lessonkit.js]
markdown_extensions: [admonition, pymdownx.superfences, lessonkit.quiz, lessonkit.hosts.zensical]
plugins:
  - lessonkit:
      workers: 1
nav:
  - index.md
  - n.md
"""
HOME = "---\ntitle: H\ndescription: H.\n---\n# H\n\nRead [the sums](n.md#sums).\n"
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}


def _run(folder: Path, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *command], cwd=folder, capture_output=True, text=True, env=ENV
    )


def _notebook_site(folder: Path, cells: list[dict], nav: str = "n.md", home: str = HOME) -> Path:
    """A site for every host: a home page linking to the notebook lesson ``n.ipynb``."""
    (folder / "docs").mkdir(parents=True)
    (folder / "docs" / "index.md").write_text(home)
    (folder / "docs" / "glossary.yml").write_text(GLOSSARY)
    (folder / "docs" / "n.ipynb").write_bytes(notebook_bytes(notebook(cells)))
    (folder / "mkdocs.yml").write_text(ZENSICAL_CONFIG.replace("  - n.md", f"  - {nav}"))
    return folder


def _content(page: str) -> str:
    """A built page's content: from its h1 to the end of its "Report a mistake" box."""
    start = page.index("<h1")
    return page[start : page.index("</aside>", page.index('class="lk-report"', start)) + 8]


def test_a_notebook_lesson_is_the_same_page_on_mkdocs_and_on_zensical(tmp_path: Path) -> None:
    """Listed and linked as ``n.md``: ``lessonkit prepare --strict && zensical build --strict``
    and a strict MkDocs build (after prepare: its ``n.md`` is no second source) make the same
    page, with the same download of what the build ran; ``lessonkit check`` skips the page
    prepare wrote and finds the link to ``n.md`` and its anchor."""
    site = _notebook_site(tmp_path / "site", twin_cells())
    check = _run(site, "lessonkit.cli", "check")  # the link to n.md#sums: to the notebook
    assert check.returncode == 0, check.stdout
    broken = site / "docs" / "index.md"
    broken.write_text(HOME.replace("#sums", "#sum"))
    check = _run(site, "lessonkit.cli", "check")
    assert "did you mean n.md#sums?" in check.stdout, "its anchors are the notebook's headings"
    broken.write_text(HOME)
    prepared = _run(site, "lessonkit.cli", "prepare", "--strict")
    assert prepared.returncode == 0, prepared.stderr
    assert json.loads((site / "docs" / ".lessonkit-prepared.json").read_text())["notebooks"] == {
        "n.md": "n.ipynb"
    }
    zensical = _run(site, "zensical", "build", "--strict")
    assert zensical.returncode == 0, zensical.stdout + zensical.stderr
    mkdocs = _run(site, "mkdocs", "build", "--strict", "--site-dir", "site-mkdocs")
    assert mkdocs.returncode == 0, mkdocs.stderr
    pages = {
        host: (site / host / "n" / "index.html").read_text() for host in ("site", "site-mkdocs")
    }
    assert _content(pages["site"]) == _content(pages["site-mkdocs"])
    shown = _content(pages["site"])
    for feature in ("lk-figure", "lk-quiz", "lk-term", "The total is 6", "lk-report__link"):
        assert feature in shown, feature
    assert 'download="n.ipynb" href="../n.executed.ipynb"' in shown
    executed = [(site / host / "n.executed.ipynb").read_bytes() for host in ("site", "site-mkdocs")]
    assert executed[0] == executed[1]
    outputs = [o for c in json.loads(executed[0])["cells"] for o in c.get("outputs", [])]
    assert "".join(outputs[0]["text"]) == "6\n", "what the build ran"
    for host in ("site", "site-mkdocs"):
        assert 'href="n/#sums"' in (site / host / "index.html").read_text(), host
    check = _run(site, "lessonkit.cli", "check")  # index.md and n.ipynb; n.md is prepare's
    assert check.returncode == 0 and "2 files, 0 error" in check.stderr, check.stderr


BROKEN_CELLS = [
    raw("---\ntitle: N\ndescription: N.\n---"),
    markdown("# Sums"),
    code("x = 1\nprint(x / 0)"),
]


def test_a_broken_cell_fails_every_host_at_the_notebooks_cell_and_line(tmp_path: Path) -> None:
    """MkDocs, ``lessonkit prepare``, and Zensical when the notebook breaks after prepare ran
    (as under ``zensical serve``): each names ``docs/n.ipynb:cell 3:2``, never the page
    prepare wrote."""
    fine = [*BROKEN_CELLS[:2], code("x = 1\nprint(x / 1)")]
    site = _notebook_site(tmp_path / "site", fine)
    assert _run(site, "lessonkit.cli", "prepare").returncode == 0
    (site / "docs" / "n.ipynb").write_bytes(notebook_bytes(notebook(BROKEN_CELLS)))
    expected = "docs/n.ipynb:cell 3:2: error: ZeroDivisionError: division by zero"
    commands = {
        "Zensical": ("zensical", "build", "--strict"),
        "prepare": ("lessonkit.cli", "prepare"),
        "MkDocs": ("mkdocs", "build", "--strict", "--site-dir", "site-mkdocs"),
    }
    for host, command in commands.items():
        done = _run(site, *command)
        assert done.returncode != 0, f"{host} built a broken lesson"
        found = re.findall(
            r"docs/[^\s:]+(?::cell \d+)?(?::\d+)?: error: [^\n]*", done.stdout + done.stderr
        )
        assert found == [expected], f"{host}: {done.stdout}{done.stderr}"


def test_nav_naming_the_notebook_fails_on_zensical_and_a_link_to_it_goes_to_its_page(
    tmp_path: Path,
) -> None:
    """``n.ipynb`` in nav is an error for a site built with Zensical (its nav would copy the raw
    file), from ``lessonkit prepare`` and ``lessonkit check``, with the one way: name the page
    ``n.md``. A link to ``n.ipynb#Sums`` (a Jupyter anchor) goes to the page and the heading it
    names, on every host."""
    cells = BROKEN_CELLS[:2]
    in_nav = _notebook_site(tmp_path / "nav", cells, nav="n.ipynb")
    message = (
        "mkdocs.yml: error: Zensical cannot list a notebook by its .ipynb name in nav (n.ipynb): "
        "it would publish the raw file, not the lesson n.md"
    )
    for command in (("lessonkit.cli", "prepare"), ("lessonkit.cli", "check")):
        done = _run(in_nav, *command)
        assert done.returncode != 0 and message in done.stdout + done.stderr, done.stderr
        assert "hint: name the page n.md in nav" in done.stdout + done.stderr
    linked = _notebook_site(
        tmp_path / "link", cells, home=HOME.replace("n.md#sums", "n.ipynb#Sums")
    )
    commands = [("lessonkit.cli", "check"), ("lessonkit.cli", "prepare", "--strict")]
    commands += [("zensical", "build", "--strict"), ("mkdocs", "build", "--strict", "-d", "mk")]
    for command in commands:
        done = _run(linked, *command)
        assert done.returncode == 0, done.stdout + done.stderr
    for host in ("site", "mk"):
        assert 'href="n/#sums"' in (linked / host / "index.html").read_text(), host


def test_nav_may_name_notebooks_under_mkdocs(tmp_path: Path, mkdocs_build_shared) -> None:
    """MkDocs (and ProperDocs) list a notebook lesson named by its source in ``nav``: the entry
    goes to its page, its title kept, in a section too; ``lessonkit check`` agrees."""
    (tmp_path / "docs" / "sub").mkdir(parents=True)
    (tmp_path / "docs" / "index.md").write_text(HOME.replace("n.md#sums", "sub/b.md"))
    for name in ("a", "sub/b"):
        lesson = [raw(f"---\ntitle: {name}\ndescription: N.\n---"), markdown(f"# Heading {name}")]
        (tmp_path / "docs" / f"{name}.ipynb").write_bytes(notebook_bytes(notebook(lesson)))
    nav = "nav:\n  - index.md\n  - a.ipynb\n  - Part:\n      - Bee: sub/b.ipynb\n"
    (tmp_path / "mkdocs.yml").write_text(SITE_CONFIG + nav)
    done = mkdocs_build_shared(tmp_path)
    assert done.returncode == 0, done.stderr
    home = (tmp_path / "site" / "index.html").read_text()
    assert re.search(r'href="a/"[^>]*>\s*(<span[^>]*>\s*)?a\s*<', home), "a.ipynb: its page a/"
    assert re.search(r'href="sub/b/"[^>]*>\s*(<span[^>]*>\s*)?Bee\s*<', home), "title kept"
    assert "Part" in home
    for page in ("a", "sub/b"):
        assert "<h1" in (tmp_path / "site" / page / "index.html").read_text()
    assert not (tmp_path / "site" / "a.ipynb").exists()
    checked = _run(tmp_path, "lessonkit.cli", "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_markdown_page_beside_its_notebook_fails_lessonkit_prepare(tmp_path: Path) -> None:
    site = _notebook_site(tmp_path / "site", BROKEN_CELLS[:2])
    (site / "docs" / "n.md").write_text(HOME)
    done = _run(site, "lessonkit.cli", "prepare")
    assert done.returncode == 1
    assert "docs/n.ipynb: error: n.ipynb and n.md would both be the page n/" in done.stderr
    assert (site / "docs" / "n.md").read_text() == HOME, "the site's own page is left as it is"


def test_a_glossary_mark_in_a_markdown_cell_is_placed_at_its_cell_and_line(tmp_path: Path) -> None:
    from lessonkit.checks.recipe import Context, check_page
    from lessonkit.glossary.terms import parse
    from lessonkit.notebooks.lesson import read_lesson

    cells = [
        raw("---\ntitle: Terms\ndescription: A term that is not there.\n---"),
        code("x = 1"),
        markdown("# Terms\n\nA token, then [[tokn]]."),
    ]
    file = tmp_path / "terms.ipynb"
    file.write_bytes(notebook_bytes(notebook(cells)))
    page = read_lesson(file, "terms.ipynb", "docs/terms.ipynb")
    problems = check_page(page, Context(glossary=parse(GLOSSARY)))
    assert [p.format().splitlines()[0] for p in problems] == [
        "docs/terms.ipynb:cell 3:3: error: unknown glossary term 'tokn' in [[tokn]]"
    ]


@pytest.mark.parametrize("other", ["n.md", "n.py"])
def test_two_sources_of_one_page_fail_the_build(
    tmp_path: Path, other: str, mkdocs_build_shared
) -> None:
    """A notebook and a Markdown lesson (or its jupytext pair) of one name would be one page."""
    (tmp_path / "docs").mkdir()
    lesson = [raw("---\ntitle: N\ndescription: N.\n---"), markdown("# N")]
    (tmp_path / "docs" / "n.ipynb").write_bytes(notebook_bytes(notebook(lesson)))
    twin = jupytext.writes(nbformat.from_dict(notebook(lesson)), fmt="py:percent")
    (tmp_path / "docs" / other).write_text(twin if other.endswith(".py") else TWIN)
    (tmp_path / "mkdocs.yml").write_text(SITE_CONFIG)
    done = mkdocs_build_shared(tmp_path)
    assert done.returncode != 0
    first, second = sorted(["n.ipynb", other], key=lambda name: name != "n.md")
    assert f"error: {second} and {first} would both be the page n/" in done.stderr, done.stderr


def test_the_notebooks_lessonkit_prepare_writes_are_not_lessons(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    """A ``notebook: true`` page's download, written into the docs for Zensical, is neither
    refused by the next ``lessonkit prepare`` nor checked or stripped as a notebook lesson."""
    (tmp_path / "docs").mkdir()
    page = "---\ntitle: H\ndescription: H.\nnotebook: true\n---\n# H\n\n"
    page += "```python exec\nprint(1)\n```\n"
    (tmp_path / "docs" / "index.md").write_text(page)
    (tmp_path / "mkdocs.yml").write_text(ZENSICAL_CONFIG)
    monkeypatch.chdir(tmp_path)
    assert main(["prepare"]) == 0
    written = tmp_path / "docs" / "index.ipynb"
    assert written.is_file()
    before = written.read_bytes()
    assert main(["prepare"]) == 0, capsys.readouterr().err
    assert main(["check"]) == 0
    assert "1 file," in capsys.readouterr().err
    assert main(["strip"]) == 0 and written.read_bytes() == before


def test_lessons_are_markdown_files_and_notebooks_outside_hidden_folders(tmp_path: Path) -> None:
    from lessonkit.notebooks.lesson import lesson_files

    percent = jupytext.writes(nbformat.from_dict(notebook([markdown("# P")])), fmt="py:percent")
    files = {
        "a.md": "# A",
        "b.ipynb": "{}",
        "c.py": percent,
        "helper.py": "import numpy\n",
        ".ipynb_checkpoints/b-checkpoint.ipynb": "{}",
        "part/d.md": "# D",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    found = [p.relative_to(tmp_path).as_posix() for p in lesson_files(tmp_path)]
    assert found == ["a.md", "b.ipynb", "c.py", "part/d.md"]
