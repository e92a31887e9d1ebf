"""The glossary feature: terms from YAML, tooltips in prose, checks, and the glossary page.

- :mod:`.terms`: load and validate ``glossary.yml``; find terms (with inflections) in text;
- :mod:`.extension`: the Python-Markdown extension (``lessonkit.glossary.extension``) that links
  first uses with tooltips and adds the "Words on this page" box;
- :mod:`.checks`: problems with ``[[term]]`` marks in raw Markdown, with line numbers;
- :mod:`.page`: the glossary page's Markdown and its "used on" lists;
- :mod:`.site`: a site's glossary, as every host reads and finishes it.
"""
