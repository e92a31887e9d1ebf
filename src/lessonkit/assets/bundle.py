"""lessonkit's CSS and JS: feature files concatenated into one stylesheet and one script."""

from __future__ import annotations

from importlib import resources


def bundle(kind: str) -> bytes:
    """Concatenate ``assets/<kind>/*.<kind>`` in name order into one file's bytes.

    >>> b"lessonkit.onPage" in bundle("js")
    True
    """
    folder = resources.files("lessonkit.assets").joinpath(kind)
    parts = sorted(
        (p for p in folder.iterdir() if p.name.endswith(f".{kind}")), key=lambda p: p.name
    )
    return b"\n".join(p.read_bytes().rstrip() + b"\n" for p in parts)
