#!/usr/bin/env bash
# Mutation testing of promptlint's core (docs/testing.md). Not part of CI: it needs the
# `mutation` extra and takes about an hour for every module on 2 cores.
#   scripts/mutation.sh                      every module in scripts/mutation.py, each against its tests
#   scripts/mutation.sh promptlint/baseline.py promptlint/reporters/sarif.py
#   scripts/mutation.sh --quick [REF]        only functions whose lines changed since REF (default: main)
# Results: killed/total per module and every surviving mutant; mutmut's state is kept under
# .mutation/<module>/ (inspect a mutant with `cd .mutation/<module> && mutmut show NAME`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
python3 -c "import mutmut" 2>/dev/null || python3 -m pip install --quiet -e '.[mutation]'
exec python3 scripts/mutation.py "$@"
