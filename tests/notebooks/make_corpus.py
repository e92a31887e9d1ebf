"""Write the corpus of real-world notebook patterns (``corpus/``), with nbformat.

Small notebooks of our own, each written the way ordinary notebooks are (no alt text, no
lessonkit metadata): magics and shell escapes, ``display()`` and rich reprs, a figure saved and
shown again, figures of thousands of points, an error on purpose, stored outputs, links and
Jupyter-style anchors between notebooks, a notebook in a subfolder reading data next to it.
Run it after changing a pattern: ``python tests/notebooks/make_corpus.py``; the tests check
that the files are what it writes.
"""

from __future__ import annotations

import sys
from pathlib import Path

CORPUS = Path(__file__).parent / "corpus"


def notebooks() -> dict[str, object]:
    """Each notebook of the corpus: its path in ``docs/`` -> the notebook."""
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    def nb(*cells: object) -> object:
        made = new_notebook(cells=list(cells))
        made.metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3"}}
        for number, cell in enumerate(made.cells):
            cell.id = f"c{number}"
        return made

    md, code = new_markdown_cell, new_code_cell
    stored = code('print("computed when the notebook was saved")', execution_count=3)
    stored.outputs = [new_output("stream", name="stdout", text="an output from last year\n")]
    broadcast = code("a = np.ones((3, 2))\nb = np.ones(3)\na + b")
    broadcast.metadata["tags"] = ["raises-exception"]
    return {
        "magics.ipynb": nb(
            md(
                "# Magics and shell escapes\n\nSee [display](display.ipynb) and "
                "[an error on purpose](errors.ipynb#A-broadcasting-error)."
            ),
            code("%matplotlib inline\nimport numpy as np"),
            md("## Timing a cell"),
            code("%timeit -n 10 -r 2 np.arange(1000).sum()"),
            code("%%time\ntotal = sum(range(10_000))"),
            code("%time squares = [n * n for n in range(1000)]\nlen(squares)"),
            md("## Shell escapes"),
            code('!echo "hello from the shell"\n!head -n 3 data/numbers.csv'),
            code("files = !ls data\nfiles"),
            code('%%bash\necho "a bash cell"\nwc -l < data/numbers.csv'),
            code('name = "lessons"\n!echo {name} $name'),
        ),
        "display.ipynb": nb(
            md("# Display and rich output"),
            code("from IPython.display import HTML, Image, Markdown, display"),
            code(
                'print("before")\ndisplay(HTML("<b>bold</b>"))\n'
                'display(Markdown("*emphasis*"))\nprint("after")'
            ),
            code(
                "class Table:\n"
                '    """A small table that shows itself as HTML, as a DataFrame does."""\n\n'
                "    def __init__(self, rows):\n        self.rows = rows\n\n"
                "    def _repr_html_(self):\n"
                '        cells = "".join(f"<tr><td>{a}</td><td>{b}</td></tr>" '
                "for a, b in self.rows)\n"
                '        return f"<table>{cells}</table>"\n\n'
                "    def __repr__(self):\n"
                '        return "\\n".join(f"{a} {b}" for a, b in self.rows)\n\n\n'
                'table = Table([("apples", 3), ("pears", 5)])\ntable'
            ),
            code('display(table, {"total": 8})'),
            code("import matplotlib.pyplot as plt\n\nplt.plot([1, 2, 3], [1, 4, 9]);"),
            md("## Saving and showing a figure"),
            code(
                "fig, ax = plt.subplots(figsize=(4, 3))\nax.plot([0, 1, 2], [0, 1, 4])\n"
                'ax.set_title("Growth")\nfig.savefig("my_figure.png", dpi=50)'
            ),
            code("!ls my_figure.png"),
            code('Image("my_figure.png")'),
            code("display(fig)"),
        ),
        "figures.ipynb": nb(
            md("# Figures without alt text"),
            code(
                "import matplotlib.pyplot as plt\nimport numpy as np\n\n"
                "rng = np.random.default_rng(7)"
            ),
            code(
                "x, y = rng.normal(size=(2, 5000))\nplt.scatter(x, y, s=2)\n"
                'plt.title("Five thousand points")\nplt.xlabel("x")\nplt.ylabel("y")'
            ),
            code('plt.hist(rng.normal(size=2000), bins=30)\nplt.xlabel("value")'),
            code("plt.imshow(rng.random((28, 28)))\nplt.colorbar()"),
            code('plt.bar(["red", "green", "blue"], [3, 5, 2])\nplt.title("Votes")'),
            code(
                't = np.linspace(0, 10, 200)\nplt.plot(t, np.sin(t), label="sin")\n'
                'plt.plot(t, np.cos(t), label="cos")\nplt.legend()\nplt.xlabel("time (s)")'
            ),
        ),
        "errors.ipynb": nb(
            md("# Errors on purpose\n\nBack to [timing](magics.ipynb#Timing-a-cell)."),
            code("import numpy as np"),
            md("## A broadcasting error\n\nShapes (3, 2) and (3,) do not broadcast:"),
            broadcast,
            md("## Stored outputs"),
            stored,
        ),
        "sub/reading.ipynb": nb(
            md(
                "# Reading data next to the notebook\n\nSee "
                "[the saved figure](../display.ipynb#Saving-and-showing-a-figure)."
            ),
            code(
                'with open("data/points.csv") as file:\n    rows = file.read().splitlines()\n'
                "len(rows)"
            ),
            code("!cat data/points.csv | wc -l"),
        ),
    }


FILES = {
    "data/numbers.csv": "n,square\n1,1\n2,4\n3,9\n4,16\n",
    "sub/data/points.csv": "x,y\n0,0\n1,2\n2,4\n",
    "index.md": "---\ntitle: Notebook corpus\ndescription: Real-world notebook patterns.\n---\n"
    "# Notebook corpus\n\nStart with [magics](magics.ipynb), or read "
    "[data next to a notebook](sub/reading.ipynb#Reading-data-next-to-the-notebook).\n",
}


def write(root: Path = CORPUS) -> None:
    """Write the corpus's docs (notebooks and data files) under ``root``."""
    import nbformat

    for name, made in notebooks().items():
        path = root / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(nbformat.writes(made) + "\n", encoding="utf-8")
    for name, text in FILES.items():
        (root / "docs" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "docs" / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else CORPUS)
