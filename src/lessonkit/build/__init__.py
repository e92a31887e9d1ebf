"""Build machinery: Markdown extensions, execution, cache, glossary. Never imports MkDocs."""
