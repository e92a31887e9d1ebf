"""pymdown's block processor runs only on a page whose text can open a block.

Every pymdown block (the quiz and any other ``pymdownx.blocks`` extension a site lists) opens
with a ``///`` line, and pymdown's processor tests every block of every page for one: a regex
search over each paragraph, about half of what the quiz extension costs a page. The Markdown
Python-Markdown's block parser reads is the page's lines with containers' prefixes (indents,
``>``) taken off, so a page whose lines hold no ``///`` has no block to open. Before the block
parser starts (priority 21: after fenced code, at 25, and lessonkit's executed blocks, at 29,
put their output in; before raw HTML, at 20, is stashed, so the Markdown inside
``<div markdown>`` is still in the lines) the gate takes the processor out of the parser for
such a page and puts it back for a page that has one (a host may convert many pages with one
``Markdown``). Should a later preprocessor add a block, the quiz's page check still finds its
``/// quiz`` left as text and fails the build (:func:`lessonkit.quiz.page.finish_page`).

>>> import markdown
>>> from lessonkit.quiz import QuizExtension
>>> md = markdown.Markdown(extensions=[QuizExtension()])
>>> md.convert("No block here.")
'<p>No block here.</p>'
>>> "blocks" in md.parser.blockprocessors
False
>>> "lk-quiz" in md.convert("/// quiz\\nQ?\\n\\n- [x] A\\n- [ ] B\\n\\n    Not quite.\\n///")
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from markdown import Markdown
from markdown.preprocessors import Preprocessor

if TYPE_CHECKING:  # pymdown's blocks are loaded for the first page that may open one
    from pymdownx.blocks import BlocksProcessor

BLOCKS = "blocks"
BLOCKS_PRIORITY = 89.99
"""Where ``pymdownx.blocks`` registers its processor (right after list indentation); the gate
puts it back there (``tests/quiz/test_quiz_gate.py`` checks the order is pymdown's own)."""


class BlocksGate(Preprocessor):
    """Take pymdown's block processor out of the parser for a page without ``///``; ``open``
    says whether the page being converted may hold a block. ``setup`` registers the quiz's
    block on the Markdown and returns pymdown's processor: called for the first page that may
    open a block, so a build whose pages hold none never loads ``pymdownx.blocks``."""

    def __init__(self, md: Markdown, setup: Callable[[Markdown], BlocksProcessor]) -> None:
        super().__init__(md)
        self.setup = setup
        self.blocks: BlocksProcessor | None = None
        self.open = True

    def run(self, lines: list[str]) -> list[str]:
        self.open = "///" in "\n".join(lines)  # one search in C, not one a line (build speed)
        processors = self.md.parser.blockprocessors
        if BLOCKS in processors:  # another extension's blocks, or the quiz's, set up before
            self.blocks = processors[BLOCKS]  # type: ignore[assignment]
        if not self.open:
            processors.deregister(BLOCKS, strict=False)
            return lines
        if self.blocks is not None and BLOCKS not in processors:
            processors.register(self.blocks, BLOCKS, BLOCKS_PRIORITY)
        if self.blocks is None or "quiz" not in self.blocks.blocks:
            self.blocks = self.setup(self.md)  # finds the processor put back, if there is one
        return lines


def register(md: Markdown, setup: Callable[[Markdown], BlocksProcessor]) -> BlocksGate:
    """Register the gate (at 21.5: before the quiz's raw HTML escape, at 21)."""
    gate = BlocksGate(md, setup)
    md.preprocessors.register(gate, "lessonkit_blocks_gate", 21.5)
    return gate
