#!/usr/bin/env bash
# The Python virtualenv of the real-engine tests (.tools/python-venv, git-ignored): the Pulumi SDK from PyPI and
# what a generated Python SDK needs, installed with --require-hashes from tools/python/requirements.txt. Made
# once and reused while the requirements and the Python are unchanged. Prints the venv folder on success; on
# failure, one line saying what is missing. Why this version: docs/engine.md, "Python".
#   bash scripts/python-venv.sh          make it if needed, print the folder
#   bash scripts/python-venv.sh --check  print the folder if a current one is there, else exit 1
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.tools/python-venv"
requirements="$root/tools/python/requirements.txt"
stamp="$venv/.requirements.sha256"

fail() {
  echo "scripts/python-venv.sh: $*" >&2
  exit 3
}

python=$(command -v python3 || command -v python) || fail "Python 3 is not installed (python3 on PATH makes the tests' virtualenv)"
fingerprint() { { "$python" --version; cat "$requirements"; } | sha256sum | cut -d' ' -f1; }
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(fingerprint)" ]; then
  echo "$venv"
  exit 0
fi
[ "${1:-}" = --check ] && exit 1

started=$(date +%s)
rm -rf "$venv"
if ! out=$("$python" -m venv "$venv" 2>&1); then
  fail "$python -m venv failed (on Debian: apt-get install python3-venv): $(tail -1 <<<"$out")"
fi
if ! out=$("$venv/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes -r "$requirements" 2>&1); then
  echo "$out" | tail -20 >&2
  rm -rf "$venv"
  fail "pip install --require-hashes -r tools/python/requirements.txt failed (above; PyPI unreachable?)"
fi
fingerprint >"$stamp"
echo "made .tools/python-venv in $(($(date +%s) - started)) s: $("$venv/bin/python" -c 'import sys, importlib.metadata as m; print("Python", sys.version.split()[0], "pulumi", m.version("pulumi"))')" >&2
echo "$venv"
