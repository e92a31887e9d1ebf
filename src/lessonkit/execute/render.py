"""Put a page's results back into its Markdown, in place of the blocks and values.

``stash(html)`` (``md.htmlStash.store``) keeps raw HTML from the Markdown parser.

>>> from lessonkit.execute.program import parse_program
>>> from lessonkit.execute.runner import run_program
>>> text = '''```python exec source="hide"
... weights = [0.8443, 0.1142]
... ```
...
... The first weight is {{ weights[0]:.2f }}.'''
>>> program = parse_program(text)
>>> render(text, program, run_program(program, "p.md"), stash=lambda html: html).split("\\n")
['', '', 'The first weight is 0.84.']
"""

from __future__ import annotations

import html
from collections.abc import Callable

from lessonkit.execute.program import Program, Step
from lessonkit.execute.results import PageResult, StepResult

Stash = Callable[[str], str]


def render(text: str, program: Program, result: PageResult, stash: Stash) -> str:
    """Return ``text`` with every step replaced by what it produced."""
    lines = text.split("\n")
    pairs = list(zip(program.steps, program.spans, result.steps, strict=True))
    # Replace from the end so earlier spans keep their positions.
    for step, span, out in sorted(pairs, key=lambda p: (p[1].start, p[1].column), reverse=True):
        if step.kind == "value":
            line = lines[span.start]
            inline = stash(html.escape(out.text, quote=False))
            lines[span.start] = line[: span.column] + inline + line[span.column + span.length :]
        else:
            rendered = _render_block(step, out, stash)
            indented = [span.indent + r if r else r for r in rendered]
            lines[span.start : span.end] = indented
    return "\n".join(lines)


def _render_block(step: Step, out: StepResult, stash: Stash) -> list[str]:
    if step.kind == "doctest":
        return ["```pycon", *out.text.split("\n"), "```"]
    parts: list[str] = []
    if step.option("source", "show") == "show":
        title = step.option("title")
        header = f'```python title="{title}"' if title else "```python"
        parts += [header, *step.source.split("\n"), "```", ""]
    output = step.option("output", "text")
    if output != "none":
        start = 0
        for at, kind, text in [*out.shown, (len(out.stdout), "", "")]:
            if printed := out.stdout[start:at]:
                parts += _output(output, printed, stash)
            start = max(start, at)
            parts += _output(kind, text, stash) if kind else []
    for figure in out.figures:
        parts += [stash(f'<figure class="lk-figure">{figure.svg}</figure>'), ""]
    return parts or [""]


def _output(kind: str, text: str, stash: Stash) -> list[str]:
    """One piece of a block's output as Markdown lines, shown as ``kind`` says (the block's
    ``output``, or what a notebook cell showed)."""
    if kind in ("text", "error"):
        escaped = html.escape(text.rstrip("\n"), quote=False)
        css = "lk-output lk-error" if kind == "error" else "lk-output"
        return [stash(f'<pre class="{css}"><code>{escaped}</code></pre>'), ""]
    if kind == "markdown":
        return [*text.rstrip("\n").split("\n"), ""]
    return [stash(text.strip()), ""]
