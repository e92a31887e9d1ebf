"""Take a page's inline SVG figures out of its HTML while a host indexes it, then put them back
(a figure is hundreds of tags for the search index's parser, and no search terms).

>>> html, figures = cut('<p>a</p><figure class="lk-figure"><svg><g/></svg></figure>')
>>> html
'<p>a</p><figure class="lk-figure"><svg data-lk-figure="0"></svg></figure>'
>>> restore(html, figures, "a.md")
'<p>a</p><figure class="lk-figure"><svg><g/></svg></figure>'
"""

from __future__ import annotations

from lessonkit.core.problems import LessonError, Problem

_FIGURE_SVG = '<figure class="lk-figure"><svg'


def cut(html: str, first: int = 0) -> tuple[str, list[str]]:
    """Take each figure's SVG out of ``html``, leaving slots numbered from ``first``.

    >>> cut('<figure class="lk-figure"><svg><g/></svg></figure>', first=2)[0]
    '<figure class="lk-figure"><svg data-lk-figure="2"></svg></figure>'
    """
    parts: list[str] = []
    figures: list[str] = []
    done = 0
    while (start := html.find(_FIGURE_SVG, done)) >= 0:
        start += len(_FIGURE_SVG) - len("<svg")
        end = html.find("</svg>", start)
        if end < 0:
            break
        end += len("</svg>")
        parts += [html[done:start], _slot(first + len(figures))]
        figures.append(html[start:end])
        done = end
    return "".join(parts) + html[done:], figures


def restore(html: str, figures: list[str], where: str) -> str:
    """Put ``figures`` back into their slots; LessonError if a slot went missing."""
    missing = sum(_slot(number) not in html for number in range(len(figures)))
    if missing:
        message = (
            f"{missing} of its {len(figures)} figures went missing between rendering and "
            "writing the page (did another plugin rewrite it?)"
        )
        raise LessonError([Problem(message, path=where)])
    for number, svg in enumerate(figures):
        html = html.replace(_slot(number), svg)
    return html


def _slot(number: int) -> str:
    return f'<svg data-lk-figure="{number}"></svg>'
