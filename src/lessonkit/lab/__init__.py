"""What lessons compute: plain numpy, matplotlib and tiktoken code to read beside a lesson.

Nothing here imports MkDocs or lessonkit's page machinery; a lesson block can use it directly:

>>> from lessonkit import lab
>>> lab.softmax_trace([3, 1, 0], [10, 20, 30]).rounded_weights()
(0.84, 0.11, 0.04)
>>> lab.token_pieces("strawberry")
['str', 'aw', 'berry']

Words that depend on numbers come from :mod:`lessonkit.lab.words` (``from lessonkit.lab import
words``), so a sentence's "more than" or "all 4" changes with its inputs:

>>> lab.words.compare(0.52, 0.5), lab.words.count_of(0, 4, "sentences")
('more than', 'none of the 4 sentences')
"""

import importlib

_HOMES = {
    "ENCODING_NAME": "tokens",
    "INK": "figure_style",
    "PALETTE": "figure_style",
    "SoftmaxTrace": "trace",
    "TokenizerUnavailable": "tokens",
    "attention_heatmap": "figures",
    "attention_trace": "trace",
    "causal_comparisons": "cost",
    "causal_mask": "attention",
    "chars_per_token": "tokens",
    "comparisons": "cost",
    "cost_curve": "figures",
    "doubling_ratio": "cost",
    "encoding": "tokens",
    "growth_ratio": "cost",
    "multi_head_attention": "attention",
    "multi_head_attention_naive": "attention",
    "ratio_text": "cost",
    "scaled_dot_product_attention": "attention",
    "scaled_softmax_trace": "trace",
    "softmax": "attention",
    "softmax_bars": "figures",
    "softmax_trace": "trace",
    "style": "figure_style",
    "token_ids": "tokens",
    "token_pieces": "tokens",
    "token_pieces_figure": "figures",
}
"""Where each name lives. Imported on first use (PEP 562), so a page that imports one lab module
depends on that module only: the cache re-runs it when that module changes, not any other."""


_SUBMODULES = ("words",)
"""Modules reached as ``lab.<name>`` (imported on first use, too)."""


def __getattr__(name: str) -> object:
    if name in _SUBMODULES:
        return importlib.import_module(f"lessonkit.lab.{name}")
    if name not in _HOMES:
        raise AttributeError(f"module 'lessonkit.lab' has no attribute {name!r}")
    return getattr(importlib.import_module(f"lessonkit.lab.{_HOMES[name]}"), name)


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "ENCODING_NAME",
    "INK",
    "PALETTE",
    "SoftmaxTrace",
    "TokenizerUnavailable",
    "attention_heatmap",
    "attention_trace",
    "causal_comparisons",
    "causal_mask",
    "chars_per_token",
    "comparisons",
    "cost_curve",
    "doubling_ratio",
    "encoding",
    "growth_ratio",
    "multi_head_attention",
    "multi_head_attention_naive",
    "ratio_text",
    "scaled_dot_product_attention",
    "scaled_softmax_trace",
    "softmax",
    "softmax_bars",
    "softmax_trace",
    "style",
    "token_ids",
    "token_pieces",
    "token_pieces_figure",
    "words",
]
