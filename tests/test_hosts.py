"""Every host builds this repository's lessons with every feature: MkDocs, ProperDocs, Zensical.

The site is built once per host for the session, strictly, from a copy of the project (Zensical
has no ``--site-dir``; ``lessonkit prepare`` writes into the docs): ``lessonkit prepare`` first,
so MkDocs and ProperDocs also build with its outputs present. Then, page by page, what each
host's HTML carries is compared, measured against the page's own results (every output, value
and figure the code produced is on the page), and the README's "Hosts" table must be that
measurement.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from lessonkit.core.fences import mask_code
from lessonkit.core.prepared import MANIFEST, prepared_notebooks
from lessonkit.core.project import Project, load_config
from lessonkit.core.settings import Settings
from lessonkit.glossary.checks import _uses
from lessonkit.hosts.standalone.site import Site, SiteConfig

ROOT = Path(__file__).resolve().parents[1]
HOSTS = ("MkDocs", "ProperDocs", "Zensical")
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
PROBLEM = re.compile(r"(docs/\S+?\.md:\d+: error: [^\n]*)")
"""A problem's first line, however a host frames it (``ERROR -``, ``Python error: ...:``)."""


def run(folder: Path, *command: str, env: dict[str, str] | None = None):
    return subprocess.run(
        [sys.executable, "-m", *command], cwd=folder, capture_output=True, text=True, env=env or ENV
    )


def build(host: str, folder: Path, site_dir: Path | None = None, env=None):
    """Build ``folder`` strictly with ``host`` (Zensical: after ``lessonkit prepare``)."""
    if host == "Zensical":
        prepared = run(folder, "lessonkit.cli", "prepare", env=env)
        if prepared.returncode != 0:
            return prepared
        return run(folder, "zensical", "build", "--strict", env=env)
    where = ["--site-dir", str(site_dir)] if site_dir else []
    return run(folder, host.lower(), "build", "--strict", "-f", "mkdocs.yml", *where, env=env)


def copy_project(folder: Path) -> Path:
    """This project's site (config, templates, docs) in ``folder``, with its warm cache."""
    shutil.copy(ROOT / "mkdocs.yml", folder)
    shutil.copytree(ROOT / "overrides", folder / "overrides")
    shutil.copytree(ROOT / "docs", folder / "docs", ignore=shutil.ignore_patterns(MANIFEST))
    cache = ROOT / Settings().cache_dir
    if cache.is_dir():
        shutil.copytree(cache, folder / Settings().cache_dir, ignore_dangling_symlinks=True)
    return folder


@pytest.fixture(scope="session")
def host_sites(
    tmp_path_factory: pytest.TempPathFactory, built_site: Path
) -> tuple[Path, dict[str, Path]]:
    """The project built by every host: (the project's folder, host -> its built site).

    After ``built_site`` (the session's MkDocs build of the repository): its cache is warm."""
    project = copy_project(tmp_path_factory.mktemp("hosts"))
    prepared = run(project, "lessonkit.cli", "prepare")
    assert prepared.returncode == 0, prepared.stderr
    assert " 0 ran;" in prepared.stderr, "MkDocs' results (built_site) serve every host"
    sites = {"MkDocs": project / "site-mkdocs", "ProperDocs": project / "site-properdocs"}
    sites["Zensical"] = project / "site"  # mkdocs.yml's site_dir

    def one(host: str) -> subprocess.CompletedProcess[str]:
        if host == "Zensical":
            return run(project, "zensical", "build", "--strict")
        return build(host, project, sites[host])

    with ThreadPoolExecutor(max_workers=3) as pool:
        done = dict(zip(HOSTS, pool.map(one, HOSTS), strict=True))
    for host, result in done.items():
        assert result.returncode == 0, f"{host} failed:\n{result.stdout}\n{result.stderr}"
    return project, sites


def content(page: str) -> str:
    """A built page's content: from its h1 to the end of its "Report a mistake" box."""
    start = page.index("<h1")
    return page[start : page.index("</aside>", page.index('class="lk-report"', start)) + 8]


def carried(page: str, lesson, result, terms: bool = True) -> dict[str, bool | None]:
    """Which features a built page carries (None: the page has nothing of that feature).

    Executed outputs, values and figures are measured against the page's own results; ``terms``
    says whether the page's prose uses a glossary term at all (else no tooltip is due)."""
    steps = list(zip(lesson.program.steps, result.steps if result else [], strict=False))
    outputs = [(s.option("output", "text"), r.stdout) for s, r in steps if r.stdout]
    values = [r.text for s, r in steps if s.kind == "value"]
    figures = sum(len(r.figures) for _, r in steps)
    has = {
        "executed output": outputs,
        "inline value": values,
        "figure": figures,
        "doctest": any(s.kind == "doctest" for s, _ in steps),
        "quiz": "/// quiz" in lesson.body,
        "resources": bool(lesson.meta.get("resources")),
        "tooltip": terms,
        "words box": terms,
    }

    def on_page(text: str) -> bool:
        return html.escape(text.rstrip("\n"), quote=False) in page

    def shown(kind: str, out: str) -> bool:
        """A block's output on the page: its HTML as it is, its text escaped, every number of
        its Markdown (a table: its cells)."""
        if kind == "html":
            return out.strip() in page
        if kind == "markdown":
            return all(n in page for n in re.findall(r"\d+\.\d+", out))
        return on_page(out)

    found = {
        "executed output": all(shown(kind, out) for kind, out in outputs),
        "inline value": all(on_page(v) for v in values),
        "figure": page.count('<figure class="lk-figure"><svg') == figures,
        "doctest": 'class="gp">&gt;&gt;&gt; </span>' in page,
        "tooltip": 'role="tooltip"' in page and 'class="lk-term__link"' in page,
        "words box": "Words on this page" in page,
        "quiz": 'class="lk-quiz' in page and "/// quiz" not in page,
        "resources": 'class="lk-resources"' in page,
        "report links": 'class="lk-report__link"' in page,
    }
    return {k: (v if has.get(k, True) else None) for k, v in found.items()}


@pytest.fixture(scope="session")
def features(host_sites) -> dict[str, dict[str, dict[str, bool | None]]]:
    """host -> page -> feature -> carried."""
    project, sites = host_sites
    config = load_config((project / "mkdocs.yml").read_text(encoding="utf-8"), resolve=True)
    config_file = project / "mkdocs.yml"
    settings = Project.from_text(config_file.read_text(encoding="utf-8"), config_file).settings
    site = Site(SiteConfig.of(config, project, settings))
    docs = project / "docs"
    site.sources = prepared_notebooks(docs)  # a notebook lesson's page: read from its notebook
    pages = {p.relative_to(docs).as_posix() for p in docs.rglob("*.md")} | set(site.sources)
    lessons = {p: site.read(p) for p in sorted(pages) if p != "glossary.md"}
    assert site.engine is not None
    results = {p: site.engine.result(s.program, s.where, s.text) for p, s in lessons.items()}
    terms = site.glossary.glossary if site.glossary else None
    uses_terms = {  # where the glossary extension could link a term in the page's prose
        p: bool(terms and _uses(mask_code(s.body), [], terms)) for p, s in lessons.items()
    }
    site.close()
    table: dict[str, dict[str, dict[str, bool | None]]] = {}
    for host, built in sites.items():
        table[host] = {}
        for path, lesson in lessons.items():
            url = site.config.page_url(path)
            page = (built / url / "index.html").read_text(encoding="utf-8")
            table[host][path] = carried(page, lesson, results[path], uses_terms[path])
    return table


def test_every_host_carries_every_feature_on_every_page(features) -> None:
    reference = features["MkDocs"]
    for feature in next(iter(reference.values())):
        assert any(page[feature] for page in reference.values()), f"no page shows {feature}"
    for host, pages in features.items():
        for path, carried_here in pages.items():
            missing = [f for f, ok in carried_here.items() if ok is False]
            assert not missing, f"{host}: {path} lacks {', '.join(missing)}"
            assert carried_here == reference[path], f"{host} and MkDocs differ on {path}"


def test_every_host_renders_the_same_content(host_sites) -> None:
    _, sites = host_sites
    for page in sorted((sites["MkDocs"]).rglob("index.html")):
        relative = page.relative_to(sites["MkDocs"])
        if relative.parts[0] in ("search", "assets"):
            continue
        expected = content(page.read_text(encoding="utf-8"))
        for host in ("ProperDocs", "Zensical"):
            other = content((sites[host] / relative).read_text(encoding="utf-8"))
            other = other.replace('href="../"', 'href=".."') if host == "Zensical" else other
            assert other == expected, f"{host}'s {relative} differs from MkDocs'"


NOTEBOOK = "building-blocks/attention-in-numbers.ipynb"
PATH_DATA = re.compile(r'<script type="application/json" id="lk-path">(.*?)</script>')


def path_data(site: Path) -> dict[str, dict | None]:
    """Each built page's data for the progress script (None where it has none)."""
    found = {}
    for page in sorted(site.rglob("index.html")):
        if page.relative_to(site).parts[0] not in ("search", "assets"):
            match = PATH_DATA.search(page.read_text(encoding="utf-8"))
            found[page.relative_to(site).as_posix()] = json.loads(match[1]) if match else None
    return found


def site_level(sites: dict[str, Path]) -> dict[str, dict[str, bool]]:
    """host -> site-level output -> whether the built site has it."""
    reference = (sites["MkDocs"] / NOTEBOOK).read_bytes()
    downloads = {  # every notebook MkDocs publishes (a notebook lesson's: x.executed.ipynb)
        p.relative_to(sites["MkDocs"]): p.read_bytes() for p in sites["MkDocs"].rglob("*.ipynb")
    }
    data = path_data(sites["MkDocs"])
    lessons = data["index.html"]["lessons"] if data["index.html"] else []
    found = {}
    for host, site in sites.items():
        glossary = (site / "glossary" / "index.html").read_text(encoding="utf-8")
        notebook = site / NOTEBOOK
        cells = json.loads(notebook.read_bytes())["cells"] if notebook.is_file() else []
        home = (site / "index.html").read_text(encoding="utf-8")
        assets = [site / "assets" / "lessonkit" / f"lessonkit.{kind}" for kind in ("css", "js")]
        printed = site / "print" / "index.html"
        printed_html = printed.read_text(encoding="utf-8") if printed.is_file() else ""
        found[host] = {
            "print page": len(lessons) > 1
            and printed_html.count('<section class="lk-print__lesson"') == len(lessons)
            and 'id="answers"' in printed_html
            and 'class="lk-print__glossary"' in printed_html,
            "home page's link to the print page": '<a href="print/">the whole path on one page'
            in home,
            "progress data": len(data) > 1
            and all(d and d["lessons"] == lessons for d in data.values())
            and path_data(site) == data,
            "glossary page": 'id="token"' in glossary and "Used on: <a" in glossary,
            "notebook": any(c.get("outputs") for c in cells)
            and notebook.read_bytes() == reference
            and all(
                (site / p).is_file() and (site / p).read_bytes() == b for p, b in downloads.items()
            ),
            "lessonkit's CSS and JS": all(a.is_file() for a in assets)
            and home.count("assets/lessonkit/lessonkit.css") == 1
            and home.count("assets/lessonkit/lessonkit.js") == 1,
        }
    return found


def test_every_host_gets_the_site_level_outputs(host_sites) -> None:
    """The glossary page with its "used on" lists, the same notebook (with the page's results),
    lessonkit's CSS and JS loaded once."""
    for host, outputs in site_level(host_sites[1]).items():
        missing = [name for name, ok in outputs.items() if not ok]
        assert not missing, f"{host} lacks {', '.join(missing)}"


def hosts_table(features, sites: dict[str, Path]) -> str:
    """The README's feature-by-host table, as measured."""
    rows = ["| feature | " + " | ".join(HOSTS) + " |", "| --- |" + " --- |" * len(HOSTS)]
    for feature in next(iter(features["MkDocs"].values())):
        cells = [all(p[feature] is not False for p in features[h].values()) for h in HOSTS]
        rows.append(f"| {feature} | " + " | ".join("yes" if c else "no" for c in cells) + " |")
    outputs = site_level(sites)
    for name in outputs["MkDocs"]:
        cells = ["yes" if outputs[h][name] else "no" for h in HOSTS]
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def test_the_readme_table_is_what_was_measured(features, host_sites) -> None:
    table = hosts_table(features, host_sites[1])
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert table in readme, f"README's Hosts table should read:\n{table}"


def test_zensical_clean_keeps_the_cache_and_runs_nothing(host_sites) -> None:
    project, _ = host_sites
    cleaned = run(project, "zensical", "build", "--clean", "--strict")
    assert cleaned.returncode == 0, cleaned.stderr
    assert (project / Settings().cache_dir).is_dir(), "lessonkit's cache survived --clean"
    pages = len(list((project / "docs").rglob("*.md")))
    assert f"lessonkit: {pages} page(s) converted, 0 ran" in cleaned.stderr, cleaned.stderr


LAB_PAGE = """\
---
title: Lab
description: A page whose number comes from a module outside the docs.
---

# Lab

```python exec source="hide"
import labmod
```

The value is {{ labmod.VALUE }}.
"""
OTHER_PAGE = "---\ntitle: Other\ndescription: No lab.\n---\n\n# Other\n\nSix sevens: {{ 6 * 7 }}.\n"
SMALL_SITE = """\
site_name: small
theme:
  name: material
  font: false
plugins:
  - lessonkit:
      workers: 1
markdown_extensions: [pymdownx.superfences, lessonkit.hosts.zensical]
extra_css: [assets/lessonkit/lessonkit.css]
extra_javascript: [assets/lessonkit/lessonkit.js]
watch: [docs]
"""


def with_path(folder: Path) -> dict[str, str]:
    """The environment with ``folder`` first on Python's path (lessonkit stays importable)."""
    return {
        **ENV,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(folder), ENV.get("PYTHONPATH")])),
    }


def small_site(folder: Path, pages: dict[str, str]) -> Path:
    (folder / "docs").mkdir(parents=True)
    for name, text in pages.items():
        (folder / "docs" / name).write_text(text)
    (folder / "mkdocs.yml").write_text(SMALL_SITE)
    return folder


def test_a_lab_edit_reruns_the_page_that_uses_it_under_zensical(tmp_path: Path) -> None:
    site = small_site(tmp_path / "site", {"index.md": LAB_PAGE, "other.md": OTHER_PAGE})
    lab = tmp_path / "lab"
    lab.mkdir()
    (lab / "labmod.py").write_text("VALUE = 41\n")
    env = with_path(lab)
    first = build("Zensical", site, env=env)
    assert first.returncode == 0, first.stderr
    assert "The value is 41." in (site / "site" / "index.html").read_text()
    (lab / "labmod.py").write_text("VALUE = 42  # edited\n")
    prepared = run(site, "lessonkit.cli", "prepare", env=env)
    assert "2 page(s), 1 ran" in prepared.stderr, "only the page that imports the module ran"
    second = run(site, "zensical", "build", "--strict", env=env)
    assert second.returncode == 0, second.stderr
    assert "The value is 42." in (site / "site" / "index.html").read_text(), "no stale number"


LINKS_PAGE = "---\ntitle: Links\ndescription: A link.\n---\n\n# Links\n\nSee [other](other.md).\n"


def prepare_in(site: Path, env: dict[str, str]) -> str:
    """``lessonkit prepare`` in ``site``: its summary line (it must succeed)."""
    done = run(site, "lessonkit.cli", "prepare", env=env)
    assert done.returncode == 0, done.stderr
    return done.stderr.strip().splitlines()[-1]


def test_a_warm_prepare_converts_nothing_and_the_cache_keeps_only_what_the_site_uses(
    tmp_path: Path,
) -> None:
    """Unchanged pages are not converted again; a lab edit re-runs and re-converts the page that
    uses it (only that one); the checks still run on every page; after each whole run the cache
    holds one entry and one record per page, however many edits came before."""
    site = small_site(
        tmp_path / "site", {"index.md": LAB_PAGE, "other.md": OTHER_PAGE, "links.md": LINKS_PAGE}
    )
    lab = tmp_path / "lab"
    lab.mkdir()
    (lab / "labmod.py").write_text("VALUE = 41\n")
    env = with_path(lab)
    assert "3 page(s), 2 ran; 3 converted;" in prepare_in(site, env)
    assert "3 page(s), 0 ran; 0 converted; 0 file(s) written" in prepare_in(site, env)
    (lab / "labmod.py").write_text("VALUE = 42  # edited\n")
    assert "3 page(s), 1 ran; 1 converted;" in prepare_in(site, env)
    for n in range(3):
        (site / "docs" / "other.md").write_text(OTHER_PAGE.replace("6 * 7", f"6 * {n}"))
        assert "3 page(s), 1 ran; 1 converted;" in prepare_in(site, env)
    cache = site / Settings().cache_dir
    entries = [p for p in cache.glob("*.json") if re.fullmatch(r"[0-9a-f]{64}\.json", p.name)]
    assert len(entries) == 2, "one entry per page with code"
    records = json.loads((cache / "prepare" / "pages.records").read_text())
    assert len(json.loads(records["pages"])) == 3, "one record per page"
    (site / "docs" / "other.md").unlink()
    broken = run(site, "lessonkit.cli", "prepare", env=env)
    assert broken.returncode == 1, "links.md's record does not skip its checks"
    assert "docs/links.md:8: error:" in broken.stderr, broken.stderr


def test_prepare_does_not_overwrite_a_print_page_of_the_sites_own(tmp_path: Path) -> None:
    site = small_site(tmp_path / "site", {"index.md": OTHER_PAGE, "print.md": LINKS_PAGE})
    config = site / "mkdocs.yml"
    config.write_text(config.read_text() + "nav:\n  - Learning path:\n      - index.md\n")
    done = run(site, "lessonkit.cli", "prepare")
    assert done.returncode == 1, done.stderr
    assert "docs/print.md: error: lessonkit makes print.md, but" in done.stderr
    assert (site / "docs" / "print.md").read_text() == LINKS_PAGE, "nothing written"


BROKEN = """\
---
title: Broken
description: Its code fails.
---

# Broken

Some prose.

```python exec
def ratio(a, b):
    return a / b

print(ratio(1, 0))
```
"""


def test_a_broken_lesson_fails_every_host_with_the_same_message(tmp_path: Path) -> None:
    """Each host's build fails naming the file and line; Zensical's too, when the page breaks
    after ``lessonkit prepare`` ran (as under ``zensical serve``), and ``prepare`` itself."""
    fine = BROKEN.replace("ratio(1, 0)", "ratio(1, 1)")
    expected = "docs/broken.md:12: error: ZeroDivisionError: division by zero"
    site = small_site(tmp_path / "site", {"broken.md": fine})
    assert run(site, "lessonkit.cli", "prepare").returncode == 0
    (site / "docs" / "broken.md").write_text(BROKEN)

    def one(host: str) -> subprocess.CompletedProcess[str]:
        if host == "Zensical":
            return run(site, "zensical", "build", "--strict")
        if host == "prepare":
            return run(site, "lessonkit.cli", "prepare")
        return build(host, site, tmp_path / host)

    with ThreadPoolExecutor(max_workers=4) as pool:
        done = dict(zip((*HOSTS, "prepare"), pool.map(one, (*HOSTS, "prepare")), strict=True))
    for host, result in done.items():
        assert result.returncode != 0, f"{host} built a broken lesson"
        found = PROBLEM.findall(result.stdout + result.stderr)
        assert found == [expected], f"{host}: {result.stdout}{result.stderr}"
