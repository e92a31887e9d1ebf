"""The glossary: terms from YAML, tooltips in prose, checks, and the glossary page."""
