"""Benchmark lessonkit's execution against a plain build and against markdown-exec.

Builds a synthetic site (pages of ~600 words of prose and four executable blocks: a setup, a
softmax table, a 3x3 attention table and a 6x6 heatmap) in a temporary folder, once per size,
and times, in interleaved runs, fresh ``mkdocs build`` processes:

- floor: the same Markdown with the blocks as plain code, no execution (Material only);
- markdown-exec: the same blocks executed by markdown-exec (``exec="on"``, one session a page);
- blocks alone: every page's blocks run in one plain Python process (imports included), and
  each page's in its own process, forked from one that imported the libraries (pages share no
  state there, as lessonkit's may not: the cold target's baseline);
- lessonkit: cold (empty cache), warm (nothing changed), one page's prose edited, one page's
  code edited; and that page's blocks alone in a plain Python process.

Each run builds markdown-exec, both blocks-alone runs and lessonkit cold once, then takes
``--turns`` turns of lessonkit warm, after a prose edit and after a code edit, in a chain where
a floor build comes before and after each of them (floor, warm, floor, prose, floor, code,
floor, ...). Each is divided by the mean of the two floor builds around it: the floor's time at
that moment, interpolated. The warm and prose targets are the closest calls, and the machine's
noise is larger than lessonkit's overhead: five turns a run give 25 ratios for each median.
Then, once per size: the peak memory of one floor, one cold and one warm build (every process of
each: see ``peak_memory.py``) and of the blocks alone, the cache the cold build leaves, and
save-to-served seconds under ``mkdocs serve --dirty`` (``serve_timing.py``) for a prose edit
(floor and lessonkit) and a code edit. ``--instructions`` adds what one floor, one warm and one
prose-edited build execute, counted by valgrind: a ratio the machine's load does not move; and
one build of *outputs*, the same pages as static Markdown: lessonkit's outputs pasted in (shown
code, Markdown tables, rendered from the lessonkit pages by lessonkit's own ``render()``), each
figure put in by a MkDocs hook once the page is written (as lessonkit keeps figures away from
Python-Markdown and the search index), built by plain MkDocs: the same articles and search index
as lessonkit's. Warm over outputs is lessonkit's own work (the instructions target); outputs over
the floor, what the content costs.

It prints the medians as Markdown tables with ratios to the floor, then checks the targets
(issues 3 and 24), each a ratio within the run. ``--large`` adds 1,000 pages, where a build takes
about a minute on two cores: there at most 2 runs of 2 turns and 3 saves, and instructions only
when that size is named (``--instructions 20 200 1000``).

``--hosts`` measures the host instead, side by side in one run: the floor and lessonkit cold and
warm under MkDocs (``mkdocs build``) and under Zensical (``lessonkit prepare`` then ``zensical
build --clean``: Zensical converts every page, as MkDocs does), each ratio to that host's own
floor (the same pages without lessonkit, built by the same host just before and just after).

    .venv/bin/python scripts/benchmark.py                 # 20 and 200 pages, 5 runs
    .venv/bin/python scripts/benchmark.py --write-docs    # also record it on the docs page
    .venv/bin/python scripts/benchmark.py --instructions   # also count instructions
    .venv/bin/python scripts/benchmark.py --large --instructions --check   # 20, 200 and 1000
    .venv/bin/python scripts/benchmark.py --pages 2 4 --runs 1 --turns 1 --check
    .venv/bin/python scripts/benchmark.py --hosts --pages 20 --runs 3   # MkDocs and Zensical
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import itertools
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from docs_section import write_section
from peak_memory import INTERVAL, Peak, run_sampled
from serve_timing import Served, ServeFailure, free_port, serving, time_saves, wait_for

ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src" / "lessonkit"
DOCS_PAGE = ROOT / "docs" / "about" / "how-this-site-is-built.md"
SECTION = "## Build speed"
EDITED = 1
"""The page whose prose, then code, the edit scenarios change."""
SVG_LIMIT = 20_000
"""Bytes a 6x6 heatmap's inline SVG may weigh."""

ROWS = {
    "floor": "floor: Material, blocks shown as plain code",
    "markdown-exec": "markdown-exec, executing the blocks",
    "blocks": "the blocks alone, one Python process",
    "isolated": "the blocks alone, each page in its own process (forked)",
    "cold": "lessonkit, cold (empty cache)",
    "warm": "lessonkit, warm (nothing changed)",
    "prose": "lessonkit, one page's prose edited",
    "code": "lessonkit, one page's code edited",
    "page": "that page's blocks alone, one Python process",
}
COUNTED_ROWS = {
    "floor": ROWS["floor"],
    "outputs": "the same pages, static: lessonkit's outputs pasted in, no lessonkit",
    "warm": ROWS["warm"],
    "prose": ROWS["prose"],
}
"""The builds ``--instructions`` counts: the timed ones' and, for reference, the outputs flavour."""

# --- the synthetic site -------------------------------------------------------------------

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
    *("prediction", "sentence", "word", "meaning", "neighbour", "example", "number", "figure"),
)
FILLER = ("the", "a", "of", "to", "and", "in", "that", "each", "every", "which", "with", "how")


def blocks(seed: int) -> list[str]:
    """The four blocks' sources for a page whose random numbers come from ``seed``."""
    return [SETUP.format(seed=seed), SOFTMAX_TABLE, ATTENTION_TABLE, HEATMAP]


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


def page(number: int, flavour: str, seed: int, extra: str = "") -> str:
    """Page ``number`` as Markdown; ``flavour`` is ``floor``, ``markdown-exec`` or ``lessonkit``
    (``outputs`` starts as lessonkit's: :class:`OutputsSite` then renders it)."""
    rng = random.Random(number)
    text = prose(rng, 600)
    setup, softmax_table, attention_table, heatmap = blocks(seed)
    session = f'session="page-{number}"'
    fences = {
        "floor": [("", setup), ("", softmax_table), ("", attention_table), ("", heatmap)],
        "markdown-exec": [
            (f'exec="on" {session}', setup),
            (f'exec="on" {session} source="above"', softmax_table),
            (f'exec="on" {session} source="above"', attention_table),
            (f'exec="on" {session} source="above" html="true"', heatmap + SAVE_SVG),
        ],
        "lessonkit": [
            ('exec source="hide"', setup),
            ('exec output="markdown"', softmax_table),
            ('exec output="markdown"', attention_table),
            (f'exec alt="{HEATMAP_ALT}"', heatmap),
        ],
    }["lessonkit" if flavour == "outputs" else flavour]
    parts = [f"---\ntitle: Page {number}\ndescription: Page {number}.\n---\n", f"# Page {number}\n"]
    for index, (options, code) in enumerate(fences):
        parts += [f"## Section {index + 1}\n", *text[index::4]]
        parts.append(f"```python {options}".rstrip() + f"\n{code}\n```\n")
    if extra:
        parts.append(extra)
    return "\n\n".join(parts)


def config(flavour: str, pages: int) -> str:
    """The ``mkdocs.yml`` of one flavour of the synthetic site."""
    plugins = {
        "floor": ["search"],
        "outputs": ["search"],
        "markdown-exec": ["search", "markdown-exec"],
        "lessonkit": ["search", "lessonkit"],
    }[flavour]
    nav = "\n".join(f"  - Page {n}: page-{n:03d}.md" for n in range(1, pages + 1))
    plugin_lines = "\n".join(f"  - {p}" for p in plugins)
    hooks = "hooks: [figures.py]\n" if flavour == "outputs" else ""  # see OutputsSite
    return f"""\
site_name: benchmark ({flavour})
theme:
  name: material
  font: false
  features: [navigation.instant, content.code.copy]
nav:
  - Home: index.md
{nav}
plugins:
{plugin_lines}
{hooks}markdown_extensions:
  - admonition
  - attr_list
  - md_in_html
  - tables
  - toc:
      permalink: true
  - pymdownx.highlight
  - pymdownx.superfences
"""


@dataclass
class Site:
    """One flavour of the synthetic site on disk."""

    root: Path
    flavour: str
    pages: int

    @property
    def docs(self) -> Path:
        return self.root / "docs"

    @property
    def site(self) -> Path:
        return self.root / "site"

    def write(self) -> None:
        self.docs.mkdir(parents=True, exist_ok=True)
        (self.root / "mkdocs.yml").write_text(config(self.flavour, self.pages))
        (self.docs / "index.md").write_text("# Benchmark\n\nA synthetic site.\n")
        for n in range(1, self.pages + 1):
            self.write_page(n, seed=n)

    def write_page(self, number: int, seed: int, extra: str = "") -> None:
        path = self.docs / f"page-{number:03d}.md"
        path.write_text(page(number, self.flavour, seed, extra))

    def command(self) -> list[str]:
        config = str(self.root / "mkdocs.yml")
        # Not -q: a lessonkit build says how many pages ran at INFO (every flavour alike).
        return [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", config]

    def serve_command(self, port: int) -> list[str]:
        """``SERVE`` for this site on ``port``."""
        config = str(self.root / "mkdocs.yml")
        return [sys.executable, "-m", *SERVE.split(), "-f", config, "-a", f"127.0.0.1:{port}"]

    def build(self) -> float:
        """Run ``mkdocs build`` in a fresh process; return its wall-clock seconds."""
        return timed(self.command(), f"the {self.flavour} build")


RENDER = """\
import sys
from pathlib import Path

from lessonkit.execute.program import parse_program
from lessonkit.execute.render import render
from lessonkit.execute.runner import run_program

FIGURE = '<figure class="lk-figure">'
figures = Path(sys.argv[1])
for name in sys.argv[2:]:
    path = Path(name)
    front, fence, body = path.read_text().partition("\\n---\\n")
    program = parse_program(body, page=path.name)
    result = run_program(program, path.name, source_text=body)
    if not result.ok:
        raise SystemExit(f"{path}: {result.problems}")
    kept = []

    def keep(html):
        if not html.startswith(FIGURE):
            return html
        kept.append(html)
        slot = f"{path.stem}-{len(kept)}"
        (figures / f"{slot}.html").write_text(html)
        return f'<figure class="lk-figure" data-slot="{slot}"></figure>'

    path.write_text(front + fence + render(body, program, result, stash=keep))
"""
"""Replace each named lessonkit page's blocks with what they produce, as lessonkit's own
``render()`` does; each figure goes into a file of the figures folder (the first argument), an
empty ``<figure>`` naming it in its place."""
FIGURES_HOOK = """\
import re
from pathlib import Path

FIGURES = Path(__file__).parent / "figures"
SLOT = re.compile(r'<figure class="lk-figure" data-slot="([\\w-]+)"></figure>')


def on_post_page(output, page, config):
    return SLOT.sub(lambda slot: (FIGURES / f"{slot[1]}.html").read_text(), output)
"""
"""The outputs site's MkDocs hook: each figure put into its page once the page is written, after
the search index was made, as lessonkit does, so Python-Markdown never parses it and the index
never holds it."""


@dataclass
class OutputsSite(Site):
    """The same pages as static Markdown, without lessonkit: each lessonkit page with its blocks
    run and rendered by lessonkit in one plain Python process, built by plain MkDocs, whose hook
    (``FIGURES_HOOK``) puts each figure into its page after the search index was made, as
    lessonkit does; its pages' articles are the same HTML as lessonkit's."""

    rendered: bool = field(default=False, init=False)
    """Whether :meth:`write` rendered every page (until then a page waits to be rendered)."""

    @property
    def figures(self) -> Path:
        return self.root / "figures"

    def write(self) -> None:
        super().write()
        self.figures.mkdir(exist_ok=True)
        (self.root / "figures.py").write_text(FIGURES_HOOK)
        self.render(range(1, self.pages + 1))  # one process: numpy and matplotlib load once
        self.rendered = True

    def write_page(self, number: int, seed: int, extra: str = "") -> None:
        super().write_page(number, seed, extra)
        if self.rendered:
            self.render([number])

    def render(self, numbers: Iterable[int]) -> None:
        names = [str(self.docs / f"page-{n:03d}.md") for n in numbers]
        command = [sys.executable, "-c", RENDER, str(self.figures), *names]
        done = subprocess.run(command, env=ENV, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"rendering the outputs pages failed:\n{done.stderr[-3000:]}")


HOSTS = ("MkDocs", "Zensical")
HOST_ROWS = {
    "floor": "floor: blocks shown as plain code",
    "cold": "lessonkit, cold (empty cache)",
    "warm": "lessonkit, warm (nothing changed)",
}
ZENSICAL_LINES = """\
  - lessonkit.hosts.zensical
extra_css: [assets/lessonkit/lessonkit.css]
extra_javascript: [assets/lessonkit/lessonkit.js]
watch: [docs]
"""


@dataclass
class HostSite(Site):
    """One flavour of the synthetic site built by ``host``: MkDocs or Zensical."""

    host: str = "MkDocs"

    def write(self) -> None:
        super().write()
        if self.host == "Zensical" and self.flavour == "lessonkit":
            config = self.root / "mkdocs.yml"
            config.write_text(config.read_text() + ZENSICAL_LINES)

    def build(self) -> float:
        """One whole build in fresh processes (Zensical: ``lessonkit prepare`` first)."""
        if self.host == "MkDocs":
            return super().build()
        config = str(self.root / "mkdocs.yml")
        seconds, said = 0.0, ""
        if self.flavour == "lessonkit":
            prepare = [sys.executable, "-m", "lessonkit.cli", "-f", config, "prepare"]
            seconds += timed(prepare, "lessonkit prepare")
            said = LOG[0]  # prepare, not Zensical, says how many pages ran
        zensical = [sys.executable, "-m", "zensical", "build", "--clean", "--strict", "-f", config]
        seconds += timed(zensical, f"the Zensical {self.flavour} build")
        LOG[0] = said + LOG[0]
        return seconds


def measure_hosts(
    pages: int, runs: int, turns: int, folder: Path, progress: Callable[[str], None]
) -> dict[str, dict[str, list[float]]]:
    """Each host's floor and lessonkit cold and warm builds, each divided by the mean of that
    host's floor builds right before and right after it: host -> scenario -> ratios (and
    ``<scenario> s`` -> seconds)."""
    sites = {
        (host, flavour): HostSite(folder / f"{host}-{flavour}", flavour, pages, host)
        for host in HOSTS
        for flavour in ("floor", "lessonkit")
    }
    for site in sites.values():
        site.write()
    found: dict[str, dict[str, list[float]]] = {
        host: {key: [] for name in HOST_ROWS for key in (name, f"{name} s")} for host in HOSTS
    }
    for run in range(runs):
        progress(f"{pages} pages, hosts: run {run + 1} of {runs}")
        for host in HOSTS:
            floor, lessonkit = sites[host, "floor"], sites[host, "lessonkit"]
            cache = lessonkit.root / ".lessonkit"
            before = floor.build()
            found[host]["floor s"].append(before)
            for scenario in ["cold"] + ["warm"] * turns:
                if scenario == "cold":
                    shutil.rmtree(cache, ignore_errors=True)
                seconds = lessonkit.build()
                check_ran(f"{host} {scenario}", LOG[0], pages if scenario == "cold" else 0)
                after = floor.build()
                found[host]["floor s"].append(after)
                found[host][f"{scenario} s"].append(seconds)
                found[host][scenario].append(seconds / ((before + after) / 2))
                before = after
    for host in HOSTS:
        found[host]["floor"] = [1.0]
    return found


def hosts_table(pages: int, runs: int, found: dict[str, dict[str, list[float]]]) -> str:
    head = f"| {pages} pages, {runs} runs | " + " | ".join(f"{h} (s) | x floor" for h in HOSTS)
    lines = [head + " |", "| --- |" + " ---: | ---: |" * len(HOSTS)]
    for key, label in HOST_ROWS.items():
        medians = [
            (statistics.median(found[h][f"{key} s"]), statistics.median(found[h][key]))
            for h in HOSTS
        ]
        cells = [f"{seconds:.2f} | {ratio:.2f}" for seconds, ratio in medians]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def blocks_script(seeds: list[int], *, isolated: bool = False, at_once: int = 1) -> str:
    """A plain Python program running each page's blocks in its own namespace, figures to SVG.

    ``isolated``: each page in a fresh process forked from one that imported the libraries (and
    the lab module the pages use, which lessonkit's zygote leaves to them: a baseline that costs
    each page about 0.1 ms less), drew and saved a figure once as lessonkit's zygote does (an
    image, a line, ticks, a title, labels, ``tight_layout``: matplotlib's caches) and froze what
    it holds (``gc.freeze``), ``at_once`` pages at a time (the memory target's baseline runs as
    many as lessonkit's workers; the time target's runs one and divides by the cores): pages
    share no state, as lessonkit's may not (a page can change NumPy's print options, the RNGs,
    matplotlib's settings), at the least it can cost. A page that fails stops the script.
    """
    pages = [blocks(seed) for seed in seeds]
    run_page = """\
    namespace = {"__name__": "__page__"}
    for source in sources:
        exec(compile(source, "<block>", "exec"), namespace)
    for number in plt.get_fignums():
        plt.figure(number).savefig(io.StringIO(), format="svg")
    plt.close("all")"""
    if not isolated:
        return f"""\
import io
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

for sources in {pages!r}:
{run_page}
"""
    return f"""\
import gc
import io
import os
import signal
import sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy
from matplotlib.figure import Figure

import lessonkit.lab.attention

figure = Figure(figsize=(2, 2))
axes = figure.add_subplot()
axes.imshow([[0.0, 1.0], [1.0, 0.0]])
axes.plot([0, 1], [1, 0])
axes.set_xticks([0, 1], ["a", "b"])
axes.set(title="warm", xlabel="x", ylabel="y")
figure.tight_layout()
figure.savefig(io.StringIO(), format="svg")
del figure, axes
gc.freeze()


running = set()


def wait_for_one():
    pid, status = os.wait()
    running.discard(pid)
    if status:
        for other in running:  # stop the pages beside it: the run ends here
            os.kill(other, signal.SIGKILL)
            os.waitpid(other, 0)
        raise SystemExit("a page failed")


for sources in {pages!r}:
    if len(running) == {at_once}:
        wait_for_one()
    if pid := os.fork():
        running.add(pid)
        continue
{run_page}
    sys.stdout.flush()
    os._exit(0)
while running:
    wait_for_one()
"""


def run_python(code: str, folder: Path) -> float:
    """Run ``code`` in a fresh Python process; return its wall-clock seconds."""
    script = folder / "blocks.py"
    script.write_text(code)
    return timed([sys.executable, str(script)], "running the blocks")


LOG: list[str] = [""]
"""What the last timed command wrote to stderr (a lessonkit build says how many pages ran)."""


def timed(command: list[str], what: str) -> float:
    """Run ``command``; return its wall-clock seconds."""
    start = time.perf_counter()
    done = subprocess.run(command, env=ENV, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{what} failed:\n{done.stderr}")
    LOG[0] = done.stderr
    return wall


def pages_ran(log: str) -> int:
    """How many pages a lessonkit build ran, from its last line of its own, e.g.
    ``INFO - lessonkit: 3 page(s) ran, the rest came from cache``."""
    found = re.search(r"lessonkit(?: prepare)?: (?:\d+ page\(s\), )?(\d+) (?:page\(s\) )?ran", log)
    if not found:
        raise SystemExit(f"the build did not say how many pages ran:\n{log[-2000:]}")
    return int(found[1])


def stored(cache: Path) -> dict[str, int]:
    """The cache's entries, each by its file's inode: a page that ran writes a new file in its
    entry's place (a lookup only touches the entry's mtime, which tells nothing)."""
    return {path.name: path.stat().st_ino for path in cache.rglob("*.json")}


def instructions(command: list[str], what: str) -> tuple[int, str]:
    """How many instructions ``command`` executes, counted by valgrind, and its stderr.

    The count does not depend on how busy the machine is, so it shows what a build costs where
    wall-clock seconds only show what the machine allowed. Every counted build hashes strings
    with one seed (``PYTHONHASHSEED=0``, lessonkit's workers' own), and then its count repeats
    exactly: with a seed drawn per process, which orders sets and dicts, one build's count moved
    by up to 0.3% from one process to the next (20 pages: 5.203 to 5.218 billion; 200 pages:
    33.79 to 33.84), enough to move a ratio across 1.03. Only the build's own process is counted
    (not the workers it starts: a warm build runs none).
    """
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("--instructions needs valgrind (Debian: apt install valgrind)")
    counter = [valgrind, "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    env = {**ENV, "PYTHONHASHSEED": "0"}
    done = subprocess.run([*counter, *command], env=env, capture_output=True, text=True)
    total = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if done.returncode != 0 or not total:
        raise SystemExit(f"{what} failed under valgrind:\n{done.stderr[-3000:]}")
    return int(total[1].replace(",", "")), done.stderr


def snapshot(folder: Path) -> None:
    """Measure a copy of lessonkit's source taken now, whatever happens to the working tree.

    The cache key covers lessonkit's own source, so an edit made during the run would turn a
    warm build cold. Builds and block runs import lessonkit from the copy (``PYTHONPATH``),
    compiled to bytecode as pip compiles an installed package (MkDocs and Material are too).
    """
    copy = folder / "src" / "lessonkit"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(SOURCE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    compileall.compile_dir(copy, quiet=1)
    ENV["PYTHONPATH"] = str(copy.parent)


# --- measuring ----------------------------------------------------------------------------

LARGE = 1000
"""From this size on, a build takes about a minute on two cores: each size's plan is cut to
``LARGE_PLAN`` runs, turns and saves, and instructions are counted only when asked for."""
LARGE_PLAN = {"runs": 2, "turns": 2, "saves": 3}
SERVE = "mkdocs serve --dirty"
"""The preview command measured: ``--dirty`` rebuilds only what changed. Not ``--strict``: MkDocs
warns that a dirty build is one, and strict mode makes that warning fatal."""
FAILED_REBUILD = "An error happened during the rebuild"
"""What MkDocs' server logs when a rebuild fails (it then keeps serving the old site)."""
SERVE_ROWS = {
    "floor": "floor: one page's prose edited",
    "prose": "lessonkit: one page's prose edited",
    "code": "lessonkit: one page's code edited",
}
CORES = os.cpu_count() or 1
FOOTPRINT_ROWS = {
    **{key: ROWS[key] for key in ("floor", "blocks")},
    "isolated": f"{ROWS['isolated']}, {CORES} at once",
    **{key: ROWS[key] for key in ("cold", "warm")},
}


@dataclass(frozen=True)
class Plan:
    """What to measure at one site size."""

    pages: int
    runs: int
    turns: int
    saves: int
    count: bool = False
    """Count instructions under valgrind too."""

    @classmethod
    def of(cls, pages: int, runs: int, turns: int, saves: int, count: bool = False) -> Plan:
        """The plan asked for, cut to ``LARGE_PLAN`` from ``LARGE`` pages on.

        >>> Plan.of(1000, runs=5, turns=5, saves=5)
        Plan(pages=1000, runs=2, turns=2, saves=3, count=False)
        >>> Plan.of(200, runs=5, turns=5, saves=5).runs
        5
        """
        if pages >= LARGE:
            cap = LARGE_PLAN
            runs, turns, saves = (
                min(runs, cap["runs"]),
                min(turns, cap["turns"]),
                min(saves, cap["saves"]),
            )
        return cls(pages, runs, turns, saves, count)

    def describe(self, saves: bool = True) -> str:
        return f"{self.runs} runs of {self.turns} turns" + (
            f", {self.saves} saves" if saves else ""
        )


@dataclass
class CacheSize:
    """The files of the cache a cold build leaves, and the site's size."""

    size: int
    """Bytes of the files' contents."""
    disk: int
    """Bytes of disk they take (whole blocks)."""
    files: int
    pages: int

    @classmethod
    def of(cls, folder: Path, pages: int) -> CacheSize:
        found = [path.stat() for path in folder.rglob("*") if path.is_file()]
        disk = sum(stat.st_blocks * 512 for stat in found)
        return cls(sum(stat.st_size for stat in found), disk, len(found), pages)

    def sentence(self) -> str:
        return (
            f"The cache a cold build leaves (`.lessonkit/cache`): {self.files} files, "
            f"{self.size / self.pages / 1000:.1f} KB per page "
            f"({self.disk / self.pages / 1000:.1f} KB per page on disk, in whole blocks)."
        )


@dataclass
class Measured:
    """Every scenario's timings for one site size."""

    pages: int
    times: dict[str, list[list[float]]] = field(default_factory=lambda: {k: [] for k in ROWS})
    """Each scenario's wall-clock seconds: a list per run, of one build or of one per turn."""
    around: dict[str, list[list[tuple[float, float]]]] = field(default_factory=dict)
    """For the scenarios built once per turn: the floor builds made right before and right after
    each build."""
    weight: dict[str, object] = field(default_factory=dict)
    instructions: dict[str, int] = field(default_factory=dict)
    """With ``--instructions``: what one floor, one warm and one prose-edited build executed."""
    footprint: dict[str, Peak] = field(default_factory=dict)
    """Peak memory of one floor, one cold and one warm build (every process of each), and of
    the blocks alone."""
    cache: CacheSize | None = None
    """The cache a cold build leaves."""
    serve: dict[str, Served] = field(default_factory=dict)
    """Save-to-served seconds under the preview server, by edit (see ``SERVE_ROWS``)."""

    def samples(self, name: str) -> list[float]:
        return [t for run in self.times[name] for t in run]

    def median(self, name: str) -> float:
        """Median wall-clock seconds of scenario ``name``."""
        return statistics.median(self.samples(name))

    def floor_at(self, name: str, run: int, turn: int) -> float:
        """The floor's seconds when ``name`` was built: the mean of the floor builds around it.

        Builds seconds apart share the machine's load; averaging the builds on both sides halves
        the floor's own noise and cancels a load that rises or falls steadily.
        """
        before, after = self.around[name][run][turn]
        return (before + after) / 2

    def ratio(self, name: str, baseline: Callable[[int, int], float] | None = None) -> float:
        """Median of ``name``'s builds, each over ``baseline(run, turn)`` (by default the floor).

        A scenario built once per turn is divided by the floor's seconds at that moment (see
        :meth:`floor_at`); one built once per run, by the run's median floor. The ratio is
        steadier than a ratio of medians when the machine's load changes.
        """
        if name == "floor":
            return 1.0  # the floor is its own unit
        ratios = []
        for run, times in enumerate(self.times[name]):
            for turn, t in enumerate(times):
                if baseline:
                    ratios.append(t / baseline(run, turn))
                elif name in self.around:
                    ratios.append(t / self.floor_at(name, run, turn))
                else:
                    ratios.append(t / statistics.median(self.times["floor"][run]))
        return statistics.median(ratios)


def check_ran(scenario: str, log: str, executes: int) -> None:
    """Stop unless the build ran exactly ``executes`` pages (the engine's own count, from its
    ``log``, whose line names the pages that ran)."""
    if (ran := pages_ran(log)) != executes:
        said = re.search(r"lessonkit.*ran.*", log)
        line = said[0] if said else ""
        raise SystemExit(f"the {scenario} build ran {ran} pages, not {executes}: {line}")


class Bench:
    """One site size: its synthetic sites, and what has been measured on them so far."""

    def __init__(self, plan: Plan, folder: Path, progress: Callable[[str], None]) -> None:
        self.plan, self.folder, self.progress = plan, folder, progress
        self.sites = {f: Site(folder / f, f, plan.pages) for f in ("floor", "markdown-exec")}
        self.sites["lessonkit"] = self.lessonkit = Site(
            folder / "lessonkit", "lessonkit", plan.pages
        )
        for site in self.sites.values():
            site.write()
        self.cache = self.lessonkit.root / ".lessonkit"  # the cache (.lessonkit/cache), no more
        seeds = list(range(1, plan.pages + 1))
        self.all_blocks = blocks_script(seeds)
        self.isolated_blocks = blocks_script(seeds, isolated=True)
        self.isolated_together = blocks_script(seeds, isolated=True, at_once=CORES)  # memory
        self.measured = Measured(plan.pages)
        self.measured.around = {name: [] for name in ("warm", "prose", "code")}

    def build(self, scenario: str, executes: int) -> float:
        """Build the lessonkit site; fail unless exactly ``executes`` pages ran (the engine's
        count: a lookup may rewrite an entry with fresh stamps, so files tell less)."""
        seconds = self.lessonkit.build()
        check_ran(scenario, LOG[0], executes)
        return seconds

    def floor(self) -> float:
        """Build the floor (this run's next build of it)."""
        seconds = self.sites["floor"].build()
        self.measured.times["floor"][-1].append(seconds)
        return seconds

    def between_floors(self, name: str, executes: int, before: float) -> float:
        """Build lessonkit's scenario ``name``, then the floor; return that floor's seconds."""
        self.measured.times[name][-1].append(self.build(name, executes))
        after = self.floor()
        self.measured.around[name][-1].append((before, after))
        return after

    def run(self, run: int) -> None:
        """One run: markdown-exec, the blocks alone (in one process, then each page in its own)
        and lessonkit cold once, then ``turns``
        turns of lessonkit warm, prose-edited and code-edited, each between floor builds."""
        plan, measured, lessonkit = self.plan, self.measured, self.lessonkit
        self.progress(f"{plan.pages} pages: run {run + 1} of {plan.runs}")
        for table in (measured.times, measured.around):
            for per_run in table.values():
                per_run.append([])
        times = {name: per_run[-1] for name, per_run in measured.times.items()}
        times["markdown-exec"].append(self.sites["markdown-exec"].build())
        times["blocks"].append(run_python(self.all_blocks, self.folder))
        times["isolated"].append(run_python(self.isolated_blocks, self.folder))
        shutil.rmtree(self.cache, ignore_errors=True)
        times["cold"].append(self.build("cold", plan.pages))
        seeds: list[int] = []
        # Each build compared with the floor comes between two floor builds, seconds apart, so
        # that the load from elsewhere on the machine tends to hit all three alike.
        last = self.floor()
        for turn in range(plan.turns):
            edit = f"Edited prose, edit {run * plan.turns + turn + 1}.\n"
            last = self.between_floors("warm", 0, last)
            lessonkit.write_page(EDITED, seed=seeds[-1] if seeds else EDITED, extra=edit)
            last = self.between_floors("prose", 0, last)
            seeds.append(1000 * (run * plan.turns + turn + 1) + EDITED)  # no build saw it: a miss
            lessonkit.write_page(EDITED, seed=seeds[-1], extra=edit)
            last = self.between_floors("code", 1, last)
        times["page"] += [run_python(blocks_script([seed]), self.folder) for seed in seeds]
        lessonkit.write_page(EDITED, seed=EDITED)

    def sampled(self, site: Site, scenario: str, executes: int | None) -> Peak:
        """One build of ``site`` with its memory sampled (lessonkit: check what ran)."""
        peak, log = run_sampled(site.command(), ENV, f"the {scenario} build")
        if executes is not None:
            check_ran(scenario, log, executes)
        return peak

    def footprint(self) -> None:
        """Peak memory of one floor, one cold and one warm build, and of the blocks alone (in one
        process; each page in its own, as many at once as lessonkit runs); the cache the cold
        one left."""
        self.progress(f"{self.plan.pages} pages: peak memory of the floor, blocks, cold, warm")
        found = self.measured.footprint
        found["floor"] = self.sampled(self.sites["floor"], "floor", None)
        script = self.folder / "blocks.py"
        for key, code in (("blocks", self.all_blocks), ("isolated", self.isolated_together)):
            script.write_text(code)
            found[key] = run_sampled([sys.executable, str(script)], ENV, "running the blocks")[0]
        shutil.rmtree(self.cache, ignore_errors=True)
        found["cold"] = self.sampled(self.lessonkit, "cold", self.plan.pages)
        self.measured.cache = CacheSize.of(self.cache / "cache", self.plan.pages)
        found["warm"] = self.sampled(self.lessonkit, "warm", 0)

    def serve(self) -> None:
        """Save-to-served seconds under ``SERVE``: the floor's prose edit, then lessonkit's
        prose edit and code edit (one server each site); every page is put back after."""
        m, saves = self.measured, self.plan.saves
        self.progress(f"{self.plan.pages} pages: {saves} saves of each edit under {SERVE}")
        startup, timeout = 60 + 5 * m.median("cold"), 30 + 3 * m.median("warm")
        seeds = iter(range(10**6 + EDITED, 10**9, 1000))  # code no build has seen

        def edit(site: Site, code: bool = False) -> Callable[[str], None]:
            def save(word: str) -> None:
                seed = next(seeds) if code else EDITED
                site.write_page(EDITED, seed=seed, extra=f"Edited prose: {word}.\n")

            return save

        floor, lessonkit = self.sites["floor"], self.lessonkit
        edits = {"prose": edit(lessonkit), "code": edit(lessonkit, code=True)}
        m.serve = self.saves(floor, {"floor": edit(floor)}, startup, timeout)
        m.serve |= self.saves(lessonkit, edits, startup, timeout + m.median("page"))
        for name, served in m.serve.items():
            if served.failure:
                self.progress(f"{self.plan.pages} pages, serve, {name}: {served.failure}")

    def saves(
        self, site: Site, edits: dict[str, Callable[[str], None]], startup: float, timeout: float
    ) -> dict[str, Served]:
        """Start the preview of ``site``, wait for its first build, then time each edit's saves."""
        port = free_port()
        url = f"http://127.0.0.1:{port}/page-{EDITED:03d}/"
        log = self.folder / f"serve-{site.flavour}.log"
        try:
            with serving(site.serve_command(port), ENV, log, FAILED_REBUILD) as server:
                try:
                    wait_for(server, url, f"Page {EDITED}", startup)
                except ServeFailure as failure:
                    return {name: Served(failure=f"first build: {failure}") for name in edits}
                return {
                    name: time_saves(server, url, save, self.plan.saves, timeout)
                    for name, save in edits.items()
                }
        finally:
            site.write_page(EDITED, seed=EDITED)

    def count(self) -> None:
        """Instructions of one floor, one outputs, one warm and one prose-edited build, under
        valgrind (the outputs site is written now: only this measures it)."""
        self.progress(f"{self.plan.pages} pages: counting instructions (valgrind)")
        floor, lessonkit = self.sites["floor"], self.lessonkit
        outputs = OutputsSite(self.folder / "outputs", "outputs", self.plan.pages)
        outputs.write()
        with ThreadPoolExecutor(max_workers=2) as pool:
            futures = {
                "floor": pool.submit(instructions, floor.command(), "the floor build"),
                "outputs": pool.submit(instructions, outputs.command(), "the outputs build"),
                "warm": pool.submit(instructions, lessonkit.command(), "the warm build"),
            }
            counted = {name: future.result() for name, future in futures.items()}
        lessonkit.write_page(EDITED, seed=EDITED, extra="Edited prose, counted.\n")
        counted["prose"] = instructions(lessonkit.command(), "the prose-edited build")
        lessonkit.write_page(EDITED, seed=EDITED)
        for scenario in ("warm", "prose"):
            check_ran(scenario, counted[scenario][1], 0)
        self.measured.instructions = {name: count for name, (count, _) in counted.items()}


def measure(plan: Plan, folder: Path, progress: Callable[[str], None]) -> Measured:
    """Every scenario of ``plan`` at its size: timed runs, memory, cache, serve, instructions."""
    bench = Bench(plan, folder, progress)
    for run in range(plan.runs):
        bench.run(run)
    bench.measured.weight = page_weight(bench.sites)
    bench.footprint()
    bench.serve()
    if plan.count:
        bench.count()
    return bench.measured


_INLINE = re.compile(
    r"<style\b[^>]*>.*?</style>|<script\b(?![^>]*\bsrc=)[^>]*>.*?</script>", re.DOTALL
)
_FIGURE_SVG = re.compile(r'<figure class="lk-figure">\s*(<svg\b.*?</svg>)', re.DOTALL)


def page_weight(sites: dict[str, Site]) -> dict[str, object]:
    """Per-page inline CSS/JS beyond the floor's, the heatmap SVG's bytes, and page sizes."""
    name = f"page-{EDITED:03d}/index.html"
    html = {f: (s.site / name).read_text(encoding="utf-8") for f, s in sites.items()}
    extra = Counter(_INLINE.findall(html["lessonkit"])) - Counter(_INLINE.findall(html["floor"]))
    svgs = _FIGURE_SVG.findall(html["lessonkit"])
    sizes = {
        f: statistics.mean(p.stat().st_size for p in s.site.glob("page-*/index.html"))
        for f, s in sites.items()
    }
    return {
        "inline": sum(extra.values()),
        "svg": len(svgs[0].encode()) if svgs else None,
        "sizes": sizes,
    }


# --- reporting ----------------------------------------------------------------------------

"""The cores a cold build can use: lessonkit starts one worker per core."""


def seconds_list(values: list[float]) -> str:
    return " ".join(f"{t:.2f}" for t in values)


def in_brief(failure: str) -> str:
    """A failure's first line (what failed) and last line (the server's last word), fit for a
    table cell."""
    lines = [line.strip() for line in failure.strip().splitlines() if line.strip()]
    return " ".join(dict.fromkeys(lines[:1] + lines[-1:])).replace("|", "\\|")


def timing_table(m: Measured, plan: Plan) -> str:
    lines = [
        f"| {m.pages} pages, {plan.runs} runs of {plan.turns} turns | median (s) | x floor "
        "| each build (s) |",
        "| --- | ---: | ---: | --- |",
    ]
    for key, label in ROWS.items():
        each = seconds_list(m.samples(key))
        lines.append(f"| {label} | {m.median(key):.2f} | {m.ratio(key):.2f} | {each} |")
    sizes = m.weight["sizes"]
    lines.append(
        "| mean page weight (floor / markdown-exec / lessonkit), KB | "
        + " / ".join(f"{sizes[f] / 1000:.0f}" for f in ("floor", "markdown-exec", "lessonkit"))
        + " | | |"
    )
    return "\n".join(lines)


def footprint_table(m: Measured) -> str:
    floor = m.footprint["floor"].pss
    lines = [
        f"| {m.pages} pages, one build each | peak memory, all its processes (MB of PSS) "
        "| x floor | processes at most |",
        "| --- | ---: | ---: | ---: |",
    ]
    for key, label in FOOTPRINT_ROWS.items():
        peak = m.footprint[key]
        ratio = peak.pss / floor
        lines.append(f"| {label} | {peak.pss / 1e6:.0f} | {ratio:.2f} | {peak.processes} |")
    cache = m.cache.sentence() if m.cache else ""
    return "\n".join(lines) + "\n\n" + cache


def serve_table(m: Measured, plan: Plan) -> str:
    lines = [
        f"| {m.pages} pages, `{SERVE}`, {plan.saves} saves | median save to served (s) "
        "| each save (s) |",
        "| --- | ---: | --- |",
    ]
    for key, label in SERVE_ROWS.items():
        served = m.serve[key]
        each = seconds_list(served.seconds)
        if served.failure:
            each = f"{each} then failed: {in_brief(served.failure)}".strip()
        median = "failed" if served.failure else f"{served.median:.2f}"
        lines.append(f"| {label} | {median} | {each} |")
    return "\n".join(lines)


def instructions_table(m: Measured) -> str:
    if not m.instructions:
        return ""
    floor = m.instructions["floor"]
    lines = [
        f"| {m.pages} pages, one build each under valgrind | instructions (G) | x floor |",
        "| --- | ---: | ---: |",
    ]
    for key, count in m.instructions.items():
        lines.append(f"| {COUNTED_ROWS[key]} | {count / 1e9:.3f} | {count / floor:.3f} |")
    return "\n".join(lines)


def report(m: Measured, plan: Plan) -> str:
    """Every table of one size."""
    tables = (
        timing_table(m, plan),
        footprint_table(m),
        serve_table(m, plan),
        instructions_table(m),
    )
    return "\n\n".join(table for table in tables if table)


@dataclass
class Target:
    """A measured value and its limit; without a limit, a value shown for reference."""

    name: str
    value: float
    limit: float | None
    unit: str
    note: str = ""
    digits: int = 2

    @property
    def ok(self) -> bool:
        return self.limit is None or self.value <= self.limit

    @property
    def verdict(self) -> str:
        return "" if self.limit is None else "PASS" if self.ok else "FAIL"

    def line(self) -> str:
        value = "failed" if self.value == float("inf") else f"{self.value:.{self.digits}f}"
        limit = "" if self.limit is None else f"{self.limit:.{self.digits}f} {self.unit}"
        measured = value if value == "failed" else f"{value} {self.unit}"
        return f"| {self.name} | {measured} | {limit} | {self.verdict} | {self.note} |"


def timing_targets(m: Measured) -> list[Target]:
    """Issues 3 and 24: warm and prose edit by time, cold, code edit, page weight."""
    n, times = m.pages, m.times

    def cold_baseline(blocks: str) -> Callable[[int, int], float]:
        """The run's floor and ``blocks`` (the blocks alone, isolated or not) over the cores."""
        return lambda run, _turn: (
            statistics.median(times["floor"][run]) + times[blocks][run][0] / CORES
        )

    def code_limit(warm: bool) -> Callable[[int, int], float]:
        """The code edit's baseline in one turn: that page's blocks alone (with 20 % slack) on
        top of the floor, or (``warm``) of the warm rebuild, as a share of its own floor."""

        def seconds(run: int, turn: int) -> float:
            floor = m.floor_at("code", run, turn)
            if warm:
                floor *= times["warm"][run][turn] / m.floor_at("warm", run, turn)
            return floor + 1.2 * times["page"][run][turn]

        return seconds

    return [
        Target(f"{n} pages: warm rebuild", m.ratio("warm"), 1.10, "x floor"),
        Target(f"{n} pages: one page's prose edited", m.ratio("prose"), 1.10, "x floor"),
        Target(
            f"{n} pages: cold build",
            m.ratio("cold", cold_baseline("isolated")),
            1.10,
            f"x (floor + blocks alone, each page in its own process / {CORES} cores)",
        ),
        Target(
            f"(reference) {n} pages: cold build",
            m.ratio("cold", cold_baseline("blocks")),
            None,
            f"x (floor + blocks alone, one process / {CORES} cores)",
            "not a target: there pages share state, which lessonkit's may not",
        ),
        Target(
            f"{n} pages: cold build",
            m.ratio("cold", lambda run, _: times["markdown-exec"][run][0]),
            0.80,
            "x markdown-exec",
        ),
        Target(
            f"{n} pages: one page's code edited",
            m.ratio("code", code_limit(warm=True)),
            1.00,
            "x (warm rebuild + 1.2 x that page's blocks alone)",
        ),
        Target(
            f"(reference) {n} pages: one page's code edited",
            m.ratio("code", code_limit(warm=False)),
            None,
            "x (floor + 1.2 x that page's blocks alone)",
            "not a target: it leaves lessonkit's warm rebuild no share of its 1.10 x",
        ),
        Target(f"{n} pages: per-page inline CSS/JS", m.weight["inline"], 0, "blocks"),
        Target(
            f"{n} pages: 6x6 heatmap SVG",
            (m.weight["svg"] or float("inf")) / 1000,
            SVG_LIMIT / 1000,
            "KB",
        ),
    ]


def instruction_targets(m: Measured) -> list[Target]:
    """Warm and prose edit by instructions, where they were counted, against the same pages as
    static Markdown without lessonkit (the outputs flavour: what a reader sees, at what it costs
    MkDocs to build): lessonkit's own work. Against the floor, for reference: the floor shows
    the blocks' code and none of what they print, which costs MkDocs more to build than the
    code (two tables of 34 cells), so over it the content counts as lessonkit's."""
    if not m.instructions:
        return []
    counts, floor, outputs = m.instructions, m.instructions["floor"], m.instructions["outputs"]
    checks = []
    for key in ("warm", "prose"):
        name = f"{m.pages} pages: {ROWS[key][11:]}, instructions"
        checks += [
            Target(name, counts[key] / outputs, 1.03, "x the same pages, static", digits=3),
            Target(f"(reference) {name}", counts[key] / floor, None, "x floor", digits=3),
        ]
    checks.append(
        Target(
            f"(reference) {m.pages} pages: the same pages, static, instructions",
            outputs / floor,
            None,
            "x floor",
            "what the content costs MkDocs over the blocks' code",
            digits=3,
        )
    )
    return checks


def footprint_targets(m: Measured) -> list[Target]:
    """Peak memory (a target from ``LARGE`` pages on), and the cache: a warm build against the
    floor's; a cold one, which must run the blocks (numpy, matplotlib), against the floor's and
    the blocks alone's together, each page in its own process as lessonkit's must be (the
    blocks in one process for reference)."""
    floor, limit = m.footprint["floor"].pss, 1.2 if m.pages >= LARGE else None
    cold = m.footprint["cold"].pss
    checks = [
        Target(
            f"{m.pages} pages: peak memory, cold build",
            cold / (floor + m.footprint["isolated"].pss),
            limit,
            f"x (floor + blocks alone, each page in its own process, {CORES} at once)",
        ),
        Target(
            f"(reference) {m.pages} pages: peak memory, cold build",
            cold / (floor + m.footprint["blocks"].pss),
            None,
            "x (floor + blocks alone, one process)",
            "not a target: there pages share state, which lessonkit's may not",
        ),
        Target(
            f"{m.pages} pages: peak memory, warm build",
            m.footprint["warm"].pss / floor,
            limit,
            "x floor",
        ),
    ]
    if m.cache:
        per_page = m.cache.size / m.cache.pages / 1000
        checks.append(
            Target(f"{m.pages} pages: cache after a cold build", per_page, None, "KB per page")
        )
    return checks


def serve_targets(m: Measured) -> list[Target]:
    """Save-to-served: prose edit ≤ 1 s below ``LARGE`` pages, ≤ 0.1x the warm rebuild from
    there on; code edit ≤ 1 s + that page's blocks alone; the floor's for reference."""
    n, prose, code, floor = m.pages, m.serve["prose"], m.serve["code"], m.serve["floor"]
    name = f"{n} pages: serve, saved to served"
    if n < LARGE:
        checks = [Target(f"{name}, prose edit", prose.median, 1.0, "s")]
    else:
        warm = m.median("warm")
        note = f"{prose.median:.2f} s, warm rebuild {warm:.2f} s"
        checks = [Target(f"{name}, prose edit", prose.median / warm, 0.1, "x warm rebuild", note)]
    page = m.median("page")
    note = f"1 s + that page's blocks alone ({page:.2f} s)"
    checks += [
        Target(f"{name}, code edit", code.median, 1.0 + page, "s", note),
        Target(f"(reference) {name}, the floor's prose edit", floor.median, None, "s"),
    ]
    for check, served in zip(checks, (prose, code, floor), strict=True):
        if served.failure:
            check.note = in_brief(served.failure)
    return checks


def scaling_targets(small: Measured, big: Measured) -> list[Target]:
    """``big`` vs ``small`` pages, cold and warm: lessonkit's growth over its baseline's growth,
    ≤ 1.05x, the target (what lessonkit adds grows no faster than the build it is added to).

    Its growth alone is shown for reference beside 1.05x linear, saying whose a step above
    linear is: a build with lessonkit cannot grow less than the same build without it, and
    MkDocs' own build grows faster than its page count (every page carries the whole
    navigation), so the baseline's growth is the only fair measure. Warm's baseline is the floor;
    cold's, the floor and the blocks alone (each page in its own process) over the cores (its
    time target's), since a cold build's work grows with the blocks, which grow with the pages,
    and the floor's start-up does not."""
    linear = 1.05 * big.pages / small.pages
    name = f"{big.pages} vs {small.pages} pages"
    floor = big.median("floor") / small.median("floor")
    checks = [Target(f"(reference) {name}, floor", floor, None, "x")]
    for key in ("cold", "warm"):
        grew, baseline = baseline_growth(small, big, key)
        ratio = big.median(key) / small.median(key)
        relative = ratio / grew
        note = f"{relative:.2f} x the growth of {baseline} ({grew:.2f} x)"
        if ratio > linear:
            whose = (
                f"{baseline} grows so"
                if relative <= 1.05
                else f"lessonkit grows faster than {baseline}"
            )
            note += f"; above 1.05 x linear ({linear:.2f} x): {whose}"
        checks.append(Target(f"(reference) {name}, {key}", ratio, None, "x", note))
        checks.append(Target(f"{name}, {key}, over the growth of {baseline}", relative, 1.05, "x"))
    return checks


def baseline_growth(small: Measured, big: Measured, key: str) -> tuple[float, str]:
    """How much the baseline of scenario ``key`` grew from ``small`` to ``big``, and its name."""
    if key != "cold":
        return big.median("floor") / small.median("floor"), "the floor"

    def baseline(m: Measured) -> float:
        return m.median("floor") + m.median("isolated") / CORES

    return baseline(big) / baseline(small), f"floor + blocks alone (own processes) / {CORES} cores"


def targets(results: list[Measured]) -> list[Target]:
    """Issues 3 and 24's targets; ratios are medians of per-build ratios (see
    :meth:`Measured.ratio`)."""
    checks: list[Target] = []
    for m in results:
        checks += timing_targets(m) + instruction_targets(m) + footprint_targets(m)
        checks += serve_targets(m)
    for small, big in itertools.pairwise(results):
        checks += scaling_targets(small, big)
    return checks


def targets_table(checks: list[Target]) -> str:
    lines = ["| target | measured | limit | verdict | note |", "| --- | ---: | ---: | --- | --- |"]
    judged = [c for c in checks if c.limit is not None]
    met = sum(c.ok for c in judged)
    return (
        "\n".join(lines + [c.line() for c in checks]) + f"\n\n{met} of {len(judged)} targets met."
    )


# --- the command --------------------------------------------------------------------------


def positive(text: str) -> int:
    """An argument that counts something: a whole number of at least 1."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return int(text)


def parse(argv: list[str] | None) -> argparse.Namespace:
    """The command line, with ``plans``: one :class:`Plan` per site size, smallest first."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=positive, nargs="+", default=[20, 200], help="site sizes")
    parser.add_argument(
        "--large",
        action="store_true",
        help=f"add {LARGE} pages (from there on: at most {LARGE_PLAN['runs']} runs of "
        f"{LARGE_PLAN['turns']} turns and {LARGE_PLAN['saves']} saves)",
    )
    parser.add_argument("--runs", type=positive, default=5, help="interleaved runs per scenario")
    parser.add_argument(
        "--turns",
        type=positive,
        default=5,
        help="turns per run: lessonkit warm, prose-edited, code-edited, each between floor builds",
    )
    parser.add_argument(
        "--saves", type=positive, default=5, help=f"saves of each edit under {SERVE}"
    )
    parser.add_argument(
        "--instructions",
        type=positive,
        nargs="*",
        metavar="SIZE",
        help="also count a floor, a warm and a prose-edited build's instructions with valgrind, "
        "and the same pages as static Markdown without lessonkit (the outputs flavour, the "
        "instructions targets' baseline): "
        f"at every size below {LARGE} pages, or at the sizes given",
    )
    parser.add_argument(
        "--hosts",
        action="store_true",
        help="measure the host instead: floor and lessonkit cold/warm under MkDocs and Zensical",
    )
    parser.add_argument(
        "--notebooks", action="store_true", help="measure notebook lessons against Markdown ones"
    )
    parser.add_argument("--check", action="store_true", help="exit 1 when a target fails")
    parser.add_argument("--keep", type=Path, help="build in this folder and keep it")
    parser.add_argument(
        "--write-docs", action="store_true", help=f"write the tables into {DOCS_PAGE.name}"
    )
    parser.add_argument(
        "--docs-page", type=Path, default=DOCS_PAGE, help="the page --write-docs writes into"
    )
    args = parser.parse_args(argv)
    sizes = sorted({*args.pages, *([LARGE] if args.large else [])})
    if args.instructions is None:
        counted = set()
    else:  # named sizes, or every size below LARGE
        counted = set(args.instructions or [p for p in sizes if p < LARGE])
    if unknown := counted - set(sizes):
        parser.error(f"--instructions {sorted(unknown)}: not among the sizes measured, {sizes}")
    args.plans = [
        Plan.of(pages, args.runs, args.turns, args.saves, count=pages in counted) for pages in sizes
    ]
    if importlib.util.find_spec("markdown_exec") is None:
        parser.error('markdown-exec is missing: install the bench extra, pip install -e ".[bench]"')
    return args


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def cut_note(args: argparse.Namespace, saves: bool = True) -> str:
    """Where the plan was cut to ``LARGE_PLAN``, said so (or nothing); ``saves``: the run has
    serve saves (``--hosts`` has none)."""
    asked = (args.runs, args.turns, args.saves)
    if cut := [p for p in args.plans if (p.runs, p.turns, p.saves) != asked]:
        sizes = "; ".join(f"at {p.pages} pages {p.describe(saves)}" for p in cut)
        return f"; {sizes} (fewer there, to keep the run's time sane)"
    return ""


def header(args: argparse.Namespace) -> str:
    """The run's first line: the machine, and what was measured at which size."""
    line = (
        f"Python {sys.version.split()[0]}, {CORES} CPU cores, {args.runs} runs, "
        f"{args.turns} turns in each (warm, prose edit, code edit, each between floor builds), "
        f"{args.saves} saves of each edit under `{SERVE}`"
    )
    line += cut_note(args)
    if args.instructions is not None:
        counted = [str(p.pages) for p in args.plans if p.count]
        line += f"; instructions counted at {' and '.join(counted)} pages"
        if skipped := [str(p.pages) for p in args.plans if not p.count]:
            every = " ".join(str(p.pages) for p in args.plans)
            line += (
                f", not at {' and '.join(skipped)} (valgrind runs a build tens of times slower: "
                f"ask with `--instructions {every}`)"
            )
    return line


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.hosts:
        return main_hosts(args)
    if args.notebooks:
        return main_notebooks(args, progress)
    with tempfile.TemporaryDirectory(prefix="lessonkit-bench-") as temporary:
        folder = args.keep or Path(temporary)
        snapshot(folder)
        out = [header(args)]
        print(out[0] + "\n", flush=True)
        results = []
        for plan in args.plans:
            results.append(measure(plan, folder / f"{plan.pages}-pages", progress))
            out.append(report(results[-1], plan))
            print(out[-1], end="\n\n", flush=True)
    checks = targets(results)
    out.append(targets_table(checks))
    print(out[-1])
    if args.write_docs:
        write_section(args.docs_page, SECTION, docs_section(out, results))
        print(f"\nwrote the {SECTION[3:]!r} section of {args.docs_page}")
    return 1 if args.check and not all(c.ok for c in checks) else 0


HOSTS_SECTION = "## Build speed by host"


def main_hosts(args: argparse.Namespace) -> int:
    """``--hosts``: one table per site size, MkDocs and Zensical side by side."""
    if importlib.util.find_spec("zensical") is None:
        raise SystemExit('zensical is missing: pip install -e ".[zensical]"')
    with tempfile.TemporaryDirectory(prefix="lessonkit-bench-hosts-") as temporary:
        folder = args.keep or Path(temporary)
        snapshot(folder)
        out = [
            f"Python {sys.version.split()[0]}, {CORES} CPU cores, {args.runs} runs, "
            f"{args.turns} warm builds in each, every build between two floor builds"
            + cut_note(args, saves=False)
        ]
        print(out[0] + "\n", flush=True)
        for plan in args.plans:
            where = folder / f"{plan.pages}-pages"
            found = measure_hosts(plan.pages, plan.runs, plan.turns, where, progress)
            out.append(hosts_table(plan.pages, plan.runs, found))
            print(out[-1], end="\n\n", flush=True)
    if args.write_docs:
        section = (
            f"{HOSTS_SECTION}\n\n`scripts/benchmark.py --hosts` builds the same synthetic site "
            "under MkDocs (`mkdocs build`) and under Zensical (`lessonkit prepare`, then `zensical "
            "build --clean`, which converts every page as MkDocs does), without lessonkit (the "
            "floor) and with it, cold and warm; each build is divided by the mean of its own "
            "host's floor builds right before and after it.\n\n"
            f"Latest run ({date.today().isoformat()}; {out[0]}):\n\n" + "\n\n".join(out[1:]) + "\n"
        )
        write_section(args.docs_page, HOSTS_SECTION, section)
        print(f"wrote the {HOSTS_SECTION[3:]!r} section of {args.docs_page}")
    return 0


def in_words(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return " and ".join(items) if len(items) < 3 else ", ".join(items[:-1]) + f" and {items[-1]}"


def docs_section(out: list[str], results: list[Measured]) -> str:
    """The docs page's section: what the benchmark did in this run, then its tables."""
    sizes = in_words([str(m.pages) for m in results])
    spread = in_words(
        [
            f"{min(m.samples('floor')):.2f}–{max(m.samples('floor')):.2f} s at {m.pages} pages"
            for m in results
        ]
    )
    return (
        f"{SECTION}\n\n"
        f"`scripts/benchmark.py` builds a synthetic site of {sizes} pages (about 600 words and "
        f"{len(blocks(0))} executable blocks each: a setup, a softmax table, a 3x3 attention "
        "table and a 6x6 heatmap) and times fresh `mkdocs build` processes, medians of "
        "interleaved runs, against baselines measured in the same run: the same pages with the "
        "blocks as plain code (the floor, Material only), markdown-exec executing the same "
        "blocks, and the blocks alone, in one Python process and with each page in its own "
        "process forked from one that imported the libraries (pages then share no state, as "
        "lessonkit's may not: a page can change NumPy's print options, the random generators or "
        "matplotlib's settings; the cold target's baseline). Each run takes turns: lessonkit "
        "warm, after a prose edit and after a code edit, each built between two floor builds and "
        "divided by their mean. The benchmark stops if a warm build or a prose edit runs any "
        "page, or a code edit runs other than one page. The floor's own builds "
        f"took {spread} in this run, so every build's seconds are listed beside the medians. "
        "With `--instructions`, valgrind counts what one build executes, a count the machine's "
        "load does not move: the floor, lessonkit warm and after a prose edit, and the same "
        "pages as static Markdown without lessonkit (the outputs flavour: lessonkit's outputs "
        "pasted in, rendered from lessonkit's pages by lessonkit's own `render()`, each figure "
        "put in by a MkDocs hook once its page is written, so that, as with lessonkit, "
        "Python-Markdown never parses it and the search index never holds it), whose articles "
        "and search index are the same as lessonkit's. lessonkit over it is lessonkit's own "
        "work, the instructions target; it over the floor is what the content costs MkDocs "
        "over the blocks' code."
        "\n\n"
        "Peak memory is the largest sum, over a build's process and every process it starts, of "
        "each one's proportional set size (PSS: a page shared by several processes, as forked "
        f"workers share their parent's, counts once in all), read from `/proc` every "
        f"{INTERVAL * 1000:.0f} ms; a cold build, which must run the blocks, is held to the "
        "floor's and the blocks alone's together, each page in its own process, as many at once "
        "as lessonkit has workers (a page process holds memory of its own: the pages it shared "
        f"with its parent until it wrote to them). Under `{SERVE}`, each save adds a fresh word "
        "to page "
        f"{EDITED}'s prose (the code edit also changes its code), and the time runs from the "
        "save until the page's URL serves that word; the floor's row is MkDocs' own time for the "
        "same edit without lessonkit. In the targets, a size's growth over the next smaller "
        "size is judged against its baseline's growth (warm: the floor's; cold: the floor and "
        "the blocks alone, each page in its own process, over the cores, the cold time "
        "target's): lessonkit's growth over the baseline's (≤ 1.05x) is the part of the growth "
        "that lessonkit adds. The growth alone is shown for reference, with whose a step above "
        "linear is: MkDocs' own build grows faster than its page count (every page carries the "
        "whole navigation), and no plugin makes it grow less.\n\n"
        f"Latest run ({date.today().isoformat()}; {out[0]}):\n\n" + "\n\n".join(out[1:]) + "\n"
    )


# --- notebook lessons (--notebooks) -------------------------------------------------------

NOTEBOOKS_SECTION = "## Build speed of notebook lessons"
TO_NOTEBOOKS = """\
import sys
from pathlib import Path
from lessonkit.notebooks.twin import markdown_notebook
from lessonkit.notebooks.writer import notebook_bytes
for page in sorted(Path(sys.argv[1]).glob("page-*.md")):
    notebook = markdown_notebook(page.read_text(), page.name)
    page.with_suffix(".ipynb").write_bytes(notebook_bytes(notebook))
    page.unlink()
"""
"""Each synthetic page as its notebook twin (``lessonkit notebook``), run with the snapshot."""


@dataclass
class NotebookSite(Site):
    """The lessonkit flavour of the synthetic site, every page an ``.ipynb`` twin."""

    def write(self) -> None:
        super().write()
        subprocess.run([sys.executable, "-c", TO_NOTEBOOKS, str(self.docs)], env=ENV, check=True)
        config = self.root / "mkdocs.yml"
        config.write_text(re.sub(r"(page-\d+)\.md", r"\1.ipynb", config.read_text()))


def measure_notebooks(
    pages: int, runs: int, turns: int, folder: Path, progress: Callable[[str], None]
) -> dict[str, list[float]]:
    """Markdown and notebook lessons, cold then ``turns`` times warm, interleaved: scenario ->
    seconds, and ``<scenario> x`` -> the notebook build over the Markdown build next to it."""
    sites = {
        "markdown": Site(folder / "markdown", "lessonkit", pages),
        "notebook": NotebookSite(folder / "notebook", "lessonkit", pages),
    }
    for site in sites.values():
        site.write()
    found: dict[str, list[float]] = {}
    for run in range(runs):
        progress(f"{pages} pages, notebooks: run {run + 1} of {runs}")
        for scenario in ["cold"] + ["warm"] * turns:
            seconds = {}
            for kind, site in sites.items():
                if scenario == "cold":
                    shutil.rmtree(site.root / ".lessonkit", ignore_errors=True)
                seconds[kind] = site.build()
                check_ran(f"{kind} {scenario}", LOG[0], pages if scenario == "cold" else 0)
                found.setdefault(f"{kind} {scenario}", []).append(seconds[kind])
            found.setdefault(f"{scenario} x", []).append(seconds["notebook"] / seconds["markdown"])
    return found


def notebooks_table(pages: int, runs: int, found: dict[str, list[float]]) -> str:
    lines = [
        f"| {pages} pages, {runs} runs | Markdown (s) | notebooks (s) | notebooks x Markdown |",
        "| --- | ---: | ---: | ---: |",
    ]
    for scenario in ("cold", "warm"):
        median = {k: statistics.median(found[f"{k} {scenario}"]) for k in ("markdown", "notebook")}
        ratio = statistics.median(found[f"{scenario} x"])
        row = f"| lessonkit, {scenario} | {median['markdown']:.2f} | {median['notebook']:.2f} |"
        lines.append(f"{row} {ratio:.2f} |")
    return "\n".join(lines)


def main_notebooks(args: argparse.Namespace, progress: Callable[[str], None]) -> int:
    """``--notebooks``: the synthetic site's pages as Markdown and as notebook lessons."""
    with tempfile.TemporaryDirectory(prefix="lessonkit-bench-notebooks-") as temporary:
        folder = args.keep or Path(temporary)
        snapshot(folder)
        out = [f"Python {sys.version.split()[0]}, {os.cpu_count()} CPU cores, {args.runs} runs"]
        print(out[0] + "\n", flush=True)
        for pages in sorted(args.pages):
            found = measure_notebooks(pages, args.runs, args.turns, folder / f"{pages}", progress)
            out.append(notebooks_table(pages, args.runs, found))
            print(out[-1], end="\n\n", flush=True)
    if args.write_docs:
        section = (
            f"{NOTEBOOKS_SECTION}\n\n`scripts/benchmark.py --notebooks` builds the synthetic "
            "site with lessonkit twice, its pages as Markdown lessons and as their notebook twins "
            "(`lessonkit notebook`), cold and warm, each notebook build next to its Markdown "
            f"one.\n\nLatest run ({date.today().isoformat()}; {out[0]}):\n\n"
            + "\n\n".join(out[1:])
            + "\n"
        )
        write_section(DOCS_PAGE, NOTEBOOKS_SECTION, section)
        print(f"wrote the {NOTEBOOKS_SECTION[3:]!r} section of {DOCS_PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
