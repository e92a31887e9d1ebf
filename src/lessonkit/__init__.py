"""lessonkit: lessons whose every number is computed and verified when the site is built.

Two wings and a thin face:

- ``lessonkit.lab``: what lessons compute (attention, traces, tokens, figures). Plain numpy,
  matplotlib and tiktoken; a learner can read it beside the lesson.
- ``lessonkit.build``: Python-Markdown extensions, the executor and its cache, the glossary.
  Never imports MkDocs, so it runs under bare Python-Markdown or Zensical.
- ``lessonkit.plugin`` and ``lessonkit.cli``: wire the two together for MkDocs and the shell.
"""

__version__ = "0.1.0"
