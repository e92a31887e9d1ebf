"""A release: the sdist and the wheel build, and the wheel alone makes a working new site.

The wheel goes into a new virtual environment that sees this environment's third-party
packages (nothing is downloaded in tests) but not its lessonkit: what the site gets (the
plugin's entry point, the console script, the assets and the site template) comes from the
wheel. Then ``lessonkit init`` makes a site, which builds strictly with every feature.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": ""}
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=env)
    assert done.returncode == 0, f"{args}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def test_the_wheel_alone_makes_a_new_site_that_builds_with_every_feature(
    tmp_path: Path, lesson_features
) -> None:
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(ROOT)], ROOT)
    (wheel,) = dist.glob("lessonkit-*.whl")
    (sdist,) = dist.glob("lessonkit-*.tar.gz")
    with zipfile.ZipFile(wheel) as zipped:
        names = zipped.namelist()
    assert "lessonkit/assets/js/30-quiz.js" in names
    assert "lessonkit/scaffold/site/github/workflows/ci.yml" in names
    with tarfile.open(sdist) as tar:
        assert any(n.endswith("CHANGELOG.md") for n in tar.getnames())

    venv = tmp_path / "fresh"
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path)
    python = venv / "bin" / "python"
    site_packages = _run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp_path
    ).stdout.strip()
    # A plain path line: the third-party packages, without this environment's editable lessonkit.
    (Path(site_packages) / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], tmp_path
    )
    where = _run([str(python), "-c", "import lessonkit; print(lessonkit.__file__)"], tmp_path)
    assert where.stdout.startswith(site_packages), where.stdout

    _run(
        [str(venv / "bin" / "lessonkit"), "init", "site", "--repo-url", "https://github.com/a/b"],
        tmp_path,
    )
    _run([str(python), "-m", "mkdocs", "build", "--strict"], tmp_path / "site")
    html = (tmp_path / "site" / "site" / "first-lesson" / "index.html").read_text()
    found = lesson_features(html)
    assert found == dict.fromkeys(found, True), found
