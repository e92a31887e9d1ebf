"""Fixtures of the engine's tests."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import pytest


@contextmanager
def _read_only(folder: Path) -> Iterator[None]:
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(0o755)
        return
    if subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode != 0:
        message = "running as root without chattr +i: cannot make a folder read-only"
        if os.environ.get("CI"):
            pytest.fail(message + " (CI is set: a failure, not a skip)")
        pytest.skip(message)
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)


@pytest.fixture
def read_only() -> Callable[[Path], AbstractContextManager[None]]:
    """``with read_only(folder):`` nothing can be written in ``folder`` (not even by root: it
    is made immutable with ``chattr +i`` then, or the test skips)."""
    return _read_only
