#!/usr/bin/env bash
# promptlint verify on a CUDA machine: the real vLLM engine (CUDA build), block size 16, a
# ~1.3B-parameter random-weight Llama built locally, the demo app and the built-in samples.
# Budget: under 10 minutes on one H100/H200 (install ~3-5 min when vLLM is not there yet,
# model build ~1 min, engine start ~1 min, 280 requests well under a minute).
#
#   bash verifier/scripts/gpu_verify.sh            # results in $OUT (default ./gpu-verify-out)
#
# Where vLLM comes from, first match wins:
#   1. $ENGINE_PYTHON, if it imports vllm (an environment you prepared);
#   2. a python3 on PATH that imports vllm;
#   3. wheels carried in .whl/ (installed offline into .venv-gpu);
#   4. PyPI: `pip install $VLLM_SPEC` (default: vllm) into .venv-gpu.
# Knobs: OUT, BLOCK_SIZE (16), REQUESTS (20), HIDDEN (2048), LAYERS (24), HEADS (16), VLLM_SPEC.
# Writes: verify.json (the JSON contract), verify.txt (the report), verify.html (chart), env.txt, and
# logs. The same script runs on a CPU box for a dry run, e.g.:
#   ENGINE_PYTHON=.venv-verify/bin/python BLOCK_SIZE=128 HIDDEN=256 LAYERS=2 HEADS=4 DEVICE=cpu \
#       bash verifier/scripts/gpu_verify.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
OUT="${OUT:-$ROOT/gpu-verify-out}"
BLOCK_SIZE="${BLOCK_SIZE:-16}"
REQUESTS="${REQUESTS:-20}"
HIDDEN="${HIDDEN:-2048}"
LAYERS="${LAYERS:-24}"
HEADS="${HEADS:-16}"
DEVICE="${DEVICE:-cuda}"
VLLM_SPEC="${VLLM_SPEC:-vllm}"
VENV="$ROOT/.venv-gpu"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
start=$(date +%s)
log() { echo "gpu_verify [$(( $(date +%s) - start )) s] $*"; }

imports_vllm() { [ -n "$1" ] && "$1" -c 'import vllm' >/dev/null 2>&1; }

find_engine() {
    if imports_vllm "${ENGINE_PYTHON:-}"; then echo "$ENGINE_PYTHON"; return; fi
    if imports_vllm "$(command -v python3 || true)"; then command -v python3; return; fi
    if imports_vllm "$VENV/bin/python"; then echo "$VENV/bin/python"; return; fi
    # --system-site-packages: reuse what the machine has (transformers, tokenizers, rich, ...).
    python3 -m venv --system-site-packages "$VENV"
    if ls .whl/*.whl >/dev/null 2>&1; then
        log "installing vLLM from carried wheels in .whl/" >&2
        "$VENV/bin/pip" install -q --no-index --find-links .whl vllm >&2
    else
        log "installing $VLLM_SPEC from PyPI (a few minutes)" >&2
        "$VENV/bin/pip" install -q "$VLLM_SPEC" >&2
    fi
    echo "$VENV/bin/python"
}

ENGINE="$(find_engine)"
log "engine python: $ENGINE"
{
    echo "engine_python: $ENGINE"
    "$ENGINE" -c 'import vllm, torch; print("vllm", vllm.__version__, "| torch", torch.__version__, "| cuda", torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else "")'
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || true
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

# promptlint's own small dependencies in the engine's environment (most come with vLLM).
"$ENGINE" -c 'import libcst, typer, rich, yaml, jinja2, tokenizers' 2>/dev/null || \
    "$ENGINE" -m pip install -q --retries 0 --timeout 10 "libcst>=1.1" "typer>=0.12" "rich>=13" "pyyaml>=6" "jinja2>=3.1" "tokenizers>=0.15" || true

MODEL="$OUT/model"
if [ ! -f "$MODEL/config.json" ]; then
    log "building a random-weight Llama: hidden $HIDDEN, $LAYERS layers, on $DEVICE"
    "$ENGINE" verifier/scripts/build_tiny_model.py "$MODEL" --hidden "$HIDDEN" --layers "$LAYERS" \
        --heads "$HEADS" --device "$DEVICE" --dtype bfloat16 2>&1 | tail -2
fi

# The analyzer needs libcst; without it, verify the built-in samples only.
TARGETS=(fixtures/demo_app --samples)
PYTHONPATH="$ROOT" "$ENGINE" -c 'import libcst' 2>/dev/null || { TARGETS=(--samples); log "no libcst: samples only"; }

log "verifying ${TARGETS[*]} with block size $BLOCK_SIZE, $REQUESTS requests per layout"
PYTHONPATH="$ROOT" PROMPTLINT_VERIFY_PYTHON="$ENGINE" "$ENGINE" -m promptlint verify "${TARGETS[@]}" \
    --backend vllm --model "$MODEL" --block-size "$BLOCK_SIZE" --requests "$REQUESTS" \
    --format json --output "$OUT/verify.json" --chart "$OUT/verify.html" 2> "$OUT/verify.log"
# The text report from the same figures, without a second engine run.
PYTHONPATH="$ROOT" "$ENGINE" -m promptlint verify --from-report "$OUT/verify.json" > "$OUT/verify.txt"
cat "$OUT/verify.txt"
rm -rf "$MODEL"  # gigabytes; rebuilt in a minute
log "done; results in $OUT"
