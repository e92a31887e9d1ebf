"""lessonkit's options: one schema that every host and the command line read.

>>> s = Settings.from_options({"workers": 2, "glossary": ""})
>>> s.workers, s.timeout, s.glossary_file(Path("/site/docs"))
(2, 10, None)
>>> Settings.from_options({"worker": 2})
Traceback (most recent call last):
lessonkit.core.problems.LessonError: mkdocs.yml: error: unknown lessonkit option 'worker'
  hint: did you mean 'workers'? The options are: assets_dir, execute, cache_dir, timeout, \
output_limit, memory_limit, generated_alt_text, \
workers, glossary, glossary_page, glossary_unused, front_matter_keys
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from lessonkit.core.problems import LessonError, Problem

DEFAULT_GLOSSARY = "glossary.yml"


class Option(NamedTuple):
    """One option; ``nullable``: whether ``None`` means "not set"."""

    name: str
    default: Any
    types: tuple[type, ...]
    help: str
    choices: tuple[str, ...] = ()
    nullable: bool = False


_SCHEMA: list[dict[str, Any]] = []  # each Settings field's schema, in field order


def _option(default: Any, help: str, types: tuple[type, ...], **more: Any) -> Any:
    """A :class:`Settings` field's default; its schema goes to :data:`OPTIONS`."""
    _SCHEMA.append({"default": default, "types": types, "help": help, **more})
    return default


class Settings(NamedTuple):
    """A site's options, defaults filled in."""

    assets_dir: str = _option(
        "assets/lessonkit",
        "Where lessonkit's CSS and JS are placed in the built site (loaded once, never inlined).",
        (str,),
    )
    execute: bool = _option(
        True,
        "Run `python exec` blocks, doctests and inline values (off: show them as plain code).",
        (bool,),
    )
    cache_dir: str = _option(
        ".lessonkit/cache",
        "Where execution results are cached, relative to mkdocs.yml (git-ignored). Not under "
        "`.cache/`, which `zensical build --clean` deletes: every host shares it.",
        (str,),
    )
    timeout: float = _option(
        10,
        "Seconds one block may run before it is stopped; a block can set its own timeout=.",
        (int, float),
    )
    output_limit: int = _option(
        4 * 2**20,
        "Bytes of output one page may produce (printed text, doctest output, values and "
        "figures); the block that passes it fails at its line.",
        (int,),
    )
    memory_limit: int = _option(
        4 * 2**30,
        "Bytes of memory one page's process may allocate; a page that needs more fails with a "
        "MemoryError at its block.",
        (int,),
    )
    generated_alt_text: bool = _option(
        True,
        "A notebook lesson's figure without alt text gets a description generated from the "
        "figure, marked as generated (off: a missing alt text is an error, as in Markdown).",
        (bool,),
    )
    workers: int = _option(
        0, "Worker processes that run pages in parallel; 0 means one per CPU core.", (int,)
    )
    glossary: str | None = _option(
        None,
        f"The glossary YAML, relative to docs_dir. Not set: `{DEFAULT_GLOSSARY}` if docs_dir "
        "has one; an empty string: no glossary.",
        (str,),
        nullable=True,
    )
    glossary_page: str = _option(
        "glossary.md",
        "The glossary page generated from it (a virtual file: list it in `nav` like a page).",
        (str,),
    )
    glossary_unused: str = _option(
        "info",
        "A term no page uses is logged as 'info', or as 'warn' (which fails a --strict build).",
        (str,),
        choices=("info", "warn"),
    )
    front_matter_keys: list[str] = _option(  # shared by every Settings: none changes it
        [],
        "Front matter keys a page may have besides the ones lessonkit, MkDocs and Material read "
        "(e.g. a key another plugin reads); any other key is an error, as a typo would be.",
        (list,),
    )

    @classmethod
    def from_options(cls, options: Mapping[str, Any], where: str = "mkdocs.yml") -> Settings:
        """Validate the plugin's options in ``mkdocs.yml``; fill in defaults."""
        known = {o.name: o for o in OPTIONS}
        problems = [_unknown(name, where) for name in options if name not in known]
        values = {name: value for name, value in options.items() if name in known}
        invalid = (_invalid(known[name], value, where) for name, value in values.items())
        problems += [problem for problem in invalid if problem]
        if problems:
            raise LessonError(problems)
        return cls(**values)

    def glossary_file(self, docs_dir: Path) -> Path | None:
        """The glossary YAML, or None: unset means ``glossary.yml`` if there is one, '' none."""
        if self.glossary is None:
            default = docs_dir / DEFAULT_GLOSSARY
            return default if default.is_file() else None
        return docs_dir / self.glossary if self.glossary else None


def _unknown(name: str, where: str) -> Problem:
    names = [o.name for o in OPTIONS]
    close = difflib.get_close_matches(str(name), names, n=1)
    hint = (f"did you mean {close[0]!r}? " if close else "") + "The options are: "
    return Problem(f"unknown lessonkit option {name!r}", hint=hint + ", ".join(names), path=where)


def _invalid(option: Option, value: Any, where: str) -> Problem | None:
    if value is None and option.nullable:
        return None
    wrong_type = not isinstance(value, option.types) or (
        isinstance(value, bool) and bool not in option.types
    )
    if wrong_type:
        kinds = " or ".join(t.__name__ for t in option.types)
        message = f"lessonkit option {option.name!r} must be {kinds}, not {value!r}"
        return Problem(message, hint=option.help, path=where)
    if option.choices and value not in option.choices:
        message = f"lessonkit option {option.name!r} must be one of {', '.join(option.choices)}"
        return Problem(message, hint=option.help, path=where)
    return None


OPTIONS: tuple[Option, ...] = tuple(
    Option(name, **schema) for name, schema in zip(Settings._fields, _SCHEMA, strict=True)
)
