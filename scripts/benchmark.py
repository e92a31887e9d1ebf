"""Time what a person waits for: a cold first build, a warm build, a prose save in the preview.

Two kinds of site at each size, built in a temporary folder:

- synthetic: pages of ~600 words and four blocks (a setup, a softmax table, a 3x3 attention
  table, a 6x6 heatmap), in three flavours: the floor (the blocks as plain code, Material only),
  markdown-exec (the same blocks executed, one session a page) and lessonkit;
- real: this site's own lesson (``docs/transformers-and-attention.md``) copied N times, its links
  to other pages pointed at the home page, with the site's glossary; the floor is the same
  Markdown without lessonkit (blocks as plain code, quizzes and values left as text). A lesson
  only lessonkit can run has no markdown-exec flavour.

Each run builds, in fresh ``mkdocs build`` processes: markdown-exec, lessonkit cold (empty
cache), the floor, lessonkit warm (nothing changed), the floor again. A ratio is taken inside its
run (warm over the mean of the two floors around it; cold over that run's markdown-exec), and the
median of the runs is reported. Then, once per size and kind: the peak memory of a build of each
(all its processes, ``peak_memory.py``; warm lessonkit: median of 3), the seconds from a prose
save to the page served (``mkdocs serve --dirty``, ``serve_timing.py``), for floor and lessonkit.
``--against REF`` adds lessonkit as it was at git ``REF`` to every run, so a change is judged
against the code before it on the same machine, at the same moment. ``--kinds notebooks``
builds the notebook corpus with lessonkit and its peers (``notebook_probe.py``; ``NB_INTRO``).

    .venv/bin/python scripts/benchmark.py                       # 20 and 200 pages, 3 runs
    .venv/bin/python scripts/benchmark.py --against main --write  # and record BENCHMARKS.md
    .venv/bin/python scripts/benchmark.py --large                # add 1,000 pages
    .venv/bin/python scripts/benchmark.py --pages 2 --runs 1 --saves 1   # a quick check
    .venv/bin/python scripts/benchmark.py --kinds notebooks --peers /tmp/peers/bin/python
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import importlib.util
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from datetime import date
from io import BytesIO
from pathlib import Path

from docs_section import write_section
from notebook_probe import NOTEBOOKS, copy_corpus, probe
from peak_memory import Peak, run_sampled
from serve_timing import Served, ServeFailure, free_port, serving, time_saves, wait_for

ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src" / "lessonkit"
LESSON = ROOT / "docs" / "transformers-and-attention.md"
GLOSSARY = ROOT / "docs" / "glossary.yml"
BENCHMARKS = ROOT / "BENCHMARKS.md"
SECTION = "## Build speed"
LARGE = 1000
"""The size ``--large`` adds; there a prose save has no limit (MkDocs' own rebuild is seconds)."""
CORES = os.cpu_count() or 1
SERVE = "mkdocs serve --dirty"
"""The preview measured. Not ``--strict``: MkDocs warns that a dirty build is one."""
FAILED_REBUILD = "An error happened during the rebuild"
"""What MkDocs' server logs when a rebuild fails (it then keeps serving the old site)."""

KINDS = {
    "synthetic": "synthetic pages (600 words, 4 blocks each)",
    "real": "this site's lesson, copied",
}
ROWS = {
    "floor": "floor: no execution, no lessonkit",
    "markdown-exec": "markdown-exec, executing the blocks",
    "cold": "lessonkit, cold (empty cache)",
    "warm": "lessonkit, warm (nothing changed)",
    "before-cold": "lessonkit at {ref}, cold",
    "before-warm": "lessonkit at {ref}, warm",
}
SAVE_ROWS = {"floor": "floor", "lessonkit": "lessonkit", "before": "lessonkit at {ref}"}

# --- the sites --------------------------------------------------------------------------------

SETUP = """\
import matplotlib.pyplot as plt
import numpy as np

from lessonkit.lab.attention import causal_mask, scaled_dot_product_attention, softmax

rng = np.random.default_rng({seed})
scores = rng.normal(0, 2, size=5).round(1)"""

SOFTMAX_TABLE = """\
weights = softmax(scores)
print("| token | score | weight |")
print("| ---: | ---: | ---: |")
for i, (s, w) in enumerate(zip(scores, weights), start=1):
    print(f"| {i} | {s:.1f} | {w:.3f} |")"""

ATTENTION_TABLE = """\
q, k, v = (rng.normal(size=(3, 4)) for _ in range(3))
out, attn = scaled_dot_product_attention(q, k, v, mask=causal_mask(3))
print("| query | key 1 | key 2 | key 3 |")
print("| --- | ---: | ---: | ---: |")
for i, row in enumerate(attn, start=1):
    print(f"| {i} | " + " | ".join(f"{x:.2f}" for x in row) + " |")"""

HEATMAP = """\
heat = softmax(rng.normal(size=(6, 6)))
fig, ax = plt.subplots(figsize=(3, 3))
ax.imshow(heat, cmap="cividis", vmin=0, vmax=1)
ax.set_xticks(range(6), [f"k{j}" for j in range(1, 7)])
ax.set_yticks(range(6), [f"q{i}" for i in range(1, 7)])
fig.tight_layout()"""

HEATMAP_ALT = "A 6 by 6 heatmap of attention weights; each row sums to 1."

# markdown-exec prints what a block shows; a figure must be saved and printed as HTML by hand.
SAVE_SVG = """
from io import StringIO

buffer = StringIO()
fig.savefig(buffer, format="svg")
plt.close(fig)
print(buffer.getvalue())"""

WORDS = (
    *("attention", "token", "query", "key", "value", "weight", "score", "softmax", "layer"),
    *("head", "vector", "model", "sequence", "position", "context", "matrix", "row", "column"),
    *("sum", "average", "probability", "embedding", "transformer", "input", "output"),
)
FILLER = ("the", "a", "of", "to", "and", "in", "that", "each", "every", "which", "with", "how")

OTHER_PAGE = re.compile(r"\]\((?!https?:|#)[^)\s]*?\.md(?:#[^)\s]*)?\)")
"""A link to another page of the site: the real kind has only the home page and the copies."""
EXEC_FENCE = re.compile(r"^([ \t]*`{3,}[ \t]*python)[ \t]+exec\b.*$", re.M)


def prose(rng: random.Random, words: int) -> list[str]:
    """Paragraphs of plausible filler text, ``words`` words in all."""
    paragraphs, written = [], 0
    while written < words:
        sentences = []
        for _ in range(rng.randint(3, 5)):
            n = rng.randint(8, 16)
            picked = [rng.choice(WORDS if i % 2 else FILLER) for i in range(n)]
            sentences.append(" ".join(picked).capitalize() + ".")
            written += n
        paragraphs.append(textwrap.fill(" ".join(sentences), 100))
    return paragraphs


def synthetic_page(number: int, flavour: str) -> str:
    """Synthetic page ``number`` as Markdown, in ``flavour``."""
    text = prose(random.Random(number), 600)
    setup = SETUP.format(seed=number)
    session = f'session="page-{number}"'
    fences = {
        "floor": [("", setup), ("", SOFTMAX_TABLE), ("", ATTENTION_TABLE), ("", HEATMAP)],
        "markdown-exec": [
            (f'exec="on" {session}', setup),
            (f'exec="on" {session} source="above"', SOFTMAX_TABLE),
            (f'exec="on" {session} source="above"', ATTENTION_TABLE),
            (f'exec="on" {session} source="above" html="true"', HEATMAP + SAVE_SVG),
        ],
        "lessonkit": [
            ('exec source="hide"', setup),
            ('exec output="markdown"', SOFTMAX_TABLE),
            ('exec output="markdown"', ATTENTION_TABLE),
            (f'exec alt="{HEATMAP_ALT}"', HEATMAP),
        ],
    }[flavour]
    parts = [f"---\ntitle: Page {number}\ndescription: Page {number}.\n---\n", f"# Page {number}\n"]
    for index, (options, code) in enumerate(fences):
        parts += [f"## Section {index + 1}\n", *text[index::4]]
        parts.append(f"```python {options}".rstrip() + f"\n{code}\n```\n")
    return "\n\n".join(parts)


def real_page(flavour: str) -> str:
    """The lesson as the real kind's pages carry it: links to other pages go home; the floor's
    blocks are plain code.

    >>> OTHER_PAGE.sub("](index.md)", "[a](x.md#y) [b](#c) [d](https://e.md)")
    '[a](index.md) [b](#c) [d](https://e.md)'
    >>> EXEC_FENCE.sub(r"\\1", '```python exec source="hide"\\n')
    '```python\\n'
    """
    text = OTHER_PAGE.sub("](index.md)", LESSON.read_text(encoding="utf-8"))
    return EXEC_FENCE.sub(r"\1", text) if flavour == "floor" else text


def page_names(kind: str, pages: int) -> list[str]:
    """The pages' file names. The lesson's code reads its own file by name, so the real kind's
    first page keeps it; the copies read that one."""
    names = [f"page-{n:03d}.md" for n in range(1, pages + 1)]
    return [LESSON.name, *names[1:]] if kind == "real" else names


def config(kind: str, flavour: str, pages: list[str]) -> str:
    """The ``mkdocs.yml`` of one flavour of a site."""
    plugins = {"floor": ["search"], "markdown-exec": ["search", "markdown-exec"]}
    extensions = ["admonition", "attr_list", "md_in_html", "tables", "toc:\n      permalink: true"]
    extensions += ["pymdownx.highlight", "pymdownx.superfences"]
    if kind == "real":
        extensions += ["abbr", "def_list", "pymdownx.details", "pymdownx.inlinehilite"]
        extensions += ["pymdownx.tasklist"] + (["lessonkit.quiz"] if flavour == "lessonkit" else [])
    nav = "\n".join(f"  - {name}" for name in pages)
    lines = "\n".join(f"  - {p}" for p in plugins.get(flavour, ["search", "lessonkit"]))
    listed = "\n".join(f"  - {e}" for e in extensions)
    return f"""\
site_name: benchmark ({kind}, {flavour})
theme:
  name: material
  font: false
  features: [content.code.copy]
nav:
  - index.md
{nav}
plugins:
{lines}
markdown_extensions:
{listed}
"""


@dataclass
class Site:
    """One flavour of one kind of site on disk, and the environment its builds run in."""

    root: Path
    kind: str
    flavour: str
    pages: int
    env: dict[str, str]

    @property
    def docs(self) -> Path:
        return self.root / "docs"

    @property
    def names(self) -> list[str]:
        return page_names(self.kind, self.pages)

    @property
    def edited(self) -> str:
        """The page a save edits: a copy whose code reads no page that changes (the last)."""
        return self.names[-1]

    def write(self) -> None:
        self.docs.mkdir(parents=True, exist_ok=True)
        (self.root / "mkdocs.yml").write_text(config(self.kind, self.flavour, self.names))
        (self.docs / "index.md").write_text("# Benchmark\n\nA site to time.\n")
        if self.kind == "real" and self.flavour == "lessonkit":
            shutil.copy(GLOSSARY, self.docs / GLOSSARY.name)
        for name in self.names:
            self.write_page(name)

    def text(self, name: str) -> str:
        if self.kind == "real":
            return real_page(self.flavour)
        return synthetic_page(int(name[5:8]), self.flavour)

    def write_page(self, name: str, extra: str = "") -> None:
        (self.docs / name).write_text(self.text(name) + extra)

    def command(self) -> list[str]:
        # Not -q: a lessonkit build says how many pages ran at INFO.
        return [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(self.config)]

    @property
    def config(self) -> Path:
        return self.root / "mkdocs.yml"

    def build(self, what: str) -> tuple[float, str]:
        """Build in a fresh process; its wall-clock seconds and what it logged."""
        start = time.perf_counter()
        done = subprocess.run(self.command(), env=self.env, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"the {what} build failed:\n{done.stderr[-3000:]}")
        return time.perf_counter() - start, done.stderr


def pages_ran(log: str) -> int:
    """How many pages a lessonkit build ran, from its own INFO line."""
    found = re.search(r"lessonkit(?: prepare)?: (?:\d+ page\(s\), )?(\d+) (?:page\(s\) )?ran", log)
    if not found:
        raise SystemExit(f"the build did not say how many pages ran:\n{log[-2000:]}")
    return int(found[1])


def check_ran(what: str, log: str, executes: int | None) -> None:
    """Stop unless the build ran ``executes`` pages (None: any number)."""
    if executes is not None and (ran := pages_ran(log)) != executes:
        raise SystemExit(f"the {what} build ran {ran} pages, not {executes}")


def snapshot(folder: Path, ref: str | None = None) -> dict[str, str]:
    """An environment whose builds import a copy of lessonkit taken now (or at git ``ref``).

    An edit to the working tree during the run would turn a warm build cold. The copy is
    compiled to bytecode, as pip compiles an installed package.
    """
    copy = folder / "src" / "lessonkit"
    shutil.rmtree(copy, ignore_errors=True)
    if ref is None:
        shutil.copytree(SOURCE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", "--format=tar", ref, "src/lessonkit"],
            capture_output=True,
            check=False,
        )
        if archive.returncode != 0:
            raise SystemExit(f"--against {ref}: {archive.stderr.decode(errors='replace')}")
        with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
            tar.extractall(folder, filter="data")
    compileall.compile_dir(copy, quiet=1)
    return {**ENV, "PYTHONPATH": str(copy.parent)}


# --- measuring --------------------------------------------------------------------------------


@dataclass
class Measured:
    """What one size of one kind of site measured."""

    kind: str
    pages: int
    times: dict[str, list[float]] = field(default_factory=dict)
    """Each row's wall-clock seconds, one per run (the floor: two per run)."""
    ratios: dict[str, list[float]] = field(default_factory=dict)
    """Each row's ratio to its baseline, one per run (see :meth:`Bench.run`)."""
    memory: dict[str, Peak] = field(default_factory=dict)
    saves: dict[str, Served] = field(default_factory=dict)

    def median(self, row: str) -> float:
        return statistics.median(self.times[row])

    def ratio(self, row: str) -> float:
        return statistics.median(self.ratios[row])

    def add(self, row: str, seconds: float, ratio: float | None = None) -> None:
        self.times.setdefault(row, []).append(seconds)
        if ratio is not None:
            self.ratios.setdefault(row, []).append(ratio)


class Bench:
    """One size of one kind of site: its flavours on disk, and what they measured."""

    def __init__(
        self, kind: str, pages: int, folder: Path, envs: dict[str, dict[str, str]]
    ) -> None:
        self.measured = Measured(kind, pages)
        flavours = {"floor": "floor", "lessonkit": "lessonkit", "before": "lessonkit"}
        if kind == "synthetic":
            flavours["markdown-exec"] = "markdown-exec"
        if "before" not in envs:
            del flavours["before"]
        self.sites = {
            key: Site(folder / key, kind, flavour, pages, envs.get(key, envs["lessonkit"]))
            for key, flavour in flavours.items()
        }
        for site in self.sites.values():
            site.write()

    def lessonkit(self, key: str, row: str, cold: bool) -> tuple[float, str]:
        """Build lessonkit (``key``: now or before), cold or warm; check what ran."""
        site = self.sites[key]
        if cold:
            shutil.rmtree(site.root / ".lessonkit", ignore_errors=True)
        seconds, log = site.build(row)
        check_ran(row, log, self.measured.pages if cold else 0)
        return seconds, log

    def run(self) -> None:
        """One run: markdown-exec, lessonkit cold (and before's), floor, lessonkit warm (and
        before's), floor. Warm is divided by the mean of the floors just around it (the machine's
        speed drifts within a minute); cold by this run's markdown-exec, or that mean (real)."""
        m, sites = self.measured, self.sites
        if "markdown-exec" in sites:
            m.add("markdown-exec", sites["markdown-exec"].build("markdown-exec")[0])
        keys = [(k, p) for k, p in (("lessonkit", ""), ("before", "before-")) if k in sites]
        builds = {p + "cold": self.lessonkit(k, p + "cold", cold=True)[0] for k, p in keys}
        first = sites["floor"].build("floor")[0]
        builds |= {p + "warm": self.lessonkit(k, p + "warm", cold=False)[0] for k, p in keys}
        last = sites["floor"].build("floor")[0]
        m.add("floor", first)
        m.add("floor", last)
        floor = (first + last) / 2
        if "markdown-exec" in sites:
            m.ratios.setdefault("markdown-exec", []).append(m.times["markdown-exec"][-1] / floor)
        cold_to = m.times["markdown-exec"][-1] if "markdown-exec" in sites else floor
        for row, seconds in builds.items():
            m.add(row, seconds, seconds / (floor if row.endswith("warm") else cold_to))

    def memory(self) -> None:
        """Peak memory of one build of each flavour, lessonkit cold and warm (the median of 3)."""
        found = self.measured.memory
        for key, site in self.sites.items():
            if site.flavour != "lessonkit":
                found[key] = run_sampled(site.command(), site.env, f"the {key} build")[0]
                continue
            prefix = "" if key == "lessonkit" else "before-"
            shutil.rmtree(site.root / ".lessonkit", ignore_errors=True)
            for row, executes in (("cold", self.measured.pages), ("warm", 0)):
                peaks = []
                for _ in range(1 if row == "cold" else 3):  # one warm sample varies by 5 %
                    peak, log = run_sampled(site.command(), site.env, f"the {prefix}{row} build")
                    check_ran(prefix + row, log, executes)
                    peaks.append(peak)
                found[prefix + row] = sorted(peaks, key=lambda p: p.pss)[len(peaks) // 2]

    def serve(self, saves: int) -> None:
        """Seconds from a prose save to the page served, for the floor and lessonkit."""
        m = self.measured
        startup = 60 + 5 * max(m.times["cold"])
        timeout = 30 + 3 * max(m.times["warm"])
        for key, site in self.sites.items():
            if key != "markdown-exec":
                m.saves[key] = prose_saves(site, saves, startup, timeout)


def prose_saves(site: Site, saves: int, startup: float, timeout: float) -> Served:
    """Start the preview of ``site``, wait for its first build, then time ``saves`` prose saves
    (each adds a fresh word at the end of one page); the page is put back after."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/{site.edited[:-3]}/"
    log = site.root / "serve.log"
    command = [sys.executable, "-m", *SERVE.split(), "-f", str(site.config)]
    command += ["-a", f"127.0.0.1:{port}"]
    try:
        with serving(command, site.env, log, FAILED_REBUILD) as server:
            try:
                wait_for(server, url, "</html>", startup)
            except ServeFailure as failure:
                return Served(failure=f"first build: {failure}")

            def save(word: str) -> None:
                site.write_page(site.edited, extra=f"\n\nEdited prose: {word}.\n")

            return time_saves(server, url, save, saves, timeout)
    finally:
        site.write_page(site.edited)


def measure(
    kind: str, pages: int, args: argparse.Namespace, envs: dict[str, dict[str, str]]
) -> Measured:
    """Every measurement of one size of one kind of site."""
    name = f"{pages} pages, {kind}"
    bench = Bench(kind, pages, args.folder / f"{kind}-{pages}", envs)
    for run in range(args.runs):
        progress(f"{name}: run {run + 1} of {args.runs}")
        bench.run()
    progress(f"{name}: peak memory")
    bench.memory()
    progress(f"{name}: {args.saves} prose saves under {SERVE}")
    bench.serve(args.saves)
    for key, served in bench.measured.saves.items():
        if served.failure:
            progress(f"{name}, {key}'s saves: {served.failure}")
    return bench.measured


# --- reporting --------------------------------------------------------------------------------


def seconds_list(values: list[float]) -> str:
    return " ".join(f"{v:.2f}" for v in values)


def label(template: str, ref: str | None) -> str:
    return template.format(ref=f"`{ref}`")


def times_table(m: Measured, runs: int, ref: str | None) -> str:
    """Each row's median seconds, its ratio to its baseline and every build's seconds."""
    lines = [
        f"| {m.pages} pages, {KINDS[m.kind]}, {runs} runs | median (s) | ratio | each (s) |",
        "| --- | ---: | --- | --- |",
    ]
    cold_to = "markdown-exec" if m.kind == "synthetic" else "floor"
    unit = {"markdown-exec": "floor", "cold": cold_to, "warm": "floor", "floor": "floor"}
    for row, template in ROWS.items():
        if row not in m.times:
            continue
        ratio = 1.0 if row == "floor" else m.ratio(row)
        base = unit[row.removeprefix("before-")]
        lines.append(
            f"| {label(template, ref)} | {m.median(row):.2f} | {ratio:.2f} x {base} | "
            f"{seconds_list(m.times[row])} |"
        )
    return "\n".join(lines)


def memory_table(m: Measured, ref: str | None) -> str:
    """Peak memory of one build of each row, every process it starts."""
    lines = [
        f"| {m.pages} pages, {KINDS[m.kind]}, one build (warm: median of 3) "
        "| peak memory (MB of PSS) | x floor | processes at most |",
        "| --- | ---: | ---: | ---: |",
    ]
    floor = m.memory["floor"].pss
    for row in (row for row in ROWS if row in m.memory):
        peak = m.memory[row]
        lines.append(
            f"| {label(ROWS[row], ref)} | {peak.pss / 1e6:.0f} | {peak.pss / floor:.2f} | "
            f"{peak.processes} |"
        )
    return "\n".join(lines)


def saves_table(m: Measured, saves: int, ref: str | None) -> str:
    """Each flavour's median seconds from a prose save to the page served."""
    lines = [
        f"| {m.pages} pages, {KINDS[m.kind]}, `{SERVE}`, {saves} prose saves "
        "| median save to served (s) | each save (s) |",
        "| --- | ---: | --- |",
    ]
    for key, served in m.saves.items():
        each = seconds_list(served.seconds) + (" (failed)" if served.failure else "")
        lines.append(f"| {label(SAVE_ROWS[key], ref)} | {served.median:.2f} | {each} |")
    return "\n".join(lines)


@dataclass
class Target:
    """One verdict: what was measured against its limit."""

    name: str
    measured: float
    limit: float
    unit: str

    @property
    def ok(self) -> bool:
        return self.measured <= self.limit

    def row(self) -> str:
        verdict = "PASS" if self.ok else "FAIL"
        return (
            f"| {self.name} | {self.measured:.2f} {self.unit} | {self.limit:.2f} {self.unit} "
            f"| {verdict} |"
        )


MEMORY_NOISE = 1.05
"""Peak memory is sampled every 20 ms: "no higher than before" allows this much."""


def targets(results: list[Measured], ref: str | None) -> list[Target]:
    """The issue's targets: cold <= 0.80x markdown-exec, warm <= 1.10x the floor (synthetic),
    a prose save served within 1 s below ``LARGE`` pages; with ``--against``, peak memory no
    higher than before."""
    found = []
    for m in results:
        name = f"{m.pages} pages, {m.kind}"
        if m.kind == "synthetic":
            found.append(Target(f"{name}: cold build", m.ratio("cold"), 0.80, "x markdown-exec"))
            found.append(Target(f"{name}: warm build", m.ratio("warm"), 1.10, "x floor"))
        if m.pages < LARGE:
            served = m.saves["lessonkit"].median
            found.append(Target(f"{name}: prose save to served", served, 1.0, "s"))
        if ref is not None:
            for row in ("cold", "warm"):
                ratio = m.memory[row].pss / m.memory[f"before-{row}"].pss
                limit, unit = MEMORY_NOISE, f"x {ref}"
                found.append(Target(f"{name}: peak memory, {row}", ratio, limit, unit))
    return found


def targets_table(checks: list[Target]) -> str:
    lines = ["| target | measured | limit | verdict |", "| --- | ---: | ---: | --- |"]
    lines += [check.row() for check in checks]
    met = sum(check.ok for check in checks)
    return "\n".join(lines) + f"\n\n{met} of {len(checks)} targets met."


INTRO = """\
`scripts/benchmark.py` times what a person waits for, in fresh `mkdocs build` processes, with
every baseline built in the same run: a cold first build (empty cache) against markdown-exec
running the same blocks, a warm build (nothing changed) against the floor (the same pages with
nothing executed and no lessonkit), and the seconds from a prose save to the page served under
`mkdocs serve --dirty`. Two kinds of site: synthetic pages (600 words and four blocks each: a
setup, a softmax table, a 3x3 attention table and a 6x6 heatmap), and this site's own lesson
copied N times (its links to other pages pointed at the home page). Peak memory is the largest
sum of the proportional set size of a build's process and every process it starts, read from
`/proc` every 20 ms (a warm lessonkit build: the median of three). Run it again to refresh
this section: `.venv/bin/python scripts/benchmark.py --against main --write`."""


def header(args: argparse.Namespace, *more: str) -> str:
    """The line above a run's tables: when, on what, how many runs, and ``more``."""
    said = [f"Python {sys.version.split()[0]}", f"{CORES} CPU cores", f"{args.runs} runs", *more]
    return f"Latest run ({date.today().isoformat()}; {', '.join(said)}):"


# --- notebooks side by side -------------------------------------------------------------------

NB_SECTION = "## Notebooks side by side"
MKDOCS = ["-m", "mkdocs", "build", "--strict"]
JUPYTER_BOOK = ["-c", "from jupyter_book.cli.main import main; main()", "build", "docs"]
BUILDS = {  # a tool: its command after its Python, what a cold build removes, where pages go
    "lessonkit": (MKDOCS, ".lessonkit", "site"),
    "mkdocs-jupyter": (MKDOCS, ".cache", "site"),
    "jupyter-book": (JUPYTER_BOOK, "docs/_build", "docs/_build/html"),
}
NB_INTRO = """\
`scripts/benchmark.py --kinds notebooks --peers PYTHON...` builds `tests/notebooks/corpus/`
unedited with lessonkit, mkdocs-jupyter (`execute: true`; both `mkdocs build --strict` with
Material) and Jupyter Book 1 (Sphinx, `execute_notebooks: cache`), each from its own Python:
cold (its cache removed), then warm, in each run; then once with a cell failing by mistake in
two notebooks. Each pattern is read from the built pages. Jupyter Book 2 (mystmd) builds no site
offline: it fetches its theme from api.mystmd.org (`getaddrinfo ENOTFOUND api.mystmd.org`)."""


def nb_config(tool: str) -> dict[str, str]:
    """The files (path: text) that make the corpus a site of ``tool``."""
    if tool == "jupyter-book":  # cached execution, as a warm build needs
        toc = "".join(f"  - file: {name}\n" for name in NOTEBOOKS)
        toc = f"format: jb-book\nroot: index\nchapters:\n{toc}"
        return {"docs/_toc.yml": toc, "docs/_config.yml": "execute:\n  execute_notebooks: cache\n"}
    suffix = ".ipynb" if tool == "mkdocs-jupyter" else ".md"
    nav = "".join(f"  - {name}\n" for name in ["index.md", *(n + suffix for n in NOTEBOOKS)])
    plugin = "lessonkit" if tool == "lessonkit" else "mkdocs-jupyter:\n      execute: true"
    theme = "theme:\n  name: material\n  font: false\n"
    return {
        "mkdocs.yml": f"site_name: corpus\n{theme}nav:\n{nav}plugins:\n  - search\n  - {plugin}\n"
    }


@dataclass
class Tool:
    """One tool building the corpus in its own folder, with the Python it is installed for."""

    name: str
    python: str
    env: dict[str, str]
    version: str = ""

    def write(self, root: Path, mistakes: bool = False) -> Path:
        copy_corpus(root, mistakes)
        for name, text in nb_config(self.name).items():
            (root / name).write_text(text)
        return root

    def build(self, root: Path, cold: bool) -> tuple[float, int, str]:
        """Build in a fresh process (cold: its cache removed first); seconds, exit code, log."""
        command, cache, _ = BUILDS[self.name]
        if cold:
            shutil.rmtree(root / cache, ignore_errors=True)
        start, command = time.perf_counter(), [self.python, *command]
        done = subprocess.run(command, cwd=root, env=self.env, capture_output=True, text=True)
        return time.perf_counter() - start, done.returncode, done.stdout + done.stderr


def find_peers(pythons: list[str]) -> list[Tool]:
    """mkdocs-jupyter and Jupyter Book 1, each from the first of ``pythons`` that has it."""
    found: dict[str, Tool] = {}
    for name, python in ((n, p) for n in list(BUILDS)[1:] for p in pythons):
        ask = f"import importlib.metadata as m; print(m.version({name!r}))"
        with contextlib.suppress(OSError):
            asked = subprocess.run([python, "-c", ask], capture_output=True, text=True)
            if asked.returncode == 0 and not asked.stdout.startswith("2.") and name not in found:
                path = f"{Path(python).parent}{os.pathsep}{os.environ['PATH']}"
                found[name] = Tool(name, python, {**ENV, "PATH": path}, asked.stdout.strip())
    for name in (name for name in list(BUILDS)[1:] if name not in found):
        progress(f"{name} is not installed (jupyter-book: 1.x) for any of --peers: no column")
    return list(found.values())


def side_by_side(args: argparse.Namespace, env: dict[str, str]) -> tuple[str, list[Target]]:
    """Each tool's builds of the corpus, as a table; and the issue's target."""
    tools = [Tool("lessonkit", sys.executable, env), *find_peers(args.peers)]
    folder, times, columns = args.folder / "notebooks", {}, {}
    for run, tool in ((run, tool) for run in range(args.runs) for tool in tools):
        progress(f"notebooks, {tool.name}: run {run + 1} of {args.runs}")
        root = tool.write(folder / tool.name) if run == 0 else folder / tool.name
        for row in ("cold", "warm"):
            seconds, code, log = tool.build(root, cold=row == "cold")
            if code:
                raise SystemExit(f"the {tool.name} {row} build failed:\n{log[-3000:]}")
            times.setdefault((tool.name, row), []).append(seconds)
    for tool in tools:
        mistakes = tool.build(tool.write(folder / f"{tool.name}-mistakes", True), cold=True)
        column = columns.setdefault(f"{tool.name} {tool.version}".strip(), {})
        for row, each in ((row, times[tool.name, row]) for row in ("cold", "warm")):
            column[f"{row} build (s)"] = f"{statistics.median(each):.2f} ({seconds_list(each)})"
        column |= probe(folder / tool.name / BUILDS[tool.name][2], *mistakes[1:])
    if ("mkdocs-jupyter", "cold") not in times:
        return nb_table(columns), []
    pairs = zip(times["lessonkit", "cold"], times["mkdocs-jupyter", "cold"], strict=True)
    ratio = statistics.median(ours / theirs for ours, theirs in pairs)
    return nb_table(columns), [Target("notebooks: cold build", ratio, 0.6, "x mkdocs-jupyter")]


def nb_table(columns: dict[str, dict[str, str]]) -> str:
    """One row per measure and pattern, one column per tool."""
    lines = ["| the corpus | " + " | ".join(columns) + " |", "| --- |" + " --- |" * len(columns)]
    for row in next(iter(columns.values())):
        lines.append(f"| {row} | " + " | ".join(c[row] for c in columns.values()) + " |")
    return "\n".join(lines)


# --- the command line -------------------------------------------------------------------------


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def positive(text: str) -> int:
    """An argument that counts something: a whole number of at least 1."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return int(text)


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=positive, nargs="+", default=[20, 200], help="sizes")
    parser.add_argument("--large", action="store_true", help=f"add {LARGE} pages")
    parser.add_argument("--runs", type=positive, default=3, help="interleaved runs per size")
    parser.add_argument("--saves", type=positive, default=7, help=f"prose saves under {SERVE}")
    kinds = [*KINDS, "notebooks"]
    parser.add_argument("--kinds", nargs="+", choices=kinds, default=list(KINDS), help="sites")
    parser.add_argument(
        "--peers",
        nargs="+",
        default=os.environ.get("BENCH_PEERS", "").split(),
        help="notebooks: Pythons with mkdocs-jupyter, jupyter-book<2 (or $BENCH_PEERS)",
    )
    parser.add_argument("--against", metavar="REF", help="also lessonkit at this git ref")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target fails")
    parser.add_argument("--keep", type=Path, help="build in this folder and keep it")
    parser.add_argument("--write", action="store_true", help="write the section into --out")
    parser.add_argument("--out", type=Path, default=BENCHMARKS, help="the file --write writes")
    args = parser.parse_args(argv)
    args.sizes = sorted({*args.pages, *([LARGE] if args.large else [])})
    if "synthetic" in args.kinds and importlib.util.find_spec("markdown_exec") is None:
        parser.error('markdown-exec is missing: install the bench extra, pip install -e ".[bench]"')
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    kinds, results, sections = [k for k in args.kinds if k in KINDS], [], {}
    with tempfile.TemporaryDirectory(prefix="lessonkit-bench-") as temporary:
        args.folder = args.keep or Path(temporary)
        envs = {"lessonkit": snapshot(args.folder / "now")}
        envs["floor"] = envs["markdown-exec"] = envs["lessonkit"]
        if args.against:
            envs["before"] = snapshot(args.folder / "before", args.against)
        against = [f"against `{args.against}`"] if args.against else []
        out = [header(args, f"{args.saves} prose saves", *against)]
        if kinds:
            print(out[0] + "\n", flush=True)
        for pages in args.sizes if kinds else []:
            for kind in kinds:
                m = measure(kind, pages, args, envs)
                results.append(m)
                tables = [
                    times_table(m, args.runs, args.against),
                    memory_table(m, args.against),
                    saves_table(m, args.saves, args.against),
                ]
                out += tables
                print("\n\n".join(tables), end="\n\n", flush=True)
        checks = targets(results, args.against)
        if kinds:
            out.append(targets_table(checks))
            print(out[-1])
            sections[SECTION] = f"{SECTION}\n\n{INTRO}\n\n" + "\n\n".join(out) + "\n"
        if "notebooks" in args.kinds:
            table, found = side_by_side(args, envs["lessonkit"])
            checks += found
            out = [header(args), table, targets_table(found)]
            print("\n\n".join(out[1:]))
            sections[NB_SECTION] = f"{NB_SECTION}\n\n{NB_INTRO}\n\n" + "\n\n".join(out) + "\n"
    for heading, section in sections.items() if args.write else ():
        if not args.out.exists():
            args.out.write_text("# Benchmarks\n")
        write_section(args.out, heading, section)
        print(f"\nwrote the {heading[3:]!r} section of {args.out}")
    return 1 if args.check and not all(check.ok for check in checks) else 0


if __name__ == "__main__":
    sys.exit(main())
