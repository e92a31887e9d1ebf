"""The theme's templates compile while a first build waits for its pages' code
(``hosts/mkdocs/templates.py``), and the site's bytes do not depend on it."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

from jinja2 import DictLoader, Environment, FileSystemLoader

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
        "# Waits\n\n```python exec\nimport time\n\ntime.sleep(0.5)\nprint('ran')\n```\n"
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


def _compiled_ahead(env: Environment, *names: str) -> Ahead:
    ahead = Ahead(env, names)
    while ahead.step():
        pass
    return ahead


def test_settle_forgets_templates_compiled_with_a_filter_since_replaced() -> None:
    """Which arguments a filter gets, and a filter of constants, are fixed as a template
    compiles: a plugin that replaces a filter under the same name gets them compiled again."""
    env = Environment(loader=DictLoader({"main.html": "{{ 'x' | shout }} {{ p | shout }}"}))
    env.filters["shout"] = str.upper
    ahead = _compiled_ahead(env, "main.html")
    env.filters["shout"] = lambda text: text + "!"
    ahead.settle(env)
    assert env.get_template("main.html").render(p="p") == "x! p!"


def test_settle_forgets_templates_a_folder_put_first_now_overrides(tmp_path: Path) -> None:
    theme, overrides = tmp_path / "theme", tmp_path / "overrides"
    theme.mkdir(), overrides.mkdir()
    (theme / "main.html").write_text("theme")
    (overrides / "main.html").write_text("override")
    env = Environment(loader=FileSystemLoader([str(theme)]), auto_reload=False)
    ahead = _compiled_ahead(env, "main.html")
    env.loader.searchpath.insert(0, str(overrides))  # type: ignore[union-attr]
    ahead.settle(env)
    assert env.get_template("main.html").render() == "override"


def test_settle_forgets_only_what_it_compiled() -> None:
    env = Environment(loader=DictLoader({"main.html": "{% include 'nav.html' %}", "nav.html": "n"}))
    earlier = env.get_template("nav.html")  # another plugin's, compiled before
    ahead = _compiled_ahead(env, "main.html")
    assert ahead.compiled == ["main.html", "nav.html"]
    env.trim_blocks = True
    ahead.settle(env)
    assert env.get_template("nav.html") is earlier
    assert env.get_template("main.html").render() == "n"


def test_a_template_that_cannot_be_read_is_left_for_mkdocs(tmp_path: Path) -> None:
    """A name found in a comment, of a file that is no UTF-8: compiling ahead passes over it
    (MkDocs never loads it, or fails there as it would have)."""
    (tmp_path / "main.html").write_text('{# {% include "notes.txt" %} #}main')
    (tmp_path / "notes.txt").write_bytes("caf\xe9".encode("latin-1"))
    env = Environment(loader=FileSystemLoader(str(tmp_path)))
    assert _compiled_ahead(env, "main.html", "missing.html").compiled == ["main.html"]
