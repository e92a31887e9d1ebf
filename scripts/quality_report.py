"""The site's quality report: lessonkit's pages beside plain Material pages with the same prose.

One command, from the repository root:

    .venv/bin/python scripts/quality_report.py            # print the table, exit 1 if over budget
    .venv/bin/python scripts/quality_report.py --write-docs   # also update BENCHMARKS.md

It builds the site strictly and, in the same run, a tiny plain Material project (default
settings, no lessonkit) whose pages carry the prose of ``PAGES``: the lesson, the notebook
lesson and the landing page (headings, paragraphs and lists of the built pages, as text). Both
are served on localhost under a sub-path (``/lessonkit/`` and ``/plain/``, as GitHub Pages
serves a project site) by a small gzip-capable server that answers misses with the site's
404.html. Then, for each of those pages and their plain twins:

- Lighthouse (``scripts/quality/package.json`` pins 12.2.3; ``npm ci`` installs it into
  ``scripts/quality/node_modules`` on first use), mobile and desktop: performance,
  accessibility, best-practices and SEO scores, LCP, CLS and total blocking time;
- compressed bytes transferred by type (HTML, CSS, JS, images/SVG, other) and request count,
  from Lighthouse's network record of the mobile run; requests to any other host;
- axe-core violations on every page of both sites, light and dark (Playwright, the axe.min.js
  that axe-playwright-python ships), and console errors;
- lessonkit's own CSS+JS, gzipped, and that each page links it once.

It prints Markdown tables with the ratios lessonkit / plain, then the budget of issue #11 item by
item, and exits 1 when an item fails.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import io
import json
import os
import re
import shutil
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar
from urllib.parse import urlsplit

from docs_section import write_section

ROOT = Path(__file__).resolve().parents[1]
QUALITY = ROOT / "scripts" / "quality"
LIGHTHOUSE = QUALITY / "node_modules" / ".bin" / "lighthouse"
DOCS_PAGE = ROOT / "BENCHMARKS.md"
SECTION = "## Quality budget"
CHROME = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
CHROME_FLAGS = (
    "--headless --no-sandbox --disable-gpu --disable-background-networking "
    "--disable-component-update"
)
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
PAGES = {
    "lesson": "transformers-and-attention/",
    "notebook lesson": "embeddings/",  # written as docs/embeddings.ipynb
    "landing": "",
}
FORMS = ("mobile", "desktop")
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
OWN_BUDGET = 17 * 1024  # 15 KB + the progress script and its CSS (2,759 B gzipped, #25)
"""lessonkit's own CSS + JS, gzipped, in bytes."""
COMPRESSIBLE = re.compile(r"^(text/|application/(javascript|json|xml)|image/svg\+xml)")


# --- building --------------------------------------------------------------------------------


def build(project: Path, site_dir: Path) -> None:
    """``mkdocs build --strict`` of ``project`` into ``site_dir``; exit with its log on failure."""
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)],
        cwd=project,
        env=ENV,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        sys.exit(f"mkdocs build --strict failed in {project}:\n{result.stderr}")


class _Prose(HTMLParser):
    """The prose of a built page's article as Markdown: headings, paragraphs, list items.

    Skips what lessonkit adds (elements with an ``lk-`` class), code, tables, figures and
    scripts, and keeps only the words (links become their text).

    >>> p = _Prose()
    >>> p.feed('<article><h1>T<a class="headerlink">¶</a></h1><p>A <a href="x">b</a>.</p>'
    ...        '<div class="lk-quiz"><p>no</p></div><ul><li>c</li></ul></article>')
    >>> p.markdown()
    '# T\\n\\nA b.\\n\\n- c\\n'
    """

    SKIP: ClassVar = {"pre", "code", "table", "figure", "script", "style", "noscript", "svg", "nav"}
    BLOCKS: ClassVar = {"h1": "# ", "h2": "## ", "h3": "### ", "h4": "#### ", "p": "", "li": "- "}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[bool] = []  # per open element: is it (or an ancestor) skipped?
        self.in_article = 0
        self.block: list[str] | None = None
        self.prefix = ""
        self.blocks: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "article":
            self.in_article += 1
        if tag in {"br", "img", "input", "hr", "meta", "link", "wbr", "source"}:
            return
        classes = (dict(attrs).get("class") or "").split()
        skipped = bool(self.stack and self.stack[-1]) or (
            tag in self.SKIP or any(c.startswith("lk-") or c == "headerlink" for c in classes)
        )
        self.stack.append(skipped)
        if self.in_article and not skipped and tag in self.BLOCKS and self.block is None:
            self.block, self.prefix = [], self.BLOCKS[tag]

    def handle_endtag(self, tag: str) -> None:
        if tag in {"br", "img", "input", "hr", "meta", "link", "wbr", "source"}:
            return
        if self.stack:
            self.stack.pop()
        if tag in self.BLOCKS and self.block is not None:
            text = " ".join("".join(self.block).split())
            if text:
                self.blocks.append(self.prefix + text)
            self.block = None
        if tag == "article":
            self.in_article -= 1

    def handle_data(self, data: str) -> None:
        if self.block is not None and not (self.stack and self.stack[-1]):
            self.block.append(data)

    def markdown(self) -> str:
        return "\n\n".join(self.blocks) + "\n"


def plain_project(folder: Path, site: Path) -> Path:
    """A Material project with default settings whose pages carry the prose of ``PAGES``."""
    docs = folder / "docs"
    for path in PAGES.values():
        prose = _Prose()
        prose.feed((site / path / "index.html").read_text(encoding="utf-8"))
        target = docs / (path.rstrip("/") + ".md" if path else "index.md")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(prose.markdown(), encoding="utf-8")
    (folder / "mkdocs.yml").write_text(
        "site_name: plain\nsite_url: http://127.0.0.1/plain/\ntheme:\n  name: material\n",
        encoding="utf-8",
    )
    return folder


# --- serving ---------------------------------------------------------------------------------


class _GzipHandler(http.server.SimpleHTTPRequestHandler):
    """Static files, gzipped when the client accepts it (as GitHub Pages serves them); a miss
    gets the 404.html of the site whose sub-path it falls under, with status 404."""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "max-age=600")
        super().end_headers()

    def send_head(self):  # type: ignore[override]
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            if not self.path.split("?")[0].endswith("/"):
                return super().send_head()  # redirects to the path with a slash
            path = path / "index.html"
        if not path.is_file():
            return self._send_bytes(404, self._not_found_page(), "text/html")
        return self._send_bytes(200, path.read_bytes(), self.guess_type(str(path)))

    def _not_found_page(self) -> bytes:
        site = self.path.lstrip("/").split("/", 1)[0]
        page = Path(self.directory) / site / "404.html"
        return page.read_bytes() if site and page.is_file() else b"<h1>Not found</h1>"

    def _send_bytes(self, status: int, body: bytes, kind: str):
        gzipped = "gzip" in self.headers.get("Accept-Encoding", "") and COMPRESSIBLE.match(kind)
        if gzipped:
            body = gzip.compress(body, compresslevel=9, mtime=0)
        self.send_response(status)
        self.send_header("Content-Type", kind + ("; charset=utf-8" if "text" in kind else ""))
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Vary", "Accept-Encoding")
        if gzipped:
            self.send_header("Content-Encoding", "gzip")
        self.end_headers()
        return io.BytesIO(body)


@contextmanager
def serve(root: Path) -> Iterator[str]:
    """Serve ``root`` on localhost; yield the origin (``http://127.0.0.1:PORT``)."""
    handler = functools.partial(_GzipHandler, directory=str(root))
    socketserver.ThreadingTCPServer.allow_reuse_address = True
    with socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}"
        finally:
            server.shutdown()


# --- measuring -------------------------------------------------------------------------------


@dataclass
class Measure:
    """One page of one site: Lighthouse per form factor, bytes by type, hosts, axe."""

    scores: dict[str, dict[str, int]] = field(default_factory=dict)  # form -> category -> 0..100
    vitals: dict[str, dict[str, float]] = field(default_factory=dict)  # form -> metric -> value
    bytes_by_type: dict[str, int] = field(default_factory=dict)
    requests: int = 0
    third_party: list[str] = field(default_factory=list)
    console_errors: int = 0


def ensure_lighthouse() -> None:
    """Install the pinned Lighthouse into scripts/quality/node_modules if it is not there."""
    if LIGHTHOUSE.exists():
        return
    if shutil.which("npm") is None:
        sys.exit("npm not found: install Node.js 20 (apt-get install nodejs npm) for Lighthouse.")
    print("Installing Lighthouse (npm ci in scripts/quality) ...", file=sys.stderr)
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=QUALITY, check=True)


def lighthouse(url: str, form: str, out: Path) -> dict:
    """Run Lighthouse on ``url`` as ``mobile`` or ``desktop``; return its JSON report."""
    command = [
        str(LIGHTHOUSE),
        url,
        "--quiet",
        "--output=json",
        f"--output-path={out}",
        f"--only-categories={','.join(CATEGORIES)}",
        f"--chrome-flags={CHROME_FLAGS}",
    ]
    if form == "desktop":
        command.append("--preset=desktop")
    result = subprocess.run(
        command, env={**os.environ, "CHROME_PATH": CHROME}, capture_output=True, text=True
    )
    if result.returncode != 0 or not out.is_file():
        sys.exit(f"lighthouse failed on {url} ({form}):\n{result.stderr[-3000:]}")
    return json.loads(out.read_text(encoding="utf-8"))


def median_run(reports: list[dict]) -> dict:
    """The report with the median performance score (the lower middle one of an even count).

    >>> scores = [{"categories": {"performance": {"score": s}}} for s in (0.9, 0.7, 0.8)]
    >>> median_run(scores)["categories"]["performance"]["score"]
    0.8
    """
    ranked = sorted(reports, key=lambda r: r["categories"]["performance"]["score"] or 0)
    return ranked[(len(ranked) - 1) // 2]


def kind_of(request: dict) -> str:
    """The byte-table row of a Lighthouse network request.

    >>> kind_of({"resourceType": "Image", "url": "a.png"}), kind_of({"url": "f.svg"})
    ('img/svg', 'img/svg')
    >>> kind_of({"resourceType": "Fetch", "url": "search_index.json"})
    'other'
    """
    kind = request.get("resourceType", "")
    if kind == "Image" or urlsplit(request["url"]).path.endswith(".svg"):
        return "img/svg"
    return {"Document": "html", "Stylesheet": "css", "Script": "js"}.get(kind, "other")


def read_report(report: dict, form: str, measure: Measure, origin: str) -> None:
    """Copy scores, vitals and (mobile run) the network record of a Lighthouse report."""
    categories = report["categories"]
    measure.scores[form] = {c: round(100 * (categories[c]["score"] or 0)) for c in CATEGORIES}
    audits = report["audits"]
    measure.vitals[form] = {
        "LCP (s)": audits["largest-contentful-paint"]["numericValue"] / 1000,
        "CLS": audits["cumulative-layout-shift"]["numericValue"],
        "TBT (ms)": audits["total-blocking-time"]["numericValue"],
    }
    if form != "mobile":
        return
    items = [
        i
        for i in audits["network-requests"]["details"]["items"]
        if urlsplit(i["url"]).scheme in ("http", "https")  # data: URLs are inline, not requests
    ]
    host = urlsplit(origin).netloc
    measure.requests = len(items)
    measure.bytes_by_type = {k: 0 for k in ("html", "css", "js", "img/svg", "other")}
    for item in items:
        measure.bytes_by_type[kind_of(item)] += int(item.get("transferSize") or 0)
    measure.third_party = sorted({i["url"] for i in items if urlsplit(i["url"]).netloc != host})


def axe_every_page(origin: str, sites: dict[str, Path]) -> dict[str, dict[str, int]]:
    """Violations (count of rule ids) and console errors of every page, light and dark."""
    import axe_playwright_python
    from playwright.sync_api import sync_playwright

    axe = (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text("utf-8")
    found: dict[str, dict[str, int]] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROME, args=CHROME_FLAGS.split())
        for name, site in sites.items():
            for html in sorted(site.rglob("*.html")):
                relative = html.relative_to(site).as_posix()
                path = "no-such-page/" if relative == "404.html" else relative[:-10]
                key = f"{name}/{path}"
                found[key] = {"violations": 0, "console errors": 0}
                for scheme in ("light", "dark"):
                    context = browser.new_context(color_scheme=scheme)
                    page = context.new_page()
                    errors: list[str] = []
                    page.on(
                        "console",
                        lambda m, e=errors: e.append(m.text) if m.type == "error" else None,
                    )
                    page.on("pageerror", lambda x, e=errors: e.append(str(x)))
                    page.goto(f"{origin}/{name}/{path}")
                    page.wait_for_load_state("networkidle")
                    page.evaluate(axe)
                    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
                    context.close()
                    found[key]["violations"] += len(result["violations"])
                    document_404 = path == "no-such-page/"
                    found[key]["console errors"] += sum(
                        not (document_404 and "404 (Not Found)" in e) for e in errors
                    )
        browser.close()
    return found


def own_assets(site: Path) -> tuple[int, int, list[str]]:
    """(gzipped CSS bytes, gzipped JS bytes, pages that do not link each exactly once)."""
    folder = site / "assets" / "lessonkit"
    sizes = [
        len(gzip.compress((folder / f"lessonkit.{k}").read_bytes(), 9, mtime=0))
        for k in ("css", "js")
    ]
    wrong = []
    for html in sorted(site.rglob("*.html")):
        text = html.read_text(encoding="utf-8")
        if text.count("lessonkit/lessonkit.css") != 1 or text.count("lessonkit/lessonkit.js") != 1:
            wrong.append(html.relative_to(site).as_posix())
    return sizes[0], sizes[1], wrong


# --- reporting -------------------------------------------------------------------------------


def ratio(mine: float, plain: float) -> str:
    """``mine / plain`` as ``×1.23`` (``–`` when the plain value is 0).

    >>> ratio(3, 2), ratio(0, 0), ratio(1, 0)
    ('×1.50', '×1.00', '–')
    """
    if plain == 0:
        return "×1.00" if mine == 0 else "–"
    return f"×{mine / plain:.2f}"


def fmt(value: float) -> str:
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:.3f}" if abs(value) < 1 else f"{value:.2f}"


def tables(measures: dict[tuple[str, str], Measure]) -> str:
    """The Markdown table: one row per metric; per page lessonkit, plain and the ratio."""
    header = ["metric"]
    for page in PAGES:
        header += [f"{page}: lessonkit", f"{page}: plain", "ratio"]
    rows: list[list[str]] = []

    def row(name: str, get) -> None:
        cells = [name]
        for page in PAGES:
            mine, plain = get(measures[("lessonkit", page)]), get(measures[("plain", page)])
            cells += [fmt(mine), fmt(plain), ratio(mine, plain)]
        rows.append(cells)

    for form in FORMS:
        for c in CATEGORIES:
            row(f"{form}: {c}", lambda m, f=form, c=c: m.scores[f][c])
        for v in ("LCP (s)", "CLS", "TBT (ms)"):
            row(f"{form}: {v}", lambda m, f=form, v=v: m.vitals[f][v])
    for kind in ("html", "css", "js", "img/svg", "other"):
        row(f"bytes (gzip): {kind}", lambda m, k=kind: m.bytes_by_type[k])
    row("bytes (gzip): total", lambda m: sum(m.bytes_by_type.values()))
    row("requests", lambda m: m.requests)
    row("third-party requests", lambda m: len(m.third_party))
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" + " ---: |" * (len(header) - 1)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _found(problems: object, nothing: str = "none") -> str:
    """What a check found, for the report's "measured" column: ``nothing`` when it found none."""
    return str(problems) if problems else nothing


@dataclass
class Check:
    item: str
    holds: bool
    detail: str


def budget(
    measures: dict[tuple[str, str], Measure],
    axe: dict[str, dict[str, int]],
    own: tuple[int, int, list[str]],
) -> list[Check]:
    """Issue #11's budget, item by item."""
    checks = []
    for page in PAGES:
        mine, plain = measures[("lessonkit", page)], measures[("plain", page)]
        for form in FORMS:
            low = {c: s for c, s in mine.scores[form].items() if c != "performance" and s < 100}
            checks.append(
                Check(
                    f"{page} {form}: accessibility, best practices, SEO 100",
                    not low,
                    _found(low, "all 100"),
                )
            )
            perf, base = mine.scores[form]["performance"], plain.scores[form]["performance"]
            floor = max(base, 90) if form == "mobile" else base
            checks.append(
                Check(
                    f"{page} {form}: performance ≥ plain"
                    + (" and ≥ 90" if form == "mobile" else ""),
                    perf >= floor,
                    f"{perf} (plain {base})",
                )
            )
        checks.append(
            Check(
                f"{page}: zero third-party requests", not mine.third_party, _found(mine.third_party)
            )
        )
    css, js, wrong = own
    checks.append(
        Check("lessonkit CSS+JS ≤ 17 KiB gzipped", css + js <= OWN_BUDGET, f"{css} + {js} B")
    )
    checks.append(Check("lessonkit CSS and JS linked once per page", not wrong, _found(wrong)))
    mine_axe = {k: v for k, v in axe.items() if k.startswith("lessonkit/")}
    bad = {k: v["violations"] for k, v in mine_axe.items() if v["violations"]}
    checks.append(Check(f"zero axe violations ({len(mine_axe)} pages × 2)", not bad, _found(bad)))
    errors = {k: v["console errors"] for k, v in mine_axe.items() if v["console errors"]}
    checks.append(Check("no console errors", not errors, _found(errors)))
    return checks


def report_text(measures, axe, own, checks, versions: str) -> str:
    css, js, _ = own
    axe_lines = "\n".join(
        f"| {k} | {v['violations']} | {v['console errors']} |" for k, v in sorted(axe.items())
    )
    check_lines = "\n".join(
        f"| {c.item} | {'holds' if c.holds else '**broken**'} | {c.detail} |" for c in checks
    )
    return (
        f"{tables(measures)}\n\n"
        f"lessonkit's own CSS + JS, gzipped: {css:,} + {js:,} = {css + js:,} bytes "
        f"(budget {OWN_BUDGET:,}).\n\n"
        "| page (light + dark) | axe violations | console errors |\n| --- | ---: | ---: |\n"
        f"{axe_lines}\n\n"
        f"| budget item | result | measured |\n| --- | --- | --- |\n{check_lines}\n\n"
        f"{versions}\n"
    )


def write_docs(text: str) -> None:
    """Replace (or append) the "Quality budget" section of BENCHMARKS.md with ``text``."""
    intro = (
        f"{SECTION}\n\n"
        "`scripts/quality_report.py` builds this site and, in the same run, a plain Material site "
        "with the same prose (default settings, no lessonkit), serves both gzipped on localhost "
        "under a sub-path and measures them. The axe, link, third-party-request, console, 404, "
        "print and layout-shift checks also run in CI (`tests/browser/test_quality.py`, "
        "`tests/test_site_links.py`); Lighthouse is too slow for CI and runs from the script.\n\n"
        "Nothing loads from another host: Material's Google Fonts are off (`font: false`, system "
        "fonts), and Material's repository facts (stars and forks fetched from api.github.com on "
        "every page view) are left out by `overrides/partials/source.html`, which keeps the "
        "repository link: a request to a third party for every reader, rate-limited by GitHub, "
        "for numbers no lesson needs.\n\n"
        "Mobile performance was below the plain page's (93 against 99) for work on the main "
        "thread while the page loads, not for lessonkit's CSS or JS: each full restyle of the "
        "lesson costs about 40 ms here, four times that on Lighthouse's simulated phone, and "
        "Material did several. Its palette component switched the scheme after load with extra "
        "attributes and reads of the header's computed style (three restyles); "
        "`navigation.instant` rewrote every link's href, the stylesheets' too, so the browser "
        "re-applied them (one more); and the parser-blocking bundle ran the page's first style "
        "and layout inside its own task, before the first paint. Now the light/dark toggle is "
        "`overrides/partials/palette.html` with a script right after the header that picks the "
        "scheme before the content is parsed and restyles only when a reader uses the toggle; "
        "`navigation.instant` is off (a click between small, cached pages does a full load); and "
        "Material's bundle and lessonkit.js load with `defer`, with the `js` class set in "
        "`<head>` and the scrollbar's room kept from the start, so the content paints first and "
        "nothing moves when the scripts run (`overrides/main.html`). Scores near 100 vary by a "
        "few points from run to run.\n\n"
        "Latest run:\n\n"
    )
    write_section(DOCS_PAGE, SECTION, intro + text)


def versions(runs: int) -> str:
    chromium = subprocess.run([CHROME, "--version"], capture_output=True, text=True).stdout
    package = json.loads((QUALITY / "node_modules" / "lighthouse" / "package.json").read_text())
    found = re.search(r"[\d.]+", chromium)
    return (
        f"Measured {time.strftime('%Y-%m-%d')} with Lighthouse {package['version']} "
        f"(simulated throttling) on Chromium {found.group() if found else '?'}, the median of "
        f"{runs} run{'' if runs == 1 else 's'} per page and form factor by performance score; "
        "bytes and requests are Lighthouse's record of the median mobile run (data: URLs are not "
        "requests)."
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write-docs", action="store_true", help=f"update {DOCS_PAGE.name}")
    parser.add_argument(
        "--runs", type=int, default=3, help="Lighthouse runs per page and form (median kept)"
    )
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    ensure_lighthouse()
    with tempfile.TemporaryDirectory(prefix="lessonkit-quality-") as tmp:
        served = Path(tmp) / "served"
        sites = {"lessonkit": served / "lessonkit", "plain": served / "plain"}
        print("Building the site and the plain Material twin ...", file=sys.stderr)
        build(ROOT, sites["lessonkit"])
        build(plain_project(Path(tmp) / "plain-project", sites["lessonkit"]), sites["plain"])
        reports: dict[tuple[str, str, str], list[dict]] = {}
        with serve(served) as origin:
            # Interleaved, so a busy moment of the machine hits both sites alike.
            for run in range(args.runs):
                for form in FORMS:
                    for page, path in PAGES.items():
                        for name in sites:
                            url = f"{origin}/{name}/{path}"
                            print(f"Lighthouse {form} run {run + 1}: {url}", file=sys.stderr)
                            out = Path(tmp) / f"{name}-{page}-{form}-{run}.json"
                            reports.setdefault((name, page, form), []).append(
                                lighthouse(url, form, out)
                            )
            measures: dict[tuple[str, str], Measure] = {}
            for (name, page, form), runs in reports.items():
                measure = measures.setdefault((name, page), Measure())
                read_report(median_run(runs), form, measure, origin)
            print("axe on every page, light and dark ...", file=sys.stderr)
            axe = axe_every_page(origin, sites)
        own = own_assets(sites["lessonkit"])
    checks = budget(measures, axe, own)
    text = report_text(measures, axe, own, checks, versions(args.runs))
    print(text)
    if args.write_docs:
        write_docs(text)
    broken = [c.item for c in checks if not c.holds]
    if broken:
        print(f"Budget broken: {'; '.join(broken)}", file=sys.stderr)
        return 1
    print("Budget holds.", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
