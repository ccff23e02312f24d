#!/usr/bin/env bash
# Create .venv and install LexSpec. Usage: scripts/install.sh [dev]
# The first install compiles llama-cpp-python from source (about 10 minutes on
# 2 cores); pip keeps the built wheel in its cache, so later installs reuse it.
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRA="${1:-}"
PY="${PYTHON:-python3}"
LLAMA_SPEC="$(grep -o 'llama-cpp-python==[0-9.]*' pyproject.toml)"

if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv"
  "$PY" -m venv .venv
  .venv/bin/pip install --quiet --upgrade pip setuptools wheel
fi

if ! .venv/bin/python -c "import llama_cpp" 2>/dev/null; then
  if .venv/bin/pip download --no-deps --no-binary :all: -d /dev/null "$LLAMA_SPEC" >/dev/null 2>&1 \
     && ! .venv/bin/pip cache list 2>/dev/null | grep -q llama_cpp_python; then
    echo "==> compiling $LLAMA_SPEC (first install only: about 10 minutes on 2 cores)"
  else
    echo "==> installing $LLAMA_SPEC"
  fi
  # Verbose pip output is filtered down to the build's progress lines: "[12/84] ggml.c".
  CMAKE_BUILD_PARALLEL_LEVEL="$(nproc 2>/dev/null || echo 2)" \
    .venv/bin/pip install --verbose "$LLAMA_SPEC" 2>&1 \
    | awk '/^ *\[[0-9]+\/[0-9]+\]/ { n = split($NF, p, "/"); print "   " $1 " " p[n]; fflush(); next }
           /Using cached|Successfully installed|ERROR|error:/ { print; fflush() }'
  .venv/bin/python -c "import llama_cpp" || { echo "llama-cpp-python failed to install" >&2; exit 1; }
fi

echo "==> installing lexspec${EXTRA:+ [$EXTRA]}"
if [ -n "$EXTRA" ]; then
  .venv/bin/pip install --quiet --disable-pip-version-check -e ".[$EXTRA]"
else
  .venv/bin/pip install --quiet --disable-pip-version-check -e .
fi
