"""A cell's IPython syntax keeps its lines: an error names the line the author wrote."""

from __future__ import annotations

import pytest

from lessonkit.notebooks import ipython


@pytest.mark.parametrize(
    "source", ["%time x = 1\n!true\ny = undefined", "%matplotlib inline\n\ny = undefined\n"]
)
def test_an_error_after_ipython_syntax_names_its_own_line(source: str) -> None:
    namespace: dict = {}
    ipython.bind(namespace)
    with pytest.raises(NameError) as raised:
        exec(compile(ipython.prepare_cell(source), "cell", "exec"), namespace)
    line = raised.traceback[-1].lineno + 1  # pytest numbers lines from 0
    assert source.split("\n")[line - 1] == "y = undefined"


def test_a_cell_magic_is_one_line_and_blank_ones() -> None:
    code = ipython.prepare_cell("%%bash\necho hi\nls\n")
    assert code.split("\n")[1:] == ["", "", ""]


def test_code_that_is_not_python_for_ipython_either_comes_back_as_written() -> None:
    source = "%time x = 1\ny = (\n"
    assert ipython.prepare_cell(source) == source  # its SyntaxError names the author's line


def test_clear_output_forgets_what_the_cell_displayed() -> None:
    namespace: dict = {}
    shell = ipython.bind(namespace)
    code = "display(1)\nfrom IPython.display import clear_output\nclear_output()\ndisplay(2)"
    with ipython.DisplayCapture(shell) as capture:
        exec(code, namespace)
    assert [s.bundle["text/plain"] for s in capture.shown] == ["2"]
