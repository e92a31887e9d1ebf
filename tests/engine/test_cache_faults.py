"""A cache fault is a warning and a re-run: never a traceback, never a wrong page.

Each fault the cache can meet (a folder it cannot write, a folder that is a file, an entry that
is a folder, garbage, an entry of another format, a well-formed entry of the wrong shape) gives
a miss and one warning; pruning keeps what a build used and no more.
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import os
import time
from pathlib import Path

import pytest

from lessonkit.execute.cache import FORMAT, Cache
from lessonkit.execute.results import PageResult, StepResult

KEY, OTHER = "a" * 64, "b" * 64
RESULT = PageResult(steps=[StepResult(stdout="0.84\n")])


@pytest.fixture
def warnings(caplog: pytest.LogCaptureFixture):
    """The messages the cache has logged as warnings so far (on the ``lessonkit`` logger)."""
    caplog.set_level(logging.WARNING, logger="lessonkit")

    def logged() -> list[str]:
        return [
            r.getMessage()
            for r in caplog.records
            if r.name.startswith("lessonkit") and r.levelno == logging.WARNING
        ]

    return logged


def _entry(cache: Cache, key: str = KEY) -> Path:
    return cache.folder / f"{key}.json"


def _checksummed(key: str, body: object) -> bytes:
    """An entry with a valid checksum around ``body`` (as a bad write never makes)."""
    payload = json.dumps(body).encode()
    checksum = hashlib.sha256(key.encode() + b"\n" + payload).hexdigest()
    return json.dumps({"format": FORMAT, "sha256": checksum}).encode() + b"\n" + payload


def test_garbage_bytes_are_a_warning_a_miss_and_are_removed(tmp_path: Path, warnings) -> None:
    cache = Cache(tmp_path)
    cache.put(KEY, RESULT)
    _entry(cache).write_bytes(os.urandom(300))
    assert cache.get(KEY) is None
    assert not _entry(cache).exists()
    [message] = warnings()
    assert f"{KEY}.json: warning: cache entry is not a lessonkit cache entry" in message
    assert "hint:" in message
    cache.put(KEY, RESULT)  # the re-run's result is stored again
    assert cache.get(KEY) == RESULT


def test_an_entry_that_is_a_folder_is_a_warning_and_is_replaced(tmp_path: Path, warnings) -> None:
    cache = Cache(tmp_path)
    cache.put(OTHER, RESULT)  # the folder exists
    (_entry(cache) / "inside").mkdir(parents=True)
    assert cache.get(KEY) is None
    assert "cache entry is a folder, not a file" in warnings()[0]
    (_entry(cache) / "again").mkdir(parents=True)
    cache.put(KEY, RESULT)  # a folder where the entry goes is removed, then the entry written
    assert cache.get(KEY) == RESULT


def test_a_well_formed_entry_of_the_wrong_shape_is_a_warning_not_a_crash(
    tmp_path: Path, warnings
) -> None:
    cache = Cache(tmp_path)
    cache.put(KEY, RESULT)
    good = json.loads(_entry(cache).read_bytes().partition(b"\n")[2])
    shapes = {
        "steps not a list": {**good, "steps": {"0": "x"}},
        "a step without stdout": {**good, "steps": [{"text": "", "figures": []}]},
        "stdout a number": {
            **good,
            "steps": [{**good["steps"][0], "stdout": 1}],
        },
        "reads not a mapping": {**good, "reads": ["/etc/hostname"]},
        "a digest not a string": {**good, "reads": {"/etc/hostname": 3}},
        "an unknown field": {**good, "extra": True},
        "a failed run": {
            **good,
            "problems": [
                {
                    "message": "m",
                    "line": 1,
                    "hint": "",
                    "severity": "error",
                    "path": "p",
                    "details": "",
                }
            ],
        },
        "a bad severity": {
            **good,
            "problems": [
                {
                    "message": "m",
                    "line": 1,
                    "hint": "",
                    "severity": "fatal",
                    "path": "p",
                    "details": "",
                }
            ],
        },
    }
    for shape in [*shapes.values(), ["not", "a", "mapping"], {"result": good}]:
        _entry(cache).write_bytes(_checksummed(KEY, shape))
        assert cache.get(KEY) is None, shape
        assert not _entry(cache).exists()
    assert len(warnings()) == len(shapes) + 2
    assert all("cache entry has the wrong" in m or "holds a failed run" in m for m in warnings())


def test_an_entry_copied_under_another_key_is_not_served(tmp_path: Path, warnings) -> None:
    cache = Cache(tmp_path)
    cache.put(KEY, RESULT)
    _entry(cache, OTHER).write_bytes(_entry(cache).read_bytes())
    assert cache.get(OTHER) is None
    assert cache.get(KEY) == RESULT


def test_a_cache_path_that_is_a_file_warns_once_and_pages_still_run(
    tmp_path: Path, warnings
) -> None:
    folder = tmp_path / "cache"
    folder.write_text("not a folder")
    cache = Cache(folder)
    for key in (KEY, OTHER):
        assert cache.get(key) is None
        cache.put(key, RESULT)
    cache.mark()
    assert cache.prune(set(), time.time()) == 0
    [message] = warnings()
    assert "cache: warning: the cache folder is a file, not a folder" in message
    assert "cache_dir" in message
    assert folder.read_text() == "not a folder"


def test_a_read_only_cache_serves_its_entries_and_warns_once_that_it_stores_nothing(
    tmp_path: Path, warnings, read_only
) -> None:
    cache = Cache(tmp_path / "cache")
    cache.put(KEY, RESULT)
    with read_only(cache.folder):
        again = Cache(cache.folder)
        assert again.get(KEY) == RESULT
        again.put(OTHER, RESULT)
        again.put("c" * 64, RESULT)
        assert again.get(OTHER) is None
        _ = again.prune(set(), time.time())
    [message] = warnings()
    assert "the cache folder cannot be written" in message
    assert "pages run, but their results are not stored" in message


def test_a_cache_folder_that_cannot_be_made_warns_once(tmp_path: Path, warnings, read_only) -> None:
    with read_only(tmp_path):
        cache = Cache(tmp_path / "cache")
        cache.put(KEY, RESULT)
        cache.put(OTHER, RESULT)
        cache.mark()
    assert len(warnings()) == 1 and "the cache folder cannot be written" in warnings()[0]


def test_prune_keeps_what_the_build_used_and_what_is_newer_than_it(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    for key in ("1" * 64, "2" * 64, "3" * 64):
        cache.put(key, RESULT)
    (tmp_path / "left.tmp").write_text("a crashed writer's")
    old = time.time() - 7200
    for path in tmp_path.iterdir():
        os.utime(path, (old, old))
    start = time.time()
    cache.put("4" * 64, RESULT)  # written during the build by a concurrent build
    assert Cache(tmp_path).get("2" * 64) == RESULT  # a hit refreshes its entry
    assert cache.prune({"1" * 64}, start - 1) == 2
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted([f"{'1' * 64}.json", f"{'2' * 64}.json", f"{'4' * 64}.json"])


def test_an_entry_of_another_format_is_a_miss(tmp_path: Path, warnings) -> None:
    """An entry an older lessonkit wrote (its format number) runs again, even when its payload
    happens to decode: what it holds may mean something else now."""
    cache = Cache(tmp_path)
    cache.put(KEY, RESULT)
    header, _, payload = _entry(cache).read_bytes().partition(b"\n")
    older = {**json.loads(header), "format": FORMAT - 1}
    _entry(cache).write_bytes(json.dumps(older).encode() + b"\n" + payload)
    assert cache.get(KEY) is None
    [message] = warnings()
    assert f"cache entry has format {FORMAT - 1}, not {FORMAT}" in message


@pytest.mark.parametrize(
    "header",
    [b"[" * 100_000, json.dumps({"format": "x" * 100_000, "sha256": "0"}).encode()],
    ids=["nested", "huge"],
)
def test_a_header_no_lessonkit_writes_is_one_short_warning_not_a_crash(
    tmp_path: Path, warnings, header: bytes
) -> None:
    """Bytes nobody wrote on purpose (a disk or copy fault) in the header line: a miss and one
    warning line of a readable length, never a RecursionError out of the build."""
    cache = Cache(tmp_path)
    cache.put(KEY, RESULT)
    _entry(cache).write_bytes(header + b"\n{}")
    assert cache.get(KEY) is None
    [message] = warnings()
    assert "cache entry is not a lessonkit cache entry" in message and len(message) < 500


def test_a_full_disk_while_storing_leaves_no_partial_entry_and_only_warns(
    tmp_path: Path, warnings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk fills up halfway through an entry: no entry, no temporary file, one warning;
    the page's result is the run's all the same (the next build runs it again)."""
    real = os.fdopen

    def full(fd: int, mode: str):
        handle = real(fd, mode)

        def write(data: bytes) -> int:
            real_write(data[: len(data) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        real_write = handle.write
        handle.write = write
        return handle

    cache = Cache(tmp_path)
    monkeypatch.setattr(os, "fdopen", full)
    cache.put(KEY, RESULT)  # no exception out of the build
    monkeypatch.setattr(os, "fdopen", real)
    assert list(tmp_path.iterdir()) == []
    [message] = warnings()
    assert "cannot be written (No space left on device)" in message and "hint:" in message
    assert cache.get(KEY) is None
