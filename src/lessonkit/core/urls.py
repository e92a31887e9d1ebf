"""Which links lessonkit may write: a relative URL, ``http``, ``https`` and ``mailto``, the
scheme read as a browser reads it (whitespace and control characters skipped, any case).

>>> [unsafe_scheme(u) for u in ("https://x.org", "../a/#b", "mailto:me@x.org", "a:b/c")]
[None, None, None, 'a']
>>> [unsafe_scheme(u) for u in (" JavaScript:alert(1)", "java\\tscript:x", "data:text/html,")]
['javascript', 'javascript', 'data']
"""

from __future__ import annotations

import re

SAFE_SCHEMES = ("http", "https", "mailto")
HINT = "link with https://, mailto: or a path relative to the page"
RE_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
RE_SKIPPED = re.compile(r"[\x00-\x20\x7f]+")  # what a browser skips in a scheme


def scheme(url: str) -> str:
    """The scheme a browser reads at the start of ``url``, lower case ('' for a relative URL)."""
    m = RE_SCHEME.match(RE_SKIPPED.sub("", url))
    return m[1].lower() if m else ""


def unsafe_scheme(url: str) -> str | None:
    """The scheme of ``url`` when it is not a safe one, else None."""
    found = scheme(url)
    return found if found and found not in SAFE_SCHEMES else None
