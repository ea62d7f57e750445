#!/usr/bin/env bash
# Create or refresh the book's virtualenv (`make env` runs this).
#
#   scripts/make_venv.sh PYTHON VENV CHOSEN MIN MAX
#
# PYTHON  interpreter to build the virtualenv with; CHOSEN=yes when the user named it
#         (make PYTHON=...), so that a virtualenv made with another one is rebuilt.
# MIN MAX the CPython minor versions constraints.txt is locked and tested for.
#
# The virtualenv records the interpreter it was made with (.interpreter) and, after a
# successful install only, a hash of pyproject.toml and constraints.txt (.installed). It is
# rebuilt from scratch when the interpreter changes or the last install did not finish, and
# reinstalled when either file changes.
set -euo pipefail
python=$1 venv=$2 chosen=$3 min=$4 max=$5
record=$venv/.interpreter stamp=$venv/.installed
want=$(cat pyproject.toml constraints.txt | sha256sum | cut -d' ' -f1)

# Up to date and nobody asked for another interpreter: nothing to do.
if [ "$chosen" != yes ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    exit 0
fi
# No interpreter asked for, but a complete virtualenv exists: refresh it with its own.
if [ "$chosen" != yes ] && [ -f "$stamp" ] && [ -f "$record" ]; then
    python=$(head -n 1 "$record")
fi

version=$("$python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null) \
    || { echo "error: '$python' does not run here; choose an interpreter with: make PYTHON=python$max env" >&2; exit 1; }
"$python" -c "import sys; sys.exit(not ((${min/./, }) <= sys.version_info[:2] <= (${max/./, })))" 2>/dev/null \
    || { echo "error: the book's environment needs CPython $min to $max, and '$python' is $version;" \
              "choose another with: make PYTHON=python$max env" >&2; exit 1; }
# Line 1: the interpreter as a full path (what a refresh reuses); line 2: its version.
identity="$(command -v "$python")
$version"

# The interpreter asked for made this virtualenv, and its install is complete and current.
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ "$(cat "$record" 2>/dev/null)" = "$identity" ]; then
    exit 0
fi
if [ -d "$venv" ]; then
    if [ ! -f "$record" ] || [ "$(cat "$record")" != "$identity" ] || [ ! -f "$stamp" ]; then
        why="the last install did not finish"
        [ -f "$record" ] && [ "$(cat "$record")" != "$identity" ] && why="it was made with $(tr '\n' ' ' < "$record")"
        echo "== rebuilding $venv: $why"
        rm -rf "$venv"
    fi
fi
if [ ! -d "$venv" ]; then
    echo "== creating $venv with $python ($version)"
    "$python" -m venv "$venv"
    echo "$identity" > "$record"
fi
rm -f "$stamp"
"$venv/bin/python" -m pip install --upgrade pip
"$venv/bin/python" -m pip install -c constraints.txt -e ".[book,test,distributed]"
echo "$want" > "$stamp"
