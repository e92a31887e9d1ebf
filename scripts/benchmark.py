"""Benchmark lessonkit's execution against a plain build and against markdown-exec.

Builds a synthetic site (pages of ~600 words of prose and four executable blocks: a setup, a
softmax table, a 3x3 attention table and a 6x6 heatmap) in a temporary folder, once per size,
and times, in interleaved runs, fresh ``mkdocs build`` processes:

- floor: the same Markdown with the blocks as plain code, no execution (Material only);
- markdown-exec: the same blocks executed by markdown-exec (``exec="on"``, one session a page);
- blocks alone: every page's blocks run in one plain Python process (imports included);
- lessonkit: cold (empty cache), warm (nothing changed), one page's prose edited, one page's
  code edited; and that page's blocks alone in a plain Python process.

Each run builds markdown-exec, the blocks alone and lessonkit cold once, then takes
``--turns`` turns of lessonkit warm, after a prose edit and after a code edit, in a chain where
a floor build comes before and after each of them (floor, warm, floor, prose, floor, code,
floor, ...). Each is divided by the mean of the two floor builds around it: the floor's time at
that moment, interpolated. The warm and prose targets are the closest calls, and the machine's
noise is larger than lessonkit's overhead: five turns a run give 25 ratios for each median.
``--instructions`` adds what one floor build and one warm build execute, counted by valgrind: a
ratio the machine's load does not move.

It prints the medians as Markdown tables with ratios to the floor, then checks the targets.

``--hosts`` measures the host instead, side by side in one run: the floor and lessonkit cold and
warm under MkDocs (``mkdocs build``) and under Zensical (``lessonkit prepare`` then ``zensical
build --clean``: Zensical converts every page, as MkDocs does), each ratio to that host's own
floor (the same pages without lessonkit, built by the same host just before and just after).

    .venv/bin/python scripts/benchmark.py                 # 20 and 200 pages, 5 runs
    .venv/bin/python scripts/benchmark.py --write-docs    # also record it on the docs page
    .venv/bin/python scripts/benchmark.py --instructions   # also count instructions
    .venv/bin/python scripts/benchmark.py --pages 2 4 --runs 1 --turns 1 --check
    .venv/bin/python scripts/benchmark.py --hosts --pages 20 --runs 3   # MkDocs and Zensical
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
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
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from docs_section import write_section

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
    "cold": "lessonkit, cold (empty cache)",
    "warm": "lessonkit, warm (nothing changed)",
    "prose": "lessonkit, one page's prose edited",
    "code": "lessonkit, one page's code edited",
    "page": "that page's blocks alone, one Python process",
}

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
    """Page ``number`` as Markdown; ``flavour`` is ``floor``, ``markdown-exec`` or ``lessonkit``."""
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
    }[flavour]
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
        "markdown-exec": ["search", "markdown-exec"],
        "lessonkit": ["search", "lessonkit"],
    }[flavour]
    nav = "\n".join(f"  - Page {n}: page-{n:03d}.md" for n in range(1, pages + 1))
    plugin_lines = "\n".join(f"  - {p}" for p in plugins)
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
markdown_extensions:
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

    def build(self) -> float:
        """Run ``mkdocs build`` in a fresh process; return its wall-clock seconds."""
        return timed(self.command(), f"the {self.flavour} build")


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
        seconds = 0.0
        if self.flavour == "lessonkit":
            prepare = [sys.executable, "-m", "lessonkit.cli", "-f", config, "prepare"]
            seconds += timed(prepare, "lessonkit prepare")
        zensical = [sys.executable, "-m", "zensical", "build", "--clean", "--strict", "-f", config]
        return seconds + timed(zensical, f"the Zensical {self.flavour} build")


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
                stamps = stored(cache)
                seconds = lessonkit.build()
                ran = sum(stamps.get(n) != stamp for n, stamp in stored(cache).items())
                if ran != (pages if scenario == "cold" else 0):
                    raise SystemExit(f"{host}: the {scenario} build ran {ran} pages")
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


def blocks_script(seeds: list[int]) -> str:
    """A plain Python program running each page's blocks in its own namespace, figures to SVG."""
    pages = [blocks(seed) for seed in seeds]
    return f"""\
import io
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

for sources in {pages!r}:
    namespace = {{"__name__": "__page__"}}
    for source in sources:
        exec(compile(source, "<block>", "exec"), namespace)
    for number in plt.get_fignums():
        plt.figure(number).savefig(io.StringIO(), format="svg")
    plt.close("all")
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
    found = re.search(r"lessonkit: (\d+) page\(s\) ran", log)
    if not found:
        raise SystemExit(f"the build did not say how many pages ran:\n{log[-2000:]}")
    return int(found[1])


def stored(cache: Path) -> dict[str, int]:
    """The cache's entries, each by its file's inode: a page that ran writes a new file in its
    entry's place (a lookup only touches the entry's mtime, which tells nothing)."""
    return {path.name: path.stat().st_ino for path in cache.rglob("*.json")}


def instructions(command: list[str], what: str) -> int:
    """How many instructions ``command`` executes, counted by valgrind.

    The count repeats within a fraction of a percent however busy the machine is, so it shows
    what a build costs where wall-clock seconds only show what the machine allowed.
    """
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("--instructions needs valgrind (Debian: apt install valgrind)")
    counter = [valgrind, "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    done = subprocess.run([*counter, *command], env=ENV, capture_output=True, text=True)
    total = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if done.returncode != 0 or not total:
        raise SystemExit(f"{what} failed under valgrind:\n{done.stderr[-3000:]}")
    return int(total[1].replace(",", ""))


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
    """With ``--instructions``: what one floor build and one warm build executed."""

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


def measure(
    pages: int,
    runs: int,
    turns: int,
    folder: Path,
    progress: Callable[[str], None],
    count: bool = False,
) -> Measured:
    """Build every flavour ``runs`` times, interleaved, and time each scenario.

    Each run builds markdown-exec, the blocks alone and lessonkit cold once, then ``turns`` times
    lessonkit warm, after a prose edit and after a code edit, each between two floor builds;
    then each edited page's blocks alone. With ``count``, one more floor build and one more warm
    build run under valgrind, side by side.
    """
    sites = {f: Site(folder / f, f, pages) for f in ("floor", "markdown-exec", "lessonkit")}
    for site in sites.values():
        site.write()
    lessonkit = sites["lessonkit"]
    cache = lessonkit.root / ".lessonkit"  # the cache (.lessonkit/cache) and nothing else

    def build(scenario: str, executes: int) -> float:
        """Build the lessonkit site; fail unless exactly ``executes`` pages ran (the engine's
        count: a lookup may rewrite an entry with fresh stamps, so files tell less)."""
        seconds = lessonkit.build()
        ran = pages_ran(LOG[0])
        if ran != executes:
            raise SystemExit(f"the {scenario} build ran {ran} pages, not {executes}")
        return seconds

    measured = Measured(pages)
    all_blocks = blocks_script(list(range(1, pages + 1)))
    measured.around = {name: [] for name in ("warm", "prose", "code")}

    def floor() -> float:
        """Build the floor (this run's next build of it)."""
        seconds = sites["floor"].build()
        measured.times["floor"][-1].append(seconds)
        return seconds

    def between_floors(name: str, executes: int, before: float) -> float:
        """Build lessonkit's scenario ``name``, then the floor; return that floor's seconds."""
        measured.times[name][-1].append(build(name, executes))
        after = floor()
        measured.around[name][-1].append((before, after))
        return after

    for run in range(runs):
        progress(f"{pages} pages: run {run + 1} of {runs}")
        for table in (measured.times, measured.around):
            for per_run in table.values():
                per_run.append([])
        times = {name: per_run[-1] for name, per_run in measured.times.items()}
        times["markdown-exec"].append(sites["markdown-exec"].build())
        times["blocks"].append(run_python(all_blocks, folder))
        shutil.rmtree(cache, ignore_errors=True)
        times["cold"].append(build("cold", pages))
        seeds = []
        # Each build compared with the floor comes between two floor builds, seconds apart, so
        # that the load from elsewhere on the machine tends to hit all three alike.
        last = floor()
        for turn in range(turns):
            edit = f"Edited prose, edit {run * turns + turn + 1}.\n"
            last = between_floors("warm", 0, last)
            lessonkit.write_page(EDITED, seed=seeds[-1] if seeds else EDITED, extra=edit)
            last = between_floors("prose", 0, last)
            seeds.append(1000 * (run * turns + turn + 1) + EDITED)  # no build saw it: a miss
            lessonkit.write_page(EDITED, seed=seeds[-1], extra=edit)
            last = between_floors("code", 1, last)
        times["page"] += [run_python(blocks_script([seed]), folder) for seed in seeds]
        lessonkit.write_page(EDITED, seed=EDITED)
    measured.weight = page_weight(sites)
    if count:
        progress(f"{pages} pages: counting instructions (valgrind)")
        with ThreadPoolExecutor(max_workers=2) as pool:
            counts = {
                name: pool.submit(instructions, site.command(), f"the {site.flavour} build")
                for name, site in (("floor", sites["floor"]), ("warm", lessonkit))
            }
            measured.instructions = {name: future.result() for name, future in counts.items()}
    return measured


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


def table(measured: Measured) -> str:
    runs = len(measured.times["floor"])
    lines = [
        f"| {measured.pages} pages, {runs} runs | median (s) | x floor | each build (s) |",
        "| --- | ---: | ---: | --- |",
    ]
    for key, label in ROWS.items():
        median, ratio = measured.median(key), measured.ratio(key)
        each = " ".join(f"{t:.2f}" for t in measured.samples(key))
        lines.append(f"| {label} | {median:.2f} | {ratio:.2f} | {each} |")
    sizes = measured.weight["sizes"]
    lines.append(
        "| mean page weight (floor / markdown-exec / lessonkit), KB | "
        + " / ".join(f"{sizes[f] / 1000:.0f}" for f in ("floor", "markdown-exec", "lessonkit"))
        + " | | |"
    )
    if measured.instructions:
        floor = measured.instructions["floor"]
        lines += [
            "",
            f"| {measured.pages} pages, one build each under valgrind | instructions (G) "
            "| x floor |",
            "| --- | ---: | ---: |",
        ]
        for key, count in measured.instructions.items():
            lines.append(f"| {ROWS[key]} | {count / 1e9:.3f} | {count / floor:.3f} |")
    return "\n".join(lines)


@dataclass
class Target:
    name: str
    value: float
    limit: float
    unit: str

    @property
    def ok(self) -> bool:
        return self.value <= self.limit

    def line(self) -> str:
        verdict = "PASS" if self.ok else "FAIL"
        value, limit = f"{self.value:.2f} {self.unit}", f"{self.limit:.2f} {self.unit}"
        return f"| {self.name} | {value} | {limit} | {verdict} |"


def targets(results: list[Measured]) -> list[Target]:
    """Issue #3's targets; ratios are medians of per-build ratios (see :meth:`Measured.ratio`)."""
    checks: list[Target] = []
    for m in results:
        n, times = m.pages, m.times

        def code_limit(run: int, turn: int, m: Measured = m) -> float:
            return m.floor_at("code", run, turn) + 1.2 * m.times["page"][run][turn]

        checks += [
            Target(f"{n} pages: warm rebuild", m.ratio("warm"), 1.10, "x floor"),
            Target(f"{n} pages: one page's prose edited", m.ratio("prose"), 1.10, "x floor"),
            Target(
                f"{n} pages: cold build",
                m.ratio("cold", lambda run, _, times=times: times["markdown-exec"][run][0]),
                0.80,
                "x markdown-exec",
            ),
            Target(
                f"{n} pages: one page's code edited",
                m.ratio("code", code_limit),
                1.00,
                "x (floor + 1.2 x that page's blocks alone)",
            ),
            Target(f"{n} pages: per-page inline CSS/JS", m.weight["inline"], 0, "blocks"),
            Target(
                f"{n} pages: 6x6 heatmap SVG",
                (m.weight["svg"] or float("inf")) / 1000,
                SVG_LIMIT / 1000,
                "KB",
            ),
        ]
    if len(results) > 1:
        small, big = results[0], results[-1]
        factor = 1.05 * big.pages / small.pages
        for key in ("cold", "warm"):
            ratio = big.median(key) / small.median(key)
            name = f"{big.pages} vs {small.pages} pages, {key}"
            checks.append(Target(name, ratio, factor, "x"))
    return checks


def positive(text: str) -> int:
    """An argument that counts something: a whole number of at least 1."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return int(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=positive, nargs="+", default=[20, 200], help="site sizes")
    parser.add_argument("--runs", type=positive, default=5, help="interleaved runs per scenario")
    parser.add_argument(
        "--turns",
        type=positive,
        default=5,
        help="turns per run: lessonkit warm, prose-edited, code-edited, each between floor builds",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count one floor and one warm build's instructions with valgrind",
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
    args = parser.parse_args(argv)
    if importlib.util.find_spec("markdown_exec") is None:
        parser.error('markdown-exec is missing: install the bench extra, pip install -e ".[bench]"')

    def progress(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    if args.hosts:
        return main_hosts(args, progress)
    if args.notebooks:
        return main_notebooks(args, progress)
    with tempfile.TemporaryDirectory(prefix="lessonkit-bench-") as temporary:
        folder = args.keep or Path(temporary)
        snapshot(folder)
        out = [
            f"Python {sys.version.split()[0]}, {os.cpu_count()} CPU cores, {args.runs} runs, "
            f"{args.turns} turns in each (warm, prose edit, code edit, each between floor builds)"
        ]
        print(out[0] + "\n", flush=True)
        results = []
        for pages in sorted(args.pages):
            results.append(
                measure(
                    pages,
                    args.runs,
                    args.turns,
                    folder / f"{pages}-pages",
                    progress,
                    count=args.instructions,
                )
            )
            out.append(table(results[-1]))
            print(out[-1], end="\n\n", flush=True)
    checks = targets(results)
    lines = ["| target | measured | limit | verdict |", "| --- | ---: | ---: | --- |"]
    lines += [check.line() for check in checks]
    if len(results) > 1:
        small, big = results[0], results[-1]
        ratio = big.median("floor") / small.median("floor")
        name = f"(reference) {big.pages} vs {small.pages} pages, floor"
        lines.append(f"| {name} | {ratio:.2f} x | | |")
    failed = [c for c in checks if not c.ok]
    out += ["\n".join(lines), f"{len(checks) - len(failed)} of {len(checks)} targets met."]
    print("\n\n".join(out[-2:]))
    if args.write_docs:
        write_section(DOCS_PAGE, SECTION, docs_section(out))
        print(f"\nwrote the {SECTION[3:]!r} section of {DOCS_PAGE.relative_to(ROOT)}")
    return 1 if args.check and failed else 0


HOSTS_SECTION = "## Build speed by host"


def main_hosts(args: argparse.Namespace, progress: Callable[[str], None]) -> int:
    """``--hosts``: one table per site size, MkDocs and Zensical side by side."""
    if importlib.util.find_spec("zensical") is None:
        raise SystemExit('zensical is missing: pip install -e ".[zensical]"')
    with tempfile.TemporaryDirectory(prefix="lessonkit-bench-hosts-") as temporary:
        folder = args.keep or Path(temporary)
        snapshot(folder)
        out = [
            f"Python {sys.version.split()[0]}, {os.cpu_count()} CPU cores, {args.runs} runs, "
            f"{args.turns} warm builds in each, every build between two floor builds"
        ]
        print(out[0] + "\n", flush=True)
        for pages in sorted(args.pages):
            found = measure_hosts(pages, args.runs, args.turns, folder / f"{pages}-pages", progress)
            out.append(hosts_table(pages, args.runs, found))
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
        write_section(DOCS_PAGE, HOSTS_SECTION, section)
        print(f"wrote the {HOSTS_SECTION[3:]!r} section of {DOCS_PAGE.relative_to(ROOT)}")
    return 0


def docs_section(out: list[str]) -> str:
    """The docs page's section: what the benchmark does, then this run's tables."""
    return (
        f"{SECTION}\n\n"
        "`scripts/benchmark.py` builds a synthetic site of 20 and of 200 pages (about 600 words "
        "and four executable blocks each: a setup, a softmax table, a 3x3 attention table and a "
        "6x6 heatmap) and times fresh `mkdocs build` processes, medians of interleaved runs, "
        "against baselines measured in the same run: the same pages with the blocks as plain "
        "code (the floor, Material only), markdown-exec executing the same blocks, and the blocks "
        "alone in one Python process. Each run takes turns: lessonkit warm, after a prose edit and "
        "after a code edit, each built between two floor builds and divided by their mean. Nothing "
        "re-executes on a warm build or after a prose edit; a code edit runs that page only, "
        "while MkDocs converts the other pages. The "
        "machine these runs come from is shared and noisy (one build can take a third longer than "
        "the next), so every build's seconds are listed beside the medians.\n\n"
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
                if pages_ran(LOG[0]) != (pages if scenario == "cold" else 0):
                    raise SystemExit(f"the {kind} {scenario} build ran {pages_ran(LOG[0])} pages")
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
