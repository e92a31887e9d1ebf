"""What lessons compute: plain numpy, matplotlib and tiktoken code to read beside a lesson.

Nothing here imports MkDocs or lessonkit's page machinery. A lesson imports the module it needs,
so the page depends on that module only (the cache re-runs it when that module changes):

>>> from lessonkit.lab.trace import softmax_trace
>>> softmax_trace([3, 1, 0], [10, 20, 30]).rounded_weights()
(0.84, 0.11, 0.04)
>>> from lessonkit.lab.tokens import token_pieces
>>> token_pieces("strawberry")
['str', 'aw', 'berry']

- :mod:`~lessonkit.lab.attention`: softmax, the causal mask, scaled dot-product and multi-head
  attention;
- :mod:`~lessonkit.lab.trace`: one softmax-weighted average, step by step;
- :mod:`~lessonkit.lab.cost`: how many query-key comparisons a length needs;
- :mod:`~lessonkit.lab.tokens`: the cl100k tokenizer;
- :mod:`~lessonkit.lab.model`, :mod:`~lessonkit.lab.embeddings`: a real small encoder in numpy;
- :mod:`~lessonkit.lab.figures`, :mod:`~lessonkit.lab.model_figures`,
  :mod:`~lessonkit.lab.figure_style`: the figures, in one style;
- :mod:`~lessonkit.lab.words`: words that depend on numbers ("more than", "all 4").
"""
