"""Running a page: per-block output capture, doctests, values and honest errors."""

from pathlib import Path

from lessonkit.execute.filewatch import FileWatch
from lessonkit.execute.program import parse_program
from lessonkit.execute.runner import run_program


def run(text: str, **kwargs):
    return run_program(parse_program(text), "docs/page.md", source_text=text, **kwargs)


def test_a_helper_prints_into_the_block_that_calls_it() -> None:
    result = run(
        "```python exec\ndef say(x):\n    print(x)\nsay('one')\n```\n\n"
        "```python exec\nsay('two')\n```\n"
    )
    assert [s.stdout for s in result.steps] == ["one\n", "two\n"]


def test_pages_never_share_state() -> None:
    run("```python exec\nsecret = 42\n```\n")
    result = run("The secret is {{ secret }}.\n")
    assert not result.ok
    assert "NameError" in result.problems[0].message


def test_inline_values_see_only_blocks_above_them() -> None:
    result = run("{{ x }}\n\n```python exec\nx = 1\n```\n")
    assert result.problems[0].line == 1


def test_last_expression_is_shown_like_a_notebook() -> None:
    result = run("```python exec\n21 * 2\n```\n")
    assert result.steps[0].stdout == "42\n"


def test_markdown_output_is_kept_verbatim() -> None:
    text = '```python exec output="markdown"\nprint("| a |\\n| - |\\n| 1 |")\n```\n'
    assert run(text).steps[0].stdout == "| a |\n| - |\n| 1 |\n"


def test_doctest_transcript_shows_real_output_and_shares_the_namespace() -> None:
    result = run("```python exec\nx = 3\n```\n\n```pycon\n>>> x * 2\n6\n>>> print('a')\na\n```\n")
    assert result.ok
    assert result.steps[1].text == ">>> x * 2\n6\n>>> print('a')\na"


def test_doctest_ellipsis_is_allowed() -> None:
    assert run("```pycon\n>>> 1 / 3\n0.333...\n```\n").ok


def test_doctest_mismatch_names_the_example_line_and_both_outputs() -> None:
    result = run("Intro\n\n```pycon\n>>> 1 + 1\n2\n>>> 2 + 2\n5\n```\n")
    problem = result.problems[0]
    assert problem.line == 6
    assert "expected:\n5" in problem.details and "got:\n4" in problem.details


def test_traceback_lines_point_into_the_markdown_file_not_lessonkit() -> None:
    text = "# T\n\n```python exec\nimport json\njson.loads('{')\n```\n"
    problem = run(text).problems[0]
    assert problem.line == 5
    assert problem.message.startswith("JSONDecodeError")
    assert problem.details == "line 5: json.loads('{')"


def test_a_syntax_error_is_reported_at_its_line_in_the_markdown_file() -> None:
    result = run("# Page\n\nText.\n\n```python exec\nx = 1\ny = (\n```\n")
    [problem] = result.problems
    assert problem.message.startswith("SyntaxError: ") and problem.line == 7
    assert problem.details == "line 7: y = ("


def test_reads_under_watched_folders_are_recorded(tmp_path: Path) -> None:
    data = tmp_path / "scores.csv"
    data.write_text("3,1,0\n")
    text = "```python exec\nprint(open(here / 'scores.csv').read())\n```\n"
    result = run(text, page_dir=tmp_path, watch=FileWatch([tmp_path]))
    assert list(result.reads) == [str(data.resolve())]


def test_writes_into_protected_folders_are_refused(tmp_path: Path) -> None:
    text = "```python exec\nopen(here / 'out.txt', 'w').write('x')\n```\n"
    result = run(text, page_dir=tmp_path, watch=FileWatch([], [tmp_path]))
    assert result.problems[0].message.startswith("PermissionError")
    assert not (tmp_path / "out.txt").exists()


def test_names_a_doctest_defines_are_seen_by_later_blocks_and_values() -> None:
    result = run("```pycon\n>>> y = 5\n```\n\n```pycon\n>>> y + 1\n6\n```\n\nY is {{ y }}.\n")
    assert result.ok, result.problems
    assert result.steps[-1].text == "5"


def test_a_plain_pyplot_figure_follows_the_light_and_dark_palettes() -> None:
    page = '```python exec alt="A line."\nimport matplotlib.pyplot as plt\nplt.plot([0, 1])\n```\n'
    svg = run(page).steps[0].figures[0].svg
    assert "currentColor" in svg  # axes and tick labels take the page's text colour
    assert "#000000" not in svg  # matplotlib's default black would vanish in dark mode


def test_matplotlib_settings_a_page_changes_do_not_reach_the_next_page() -> None:
    run("```python exec\nimport matplotlib.pyplot as plt\nplt.rcParams['font.size'] = 30\n```\n")
    result = run(
        "```python exec\nimport matplotlib as mpl\n```\n\n{{ mpl.rcParams['font.size'] }}\n"
    )
    assert result.steps[-1].text == "12.0"
