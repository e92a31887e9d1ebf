"""lessonkit for a host that runs Python-Markdown extensions but no plugins (Zensical)."""
