"""What a tool's build of the notebook corpus shows for each pattern, read from its pages.

``scripts/benchmark.py --kinds notebooks`` builds ``tests/notebooks/corpus/`` with lessonkit and
its peers; this module writes the corpus for a build (and a copy with cells failing by mistake)
and reads the built pages: links by ``.ipynb`` name, what the patterns show, figures' alt text,
the heaviest page.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "notebooks" / "corpus" / "docs"
NOTEBOOKS = ["magics", "display", "figures", "errors", "sub/reading"]
NB_LINK = re.compile(r'\[([^]["\n]+)\]\([^)\s#]+\.ipynb(#[^)\s]+)?\)')
"""A Markdown link to a notebook: its text and its fragment."""
ANCHOR = re.compile(r'<a\b[^>]*\bhref="([^"]*)"[^>]*>(.*?)</a>', re.S)
FIGURE = re.compile(r"<img\b[^>]*>|<svg\b[^>]*aria-label[^>]*>")
DESCRIBED = re.compile(r'(?:alt|aria-label)="(?!No description)[^"]+(?<!\.png)"')
"""An alt text that describes: not nbconvert's placeholder nor the image's file name."""
SHOWN = {
    "magics, `%timeit`, `!` shell escapes": ("magics", ["per loop", "hello from the shell"]),
    "`display()` and rich reprs": ("display", ["<b>bold</b>", "<td>apples</td>"]),
    "a cell failing on purpose (`raises-exception`)": ("errors", ["could not be broadcast"]),
    "a stored output": ("errors", ["an output from last year"]),
}
"""A pattern: the page that has it and what that page shows when the pattern ran."""
MISTAKE = "name_never_defined"
"""A cell failing by mistake, at the end of magics and figures in the copy with mistakes."""
NAMED = re.compile(rf"(magics|figures)\.ipynb\S*:.*(?:{MISTAKE}|fail)", re.I)


def copy_corpus(root: Path, mistakes: bool = False) -> None:
    """The corpus as ``root/docs`` (anything there before removed), with the mistakes if asked."""
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(CORPUS, root / "docs")
    for path in [root / "docs" / f"{n}.ipynb" for n in ("magics", "figures") if mistakes]:
        notebook = json.loads(path.read_text())
        cell = {"id": "mistake", "metadata": {}, "outputs": [], "source": MISTAKE}
        notebook["cells"].append({"cell_type": "code", "execution_count": None, **cell})
        path.write_text(json.dumps(notebook))


def page(out: Path, name: str) -> Path:
    """The built page of corpus page ``name`` under ``out``, in either URL style."""
    return out / name / "index.html" if (out / name).is_dir() else out / f"{name}.html"


def reaches(source: Path, href: str) -> tuple[bool, bool]:
    """Whether ``href`` on the page ``source`` reaches a built page; and the heading it names."""
    path, _, fragment = href.partition("#")
    target = source.parent / path
    target = target / "index.html" if target.is_dir() else target
    found = bool(path) and "://" not in href and target.suffix == ".html" and target.is_file()
    return found, found and (not fragment or f'id="{fragment}"' in target.read_text())


def probe(out: Path, code: int, log: str) -> dict[str, str]:
    """What a build of the corpus (pages under ``out``) did with each pattern; ``code`` and
    ``log``: the exit code and output of its build with the mistakes."""
    pages = {name: page(out, name) for name in ["index", *NOTEBOOKS]}
    html, links = {name: path.read_text() for name, path in pages.items()}, []
    for name, text in html.items():
        hrefs = {re.sub(r"<[^>]+>", "", t).strip(): h for h, t in ANCHOR.findall(text)[::-1]}
        source = CORPUS / (f"{name}.ipynb" if name in NOTEBOOKS else "index.md")
        for label, fragment in NB_LINK.findall(source.read_text()):
            links.append((*reaches(pages[name], hrefs.get(label, "")), fragment))
    headings = [heading for _, heading, fragment in links if fragment]
    reached = f"{sum(found for found, *_ in links)} of {len(links)}"
    found = {"links by `.ipynb` name reaching their page": reached}
    found["... and the heading they name (`#Some-Heading`)"] = f"{sum(headings)} of {len(headings)}"
    for row, (name, needles) in SHOWN.items():
        found[row] = "shown" if all(n in html[name] for n in needles) else "not shown"
    figures = FIGURE.findall(html["figures"])
    described = sum(bool(DESCRIBED.search(f)) for f in figures)
    found["figures without alt text"] = f"{len(figures)} shown, {described} described"
    named = len({m[1] for m in NAMED.finditer(log)})
    cells = " with cell and line" if re.search(r"\.ipynb:cell \d+:\d+", log) else ""
    found[f"`{MISTAKE}` in 2 notebooks"] = f"{'fails' if code else 'passes'}, names {named}{cells}"
    heaviest = max(path.stat().st_size for path in pages.values()) / 1000
    found["heaviest page (KB of HTML, with what it inlines)"] = f"{heaviest:.0f}"
    return found
