"""What lessons compute: plain numpy, matplotlib and tiktoken code to read beside a lesson.

Nothing here imports MkDocs or lessonkit's page machinery; a lesson block can use it directly:

>>> from lessonkit import lab
>>> lab.softmax_trace([3, 1, 0], [10, 20, 30]).rounded_weights()
(0.84, 0.11, 0.04)
>>> lab.token_pieces("strawberry")
['str', 'aw', 'berry']
"""

import importlib

_HOMES = {
    "ENCODING_NAME": "tokens",
    "INK": "figures",
    "PALETTE": "figures",
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
    "scaled_dot_product_attention": "attention",
    "scaled_softmax_trace": "trace",
    "softmax": "attention",
    "softmax_bars": "figures",
    "softmax_trace": "trace",
    "style": "figures",
    "token_ids": "tokens",
    "token_pieces": "tokens",
    "token_pieces_figure": "figures",
}
"""Where each name lives. Imported on first use (PEP 562), so a page that imports one lab module
depends on that module only: the cache re-runs it when that module changes, not any other."""


def __getattr__(name: str) -> object:
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
    "scaled_dot_product_attention",
    "scaled_softmax_trace",
    "softmax",
    "softmax_bars",
    "softmax_trace",
    "style",
    "token_ids",
    "token_pieces",
    "token_pieces_figure",
]
