"""lessonkit's options: one schema that every host and the command line read.

The MkDocs plugin's ``config_scheme`` is made from :data:`OPTIONS`
(:mod:`lessonkit.hosts.mkdocs.config`); ``lessonkit check`` reads the same options from
``mkdocs.yml`` with :meth:`Settings.from_options`, and :meth:`Settings.glossary_file` is the
one rule for where the glossary is. So a build and a check cannot disagree about them.

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

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lessonkit.core.problems import LessonError, Problem
from lessonkit.core.records import Record

DEFAULT_GLOSSARY = "glossary.yml"


class Option(Record):
    """One option: its name, accepted types, default, choices and what it does."""

    name: str
    default: Any
    types: tuple[type, ...]
    help: str
    choices: tuple[str, ...] = ()
    nullable: bool = False
    """``None`` (``null`` in YAML) is accepted and means "not set"."""


_SCHEMA: list[dict[str, Any]] = []
"""Each :class:`Settings` field's schema, in field order, as :func:`_option` records it."""


def _option(
    default: Any,
    help: str,
    types: tuple[type, ...],
    choices: tuple[str, ...] = (),
    nullable: bool = False,
) -> Any:
    """A :class:`Settings` field's default; its schema is kept for :data:`OPTIONS` (the name
    comes from the field)."""
    _SCHEMA.append(
        {"default": default, "types": types, "help": help, "choices": choices, "nullable": nullable}
    )
    return default


class Settings(Record):
    """The options of one site, every one set (defaults filled in). Never changed: a
    ``NamedTuple``, which every build defines in a fifth of a frozen dataclass's time."""

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
    front_matter_keys: list[str] = _option(  # one list for every Settings: none changes it
        [],
        "Front matter keys a page may have besides the ones lessonkit, MkDocs and Material read "
        "(e.g. a key another plugin reads); any other key is an error, as a typo would be.",
        (list,),
    )

    @classmethod
    def from_options(cls, options: Mapping[str, Any], where: str = "mkdocs.yml") -> Settings:
        """Validate ``options`` (the plugin's mapping in ``mkdocs.yml``) and fill in defaults."""
        known = {o.name: o for o in OPTIONS}
        problems = [_unknown(name, where) for name in options if name not in known]
        values = {}
        for name, value in options.items():
            if name in known:
                problem = _invalid(known[name], value, where)
                problems += [problem] if problem else []
                values[name] = value
        if problems:
            raise LessonError(problems)
        return cls(**values)

    def glossary_file(self, docs_dir: Path) -> Path | None:
        """The glossary YAML this site uses, or None: the one rule for where it is.

        Not set (or ``null``): ``glossary.yml`` in ``docs_dir`` if there is one; an empty string:
        none; a name: that file (which must then exist: loading it says so otherwise).
        """
        if self.glossary is None:
            default = docs_dir / DEFAULT_GLOSSARY
            return default if default.is_file() else None
        return docs_dir / self.glossary if self.glossary else None


def _unknown(name: str, where: str) -> Problem:
    names = [o.name for o in OPTIONS]
    import difflib  # only for a hint: most builds never need it

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
"""Every option in ``mkdocs.yml`` order of documentation, read from :class:`Settings`."""
