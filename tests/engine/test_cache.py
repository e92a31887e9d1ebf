"""The cache serves only what is still true: corrupt, stale or failed entries are never used.

What it defends against is accidents (a bad disk, a torn write, an entry of another format), not
the site author's own code: see the module's docstring.
"""

import os
from pathlib import Path

from lessonkit.core.problems import Problem
from lessonkit.execute.cache import Cache
from lessonkit.execute.digests import current_digest, file_digest
from lessonkit.execute.results import PageResult, StepResult


def test_truncated_entry_is_a_miss_and_is_removed(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    cache.put("k", PageResult(steps=[StepResult(stdout="x")]))
    entry = tmp_path / "k.json"
    entry.write_text(entry.read_text()[:40])
    assert cache.get("k") is None
    assert not entry.exists()


def test_tampered_entry_fails_its_checksum(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    cache.put("k", PageResult(steps=[StepResult(stdout="0.84")]))
    entry = tmp_path / "k.json"
    entry.write_text(entry.read_text().replace("0.84", "0.99"))
    assert "0.99" in entry.read_text()
    assert cache.get("k") is None


def test_editing_a_data_file_the_page_read_invalidates_the_entry(tmp_path: Path) -> None:
    data = tmp_path / "scores.csv"
    data.write_text("3,1,0")
    cache = Cache(tmp_path / "cache")
    from lessonkit.execute.digests import file_digest

    cache.put("k", PageResult(steps=[StepResult()], reads={str(data): file_digest(data)}))
    assert cache.get("k") is not None
    data.write_text("2,1,0")
    assert cache.get("k") is None


def _rewrite_in_the_same_tick(path: Path, text: str) -> None:
    """Rewrite ``path`` as a second save within its file system's timestamp granularity does
    (Linux before 6.13 stamps files from a clock that ticks every few milliseconds): same size,
    same mtime."""
    before = path.stat()
    assert len(text.encode()) == before.st_size
    path.write_text(text)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_a_data_file_rewritten_within_its_mtime_s_tick_invalidates_the_entry(
    tmp_path: Path,
) -> None:
    """A file changed just before its entry was stored (within ``digests.RACY``) is read again
    at each lookup, not taken from what an earlier lookup read at the same mtime and size."""
    data = tmp_path / "scores.csv"
    data.write_text("3,1,0")
    cache = Cache(tmp_path / "cache")
    cache.put("k", PageResult(steps=[StepResult()], reads={str(data): file_digest(data)}))
    assert cache.get("k") is not None
    _rewrite_in_the_same_tick(data, "2,1,0")
    assert cache.get("k") is None


def test_a_module_rewritten_within_its_mtime_s_tick_invalidates_the_entry(
    tmp_path: Path,
) -> None:
    module = tmp_path / "helpers.py"
    module.write_text("VALUE = 1\n")
    cache = Cache(tmp_path / "cache")
    sources = {str(module): current_digest(str(module))}
    cache.put("k", PageResult(steps=[StepResult()], sources=sources))
    assert cache.get("k") is not None
    _rewrite_in_the_same_tick(module, "VALUE = 2\n")
    assert cache.get("k") is None


def test_failed_results_are_never_stored(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    cache.put("k", PageResult(problems=[Problem("boom", 3)]))
    assert cache.get("k") is None
    assert list(tmp_path.iterdir()) == []


def test_a_result_with_a_warning_is_served_with_the_same_warning(tmp_path: Path) -> None:
    """A page that ran with a warning is stored, and its warning is a field-by-field object
    in the entry (the format entries had before ``Problem`` became a ``NamedTuple``)."""
    import json

    cache = Cache(tmp_path)
    warned = Problem("slow block", 3, "split it", severity="warning", details="line 3: x")
    cache.put("k", PageResult(steps=[StepResult(stdout="x")], problems=[warned]))
    assert cache.get("k").problems == [warned]
    payload = json.loads((tmp_path / "k.json").read_bytes().partition(b"\n")[2])
    assert payload["problems"][0]["hint"] == "split it"


def test_no_temporary_files_are_left_behind(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    cache.put("k", PageResult(steps=[StepResult(stdout="x")]))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.json"]


def test_editing_a_module_the_page_imported_invalidates_the_entry(tmp_path: Path) -> None:
    module = tmp_path / "helpers.py"
    module.write_text("VALUE = 1\n")
    cache = Cache(tmp_path / "cache")
    cache.put(
        "k", PageResult(steps=[StepResult()], sources={str(module): current_digest(str(module))})
    )
    assert cache.get("k") is not None
    module.write_text("VALUE = 1  # a comment\n")
    assert cache.get("k") is None


def test_pages_stored_at_once_into_a_new_cache_all_hold(tmp_path: Path) -> None:
    """A cold build's first pages finish together: every thread storing into the empty cache
    (making its folder at once) leaves an entry the next build serves."""
    from concurrent.futures import ThreadPoolExecutor
    from threading import Barrier

    for attempt in range(20):
        folder = tmp_path / f"cache-{attempt}"
        cache, start = Cache(folder), Barrier(8)
        keys = [f"{attempt:02d}{n:062x}" for n in range(8)]

        def store(key: str, cache: Cache = cache, start: Barrier = start) -> None:
            start.wait()
            cache.put(key, PageResult(steps=[StepResult(text=key)]))

        with ThreadPoolExecutor(8) as threads:
            list(threads.map(store, keys))
        fresh = Cache(folder)  # the next build
        assert all(fresh.get(key) is not None for key in keys), f"attempt {attempt}"


def test_an_entry_edited_on_disk_is_not_published_and_honest_entries_survive_rebuilds(
    tmp_path: Path,
) -> None:
    """Issue 40, class 2. An entry changed after lessonkit wrote it (by lesson code's subprocess
    or a bad disk) is a miss and goes: the page runs again and its true output is stored. An
    entry lessonkit wrote survives later builds (fresh processes, no secret to lose)."""
    cache = Cache(tmp_path)
    true, other = PageResult(steps=[StepResult(stdout="0.84")]), PageResult(steps=[StepResult()])
    cache.put("page", true)
    cache.put("other", other)
    entry = tmp_path / "page.json"
    for forged in (
        entry.read_bytes().replace(b"0.84", b"0.99"),  # the same length: one flipped digit
        entry.read_bytes()[:-3],  # a torn write
        (tmp_path / "other.json").read_bytes(),  # another page's entry, copied over this one
    ):
        entry.write_bytes(forged)
        rebuilt = Cache(tmp_path)  # the next build
        assert rebuilt.get("page") is None
        assert not entry.exists()
        rebuilt.put("page", true)  # the page ran again
    for _ in range(3):  # honest rebuilds: every entry is served as written
        rebuilt = Cache(tmp_path)
        assert (rebuilt.get("page"), rebuilt.get("other")) == (true, other)
