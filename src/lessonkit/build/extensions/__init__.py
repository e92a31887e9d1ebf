"""Python-Markdown extensions: portable to bare ``markdown.Markdown`` and Zensical."""
