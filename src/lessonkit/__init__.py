"""lessonkit: lessons whose every number is computed and verified when the site is built.

One package per feature, none of which imports MkDocs:

- ``lessonkit.core``: what every feature shares: the page model, the fence and code-span
  scanner, the ``Problem``/``LessonError`` vocabulary, the settings schema and resolver;
- ``lessonkit.execute``: run a page's code blocks, doctests and inline values (parse, schedule
  on workers, run, cache, render);
- ``lessonkit.glossary``, ``lessonkit.quiz``, ``lessonkit.resources``, ``lessonkit.report``,
  ``lessonkit.notebooks``: one feature each, with its Markdown extension and its checks;
- ``lessonkit.checks``: the one recipe of page checks that ``lessonkit check`` and every build run;
- ``lessonkit.widgets``: interactive HTML the lessons embed (explorer, attention grid);
- ``lessonkit.lab``: what lessons compute: plain numpy, matplotlib and tiktoken to read beside a
  lesson, with no page markup.

Hosts only wire: ``lessonkit.hosts.mkdocs`` (the MkDocs and ProperDocs plugin) and
``lessonkit.cli`` (the shell).
"""

__version__ = "0.2.0"
