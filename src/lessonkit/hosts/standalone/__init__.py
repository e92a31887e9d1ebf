"""lessonkit for a host that runs Python-Markdown extensions but no plugins (Zensical).

- :mod:`.site`: one site's state in a process (options, folders, URLs, engine, glossary);
- :mod:`.page`: every feature of one page as one Markdown extension;
- :mod:`.prepare`: ``lessonkit prepare``, the site-level outputs written into the docs folder.
"""
