"""Pages converted once their code is done (``hosts/mkdocs/runs.py``): a cold build converts
most pages there, and holds no converted page's run while the others wait."""

from __future__ import annotations

import gc
from concurrent.futures import Future
from types import SimpleNamespace

from lessonkit.execute.program import parse_program
from lessonkit.execute.results import PageResult, StepResult
from lessonkit.hosts.mkdocs.runs import Deferred


class Page:
    """What ``Deferred`` uses of a MkDocs page: its Markdown, ``render`` and its content."""

    def __init__(self, number: int, rendered: list[tuple[int, list[bool]]], held: list) -> None:
        self.number, self.rendered, self.held = number, rendered, held
        self.markdown = self.content = ""

    def render(self, config: object, files: object) -> None:
        self.rendered.append((self.number, [output in _alive() for output in self.held]))
        self.content = f"<p>{self.markdown}</p>"


def _alive() -> set[str]:
    """The outputs of the results still alive (a result is a tuple: no weak reference to it)."""
    gc.collect()
    found = (o for o in gc.get_objects() if type(o) is PageResult)
    return {r.steps[0].stdout for r in found if r.steps}


def test_a_converted_page_lets_go_of_its_run_while_the_others_convert() -> None:
    """Each page's result (its outputs and figures) is let go of once the page is converted,
    not when the last page is: a cold build of many pages would otherwise hold them all."""
    deferred, rendered, held = Deferred(), [], []
    pages = [Page(number, rendered, held) for number in range(3)]
    for page in pages:
        output = f"page {page.number} " + "x" * 1000
        result = PageResult(steps=[StepResult(stdout=output)])
        held.append(output)
        future: Future[PageResult] = Future()
        future.set_result(result)
        program = parse_program(f"Page {page.number}.\n")
        deferred.add(page, f"page {page.number}", program, future, lambda problem: problem)
    del result, future
    config = SimpleNamespace(plugins=SimpleNamespace(on_page_content=lambda html, **_: html))
    deferred.convert(config, files=None, prepare=lambda markdown, program, result: None)  # type: ignore[arg-type]
    assert sorted(number for number, _ in rendered) == [0, 1, 2]
    for position, (_, alive) in enumerate(rendered):
        earlier = [number for number, _ in rendered[:position]]
        assert not any(alive[number] for number in earlier), rendered
    assert [page.content for page in pages] == [f"<p>page {n}</p>" for n in range(3)]


def test_a_result_there_already_converts_with_the_runs_and_its_problems_are_reported() -> None:
    """The engine hands a cached result back as a future already done: it converts first,
    and a failed one is reported with the pages whose runs failed."""
    from lessonkit.core.problems import LessonError, Problem
    from lessonkit.execute.engine import finished

    deferred, rendered = Deferred(), []
    pages = [Page(number, rendered, []) for number in range(3)]
    running: Future[PageResult] = Future()
    outcomes = [
        running,
        finished(PageResult()),
        finished(PageResult(problems=[Problem("boom", 2)])),
    ]
    for page, outcome in zip(pages, outcomes, strict=True):
        deferred.add(page, "text", parse_program("Text.\n"), outcome, lambda problem: problem)
    running.set_result(PageResult(problems=[Problem("crash", 1)]))
    config = SimpleNamespace(plugins=SimpleNamespace(on_page_content=lambda html, **_: html))
    try:
        deferred.convert(config, files=None, prepare=lambda *_: None)  # type: ignore[arg-type]
    except LessonError as error:
        assert [p.message for p in error.problems] == ["crash", "boom"]  # the pages' order
    else:
        raise AssertionError("the failed pages were not reported")
