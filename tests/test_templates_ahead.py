"""The theme's templates compile while a first build waits for its pages' code
(``hosts/mkdocs/templates.py``), and the site's bytes do not depend on it."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

from jinja2 import DictLoader, Environment

from lessonkit.hosts.mkdocs.templates import Ahead

HOOKS = '''
from pathlib import Path

def on_env(env, config, files):
    """Between lessonkit's first and last on_env: what is compiled, and a change of settings."""
    names = sorted(key[1] for key in env.cache.keys())
    Path(config.config_file_path).with_name("compiled.txt").write_text("\\n".join(names))
    env.trim_blocks = env.lstrip_blocks = True  # how every template compiles from now on
    return env
'''


def _site(root: Path) -> Path:
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "index.md").write_text(
        "# Waits\n\n```python exec\nimport time\n\ntime.sleep(0.2)\nprint('ran')\n```\n"
    )
    (root / "hooks.py").write_text(HOOKS)
    (root / "mkdocs.yml").write_text(
        textwrap.dedent("""\
            site_name: Ahead
            theme:
              name: material
            hooks: [hooks.py]
            plugins:
              - lessonkit
            """)
    )
    return root


def test_a_first_build_compiles_the_theme_s_templates_while_its_pages_run(
    tmp_path: Path, mkdocs_build
) -> None:
    site = _site(tmp_path / "site")
    result = mkdocs_build(site)
    assert result.returncode == 0, result.stderr
    compiled = (site / "compiled.txt").read_text().split()
    assert {"main.html", "base.html", "partials/header.html", "404.html"} <= set(compiled)


def test_templates_compiled_ahead_are_compiled_again_if_a_plugin_changes_the_settings(
    tmp_path: Path, mkdocs_build
) -> None:
    """A hook sets ``trim_blocks`` in ``on_env``, after lessonkit compiled the templates: the
    first build (it waited, and compiled ahead) writes what the second (it waited for nothing)
    does, byte for byte."""
    site = _site(tmp_path / "site")
    assert mkdocs_build(site).returncode == 0
    cold = (site / "site" / "index.html").read_bytes()
    assert (site / "compiled.txt").read_text()  # the first build compiled ahead
    shutil.rmtree(site / "site")
    result = mkdocs_build(site)
    assert result.returncode == 0, result.stderr
    assert "0 page(s) ran" in result.stderr, result.stderr
    assert not (site / "compiled.txt").read_text()  # the second did not: nothing waited
    assert (site / "site" / "index.html").read_bytes() == cold


def test_settle_forgets_templates_compiled_under_other_settings() -> None:
    env = Environment(loader=DictLoader({"main.html": "{% if true %}\n  kept\n{% endif %}\n"}))
    ahead = Ahead(env, ["main.html"])
    while ahead.step():
        pass
    env.trim_blocks = env.lstrip_blocks = True
    ahead.settle(env)
    assert env.get_template("main.html").render() == "  kept\n"


def test_settle_keeps_templates_when_nothing_changed() -> None:
    env = Environment(loader=DictLoader({"main.html": "x"}))
    ahead = Ahead(env, ["main.html"])
    ahead.step()
    template = env.get_template("main.html")
    ahead.settle(env)
    assert env.get_template("main.html") is template
