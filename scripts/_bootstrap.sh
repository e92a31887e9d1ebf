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
    .venv/bin/python -m pip install --quiet -c requirements.lock -e ".[test]"
    echo "$want" > "$stamp"
fi
