"""A softmax trace as a Markdown table, for a block with ``output="markdown"``."""

from __future__ import annotations

import math

from lessonkit.lab.trace import SoftmaxTrace

__all__ = ["trace_table"]


def trace_table(trace: SoftmaxTrace, decimals: int = 2) -> str:
    """A trace as a Markdown table, one row per token and a total row.

    Inputs (scores, values) print as given; computed numbers with ``decimals`` places.

    >>> from lessonkit.lab.trace import softmax_trace
    >>> print(trace_table(softmax_trace([3, 1, 0], [10, 20, 30])))
    | token | score | e^score | weight | value | weight × value |
    | --- | ---: | ---: | ---: | ---: | ---: |
    | 1 | 3 | 20.09 | 0.84 | 10 | 8.44 |
    | 2 | 1 | 2.72 | 0.11 | 20 | 2.28 |
    | 3 | 0 | 1.00 | 0.04 | 30 | 1.26 |
    | total |  | 23.80 | 1.00 |  | 11.98 |
    """

    def fixed(x: float) -> str:
        return f"{x:.{decimals}f}"

    header = ["token", "score"]
    if trace.scale is not None:
        header.append(f"score ÷ {trace.scale:.{decimals}f}")
    header += ["e^score" if trace.scale is None else "e^scaled", "weight", "value"]
    header.append("weight × value")
    lines = ["| " + " | ".join(header) + " |", "| --- |" + " ---: |" * (len(header) - 1)]
    for i, label in enumerate(trace.labels):
        row = [label.replace("|", r"\|"), f"{trace.scores[i]:g}"]
        if trace.scale is not None:
            row.append(fixed(trace.scaled_scores[i]))
        row += [fixed(trace.exponentials[i]), fixed(trace.weights[i]), f"{trace.values[i]:g}"]
        row.append(fixed(trace.products[i]))
        lines.append("| " + " | ".join(row) + " |")
    total = ["total", ""] + ([""] if trace.scale is not None else [])
    total += [fixed(trace.total), fixed(math.fsum(trace.weights)), "", fixed(trace.output)]
    lines.append("| " + " | ".join(total) + " |")
    return "\n".join(lines)
