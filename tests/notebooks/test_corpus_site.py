"""The corpus of real-world notebook patterns, built unedited as a site by a strict build.

Each notebook is listed in ``nav`` by its page's name and built through lessonkit's engine (a
process per page, the cache): magics and shell escapes run, ``display()`` and rich values show
where they came, an expected error is shown as Jupyter shows it, links by ``.ipynb`` name reach
the pages and headings they mean, figures without alt text are described, files a notebook
writes stay out of ``docs/``.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

CORPUS = Path(__file__).parent / "corpus" / "docs"
NAV = ["index.md", "magics.md", "display.md", "figures.md", "errors.md", "sub/reading.md"]


def _site(root: Path, options: str = "") -> Path:
    shutil.copytree(CORPUS, root / "docs")
    nav = "".join(f"  - {page}\n" for page in NAV)
    plugins = f"plugins:\n  - lessonkit:\n      workers: 2\n{options}"
    (root / "mkdocs.yml").write_text(f"site_name: corpus\nnav:\n{nav}{plugins}")
    return root


def _files(docs: Path) -> dict[str, bytes]:
    return {p.relative_to(docs).as_posix(): p.read_bytes() for p in docs.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    import os
    import subprocess
    import sys

    root = _site(tmp_path_factory.mktemp("corpus"))
    before = _files(root / "docs")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict"],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stderr
    assert _files(root / "docs") == before, "the build changed docs/"
    pages = {page: root / "site" / page.removesuffix(".md") / "index.html" for page in NAV[1:]}
    pages["index.md"] = root / "site" / "index.html"
    built = {page: _article(path.read_text()) for page, path in pages.items()}
    built["weight"] = str(max(path.stat().st_size for path in pages.values()))
    return built


def _article(html: str) -> str:
    """A page's content, its figures' drawings and images' data cut out, code spans unwrapped."""
    html = html[html.index("<h1") : html.index("<footer")]
    drawn = lambda m: m[1] + ("<image/>" if "</title><image " in m[2] else "") + "</svg>"  # noqa: E731
    html = re.sub(r"(<svg[^>]*>)(.*?)</svg>", drawn, html, flags=re.S)
    html = re.sub(r"base64,[A-Za-z0-9+/=]+", "base64,...", html)
    return re.sub(r"</?span[^>]*>", "", html)


def _outputs(html: str) -> list[str]:
    """What the page shows besides code and prose: output blocks, tables, images, figures."""
    html = re.sub(r'<pre><code class="language-python">.*?</code></pre>', "", html, flags=re.S)
    found = r'<pre class="lk-output[^"]*"><code>.*?</code></pre>|<table>.*?</table>|<img [^>]*>'
    return re.findall(found + r"|<p><b>.*?</b></p>|<p><em>.*?</em></p>|<svg [^>]*>", html, re.S)


def test_magics_and_shell_escapes_run_in_the_notebooks_folder(built) -> None:
    shown = _outputs(built["magics.md"])
    assert re.search(r"per loop \(mean .* of 2 runs, 10 loops each\)", shown[0])
    assert "Wall time:" in shown[1] and "Wall time:" in shown[2]
    assert shown[3:] == [
        '<pre class="lk-output"><code>1000</code></pre>',
        '<pre class="lk-output"><code>hello from the shell\nn,square\n1,1\n2,4</code></pre>',
        "<pre class=\"lk-output\"><code>['numbers.csv']</code></pre>",
        '<pre class="lk-output"><code>a bash cell\n5</code></pre>',
        '<pre class="lk-output"><code>lessons lessons</code></pre>',
    ]


def test_displays_and_rich_values_show_where_they_came(built) -> None:
    shown = _outputs(built["display.md"])
    table = "<table><tr><td>apples</td><td>3</td></tr><tr><td>pears</td><td>5</td></tr></table>"
    assert shown[:6] == [
        '<pre class="lk-output"><code>before</code></pre>',
        "<p><b>bold</b></p>",
        "<p><em>emphasis</em></p>",
        '<pre class="lk-output"><code>after</code></pre>',
        table,
        table,
    ]
    assert shown[6] == "<pre class=\"lk-output\"><code>{'total': 8}</code></pre>"
    saved, listing, image, displayed = shown[8:]
    assert listing == '<pre class="lk-output"><code>my_figure.png</code></pre>'
    assert image == (
        '<img class="lk-image" src="data:image/png;base64,..." alt="Generated description: an '
        'image of 200 × 150 pixels." width="200" height="150">'
    )
    assert 'aria-label="Generated description: a line plot titled &quot;Growth&quot;' in saved
    assert displayed.split(" xmlns")[0] == saved.split(" xmlns")[0]


def test_an_expected_error_is_shown_as_jupyter_shows_it(built) -> None:
    errors = [s for s in _outputs(built["errors.md"]) if "lk-error" in s]
    assert len(errors) == 1
    lines = errors[0].split("\n")
    assert lines[1].startswith("ValueError ") and "Traceback (most recent call last)" in lines[1]
    assert "----&gt; 3 a + b" in lines
    assert lines[-1].startswith("ValueError: operands could not be broadcast together")


def test_links_by_notebook_name_reach_their_pages_and_headings(built) -> None:
    assert 'href="../errors/#a-broadcasting-error"' in built["magics.md"]
    assert 'href="../display/"' in built["magics.md"]
    assert 'href="../magics/#timing-a-cell"' in built["errors.md"]
    assert 'href="../../display/#saving-and-showing-a-figure"' in built["sub/reading.md"]
    assert 'href="sub/reading/#reading-data-next-to-the-notebook"' in built["index.md"]
    links = [re.findall(r'href="([^"]*\.ipynb[^"]*)"', html) for html in built.values()]
    assert all(link.endswith(".executed.ipynb") for found in links for link in found)  # downloads


def test_figures_without_alt_text_get_a_generated_description(built) -> None:
    labels = re.findall(r'<svg [^>]*aria-label="([^"]*)"', built["figures.md"])
    assert len(labels) == 5 and all(a.startswith("Generated description: ") for a in labels)
    assert "a scatter plot of 5,000 points titled &quot;Five thousand points&quot;" in labels[0]
    assert labels[3].startswith("Generated description: a bar chart of 3 bars")
    drawings = re.findall(r"<svg [^>]*>(.*?)</svg>", built["figures.md"], re.S)
    assert [bool(d) for d in drawings] == [True, False, False, False, False]  # 5,000 points: PNG
    assert int(built["weight"]) < 300_000  # the page of SVG figures only: 676 kB


def test_a_site_that_requires_alt_text_and_a_cell_that_stops_raising_fail(tmp_path, mkdocs_build):
    root = _site(tmp_path, "      generated_alt_text: false\n")
    notebook = root / "docs" / "errors.ipynb"
    data = json.loads(notebook.read_text())
    tagged = next(c for c in data["cells"] if "raises-exception" in c["metadata"].get("tags", []))
    tagged["source"] = "a = np.ones((3, 2))\na + a"
    notebook.write_text(json.dumps(data))
    done = mkdocs_build(root)
    assert done.returncode != 0
    assert (
        "docs/errors.ipynb:cell 4: error: the cell is tagged raises-exception but raised no "
        "exception" in done.stderr
    )
    assert "docs/figures.ipynb:cell 3: error: figure without alt text" in done.stderr
    assert "generated_alt_text is off" in done.stderr
