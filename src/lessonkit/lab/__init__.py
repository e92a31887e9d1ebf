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

from lessonkit.lab import words
from lessonkit.lab.attention import (
    causal_mask,
    multi_head_attention,
    multi_head_attention_naive,
    scaled_dot_product_attention,
    softmax,
)
from lessonkit.lab.cost import (
    causal_comparisons,
    comparisons,
    doubling_ratio,
    growth_ratio,
    ratio_text,
)
from lessonkit.lab.figures import (
    INK,
    PALETTE,
    attention_heatmap,
    cost_curve,
    softmax_bars,
    style,
    token_pieces_figure,
)
from lessonkit.lab.tokens import (
    ENCODING_NAME,
    TokenizerUnavailable,
    chars_per_token,
    encoding,
    token_ids,
    token_pieces,
)
from lessonkit.lab.trace import (
    SoftmaxTrace,
    attention_trace,
    scaled_softmax_trace,
    softmax_trace,
)

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
