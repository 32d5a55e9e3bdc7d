"""Mutation testing of promptlint's core with mutmut 3 (docs/testing.md).

Each module is mutated against the tests that cover it (MODULES below), in its own scratch copy
of the tree under .mutation/<module>/ (mutmut reads its settings from pyproject.toml, so each copy
gets [tool.mutmut] with that module's only_mutate and test selection). Inside a copy, mutmut runs
the listed tests once to learn which test reaches which function, then each mutant only against
the tests that reach it.

    python scripts/mutation.py                     # every module (about an hour on 2 cores)
    python scripts/mutation.py promptlint/baseline.py promptlint/reporters/sarif.py
    python scripts/mutation.py --quick [REF]       # only functions whose lines changed since REF (main)
    python scripts/mutation.py --parallel 2        # modules at once (default 2: one per core)
    python scripts/mutation.py --survivors MODULE  # only the mutants that survived its last run

mutmut keeps each module's results in its scratch copy and does not test a mutant of an unchanged
function again, even when the tests changed: after adding tests, run `--survivors` (a killed
mutant stays killed when tests are only added) to re-measure.

Prints, per module, killed / total and every surviving mutant's name; `--summary FILE` also
writes them as JSON. Run `cd .mutation/<module> && mutmut show NAME` to see a mutant's diff.
Needs the `mutation` extra: pip install -e '.[mutation]'.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCRATCH = REPO / ".mutation"

# What a user sees, and the tests that are meant to catch a change of it.
REPORTER_TESTS = ["tests/test_integrations_formats.py", "tests/test_exact_outputs.py",
                  "tests/test_internal_errors.py", "tests/test_reporters_text_markdown.py",
                  "tests/test_reporters_sarif.py"]
# What a finding says and how severe it is, for small programs through the analyzer (the rule
# examples only check that a rule fires).
RULE_TESTS = ["tests/test_finding_contents.py", "tests/test_pc001_severity.py", "tests/test_pc003_contents.py",
              "tests/test_rule_units.py"]
# The rules judged by their examples, the exact outputs and the finding-contents and unit tests.
RULE_UNIT_TESTS = ["tests/test_rule_examples.py", "tests/test_exact_outputs.py", *RULE_TESTS]
MODULES: dict[str, list[str]] = {
    # rules and layout ordering
    "promptlint/checks/base.py": ["tests/test_rule_examples.py", "tests/test_exact_outputs.py",
                                  "tests/test_scope_wording.py", *RULE_TESTS],
    "promptlint/checks/pc001_volatile_before_stable.py": ["tests/test_rule_examples.py", "tests/test_exact_outputs.py",
                                                         "tests/test_summaries_and_assembly.py",
                                                         "tests/test_scope_wording.py", *RULE_TESTS],
    "promptlint/checks/pc002_unstable_tool_order.py": RULE_UNIT_TESTS,
    "promptlint/checks/pc003_unordered_prompt_content.py": RULE_UNIT_TESTS,
    "promptlint/checks/pc004_unstable_json.py": RULE_UNIT_TESTS,
    "promptlint/checks/pc005_volatile_cache_key.py": RULE_UNIT_TESTS,
    "promptlint/checks/pc006_volatile_tool_definition.py": RULE_UNIT_TESTS,
    "promptlint/checks/pc007_cache_control_after_volatile.py": RULE_UNIT_TESTS,
    "promptlint/checks/pc008_chat_template_date.py": RULE_UNIT_TESTS,
    # Its cut shapes and the shapes it leaves alone (test_pc009_cases); the exact outputs hold calls
    # with a conversation history, which it must leave alone.
    "promptlint/checks/pc009_sliding_history_window.py": ["tests/test_rule_examples.py",
                                                         "tests/test_exact_outputs.py",
                                                         "tests/test_pc009_cases.py"],
    # Where it anchors, what it counts, the look-alikes it leaves alone (test_pc010_cases).
    "promptlint/checks/pc010_instructions_after_request.py": ["tests/test_rule_examples.py",
                                                             "tests/test_pc010_cases.py"],
    # The provider's cache order of a call's parts: every rule reads it, the exact outputs pin the
    # locations taken from it, and test_layout_order compares whole parts built from hand-made
    # values (the analyzer-level tests reach it too, but at 7 s a mutant they took 40+ minutes).
    "promptlint/analysis/layout.py": ["tests/test_layout_order.py", "tests/test_rule_examples.py",
                                      "tests/test_exact_outputs.py", "tests/test_pc010_cases.py"],
    # which parameters reach system content, and the slots inferred from them (first-call "o" slots
    # among them): the flows' unit cases and the analyzer-level wrapper cases (not the three that
    # run the CLI in a subprocess, which cannot load mutmut's trampolines)
    "promptlint/analysis/summaries.py": ["tests/test_summaries_and_assembly.py", "-k",
                                         "not client_wrappers and not where_the_callee_builds_it"],
    # estimate and cost
    "promptlint/estimate/cost.py": ["tests/test_estimate_cost.py", "tests/test_estimate_cli.py"],
    # suppressions, baseline
    "promptlint/suppressions.py": ["tests/test_integrations_suppressions.py"],
    "promptlint/baseline.py": ["tests/test_integrations_baseline.py"],
    # reporters
    "promptlint/reporters/json_report.py": REPORTER_TESTS,
    "promptlint/reporters/sarif.py": REPORTER_TESTS,
    "promptlint/reporters/github.py": REPORTER_TESTS,
    # (not the corpus test: its CLI subprocesses cannot load mutmut's trampolines, and its clean run fails)
    "promptlint/reporters/text.py": REPORTER_TESTS,
    "promptlint/reporters/markdown.py": REPORTER_TESTS,
    # CLI exit codes, internal errors
    # (the CLI tests that run it in this process: a subprocess cannot load mutmut's trampolines)
    "promptlint/cli.py": ["tests/test_exact_outputs.py", "tests/test_internal_errors.py",
                          "tests/test_integrations_gitdiff.py",
                          *(f"tests/test_integrations_cli.py::{name}" for name in (
                              "test_exit_zero_keeps_errors_at_2", "test_statistics_text_and_json",
                              "test_quiet_prints_only_findings", "test_exclude_extend_exclude_and_extend_select_flags",
                              "test_force_exclude_applies_the_configured_exclude_to_named_files",
                              "test_force_exclude_respects_gitignore_for_named_files",
                              "test_stdin_buffers_in_process", "test_also_writes_more_formats_from_one_run"))],
    "promptlint/internal.py": ["tests/test_internal_errors.py"],
    # what the reach read of each file: its unit tests, and the cache's edit cases end to end (in
    # this process: the cache tests that run the CLI cannot load mutmut's trampolines)
    "promptlint/reach_inputs.py": ["tests/test_reach_inputs.py", *(
        f"tests/test_cache_incremental.py::{name}" for name in (
            "test_an_edit_that_changes_nothing_the_reach_reads_keeps_the_reach",
            "test_an_edit_that_changes_what_the_reach_reads_computes_it_again"))],
}
COPIED = ["promptlint", "tests", "fixtures", "rules", "verifier", "pyproject.toml"]


def scratch_copy(module: str, tests: list[str]) -> Path:
    """A copy of what the tests need, with [tool.mutmut] for this module; mutmut's own state
    (mutants/) is kept between runs, so an unchanged function is not mutated again."""
    folder = SCRATCH / module.replace("/", "__").removesuffix(".py")
    folder.mkdir(parents=True, exist_ok=True)
    for name in COPIED:
        source, target = REPO / name, folder / name
        if source.is_dir():
            shutil.copytree(source, target, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__", ".promptlint_cache", "*.pyc"))
        else:
            shutil.copy2(source, target)
    settings = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mutmut"]
    # Each module's tests get their own pytest basetemp, so two modules can run side by side; it
    # lies outside the tree, as pytest's default does, since promptlint takes the nearest folder
    # above a file with a pyproject.toml for the project root.
    basetemp = Path(tempfile.gettempdir()) / "promptlint-mutation" / folder.name
    basetemp.parent.mkdir(parents=True, exist_ok=True)  # pytest creates only the last folder
    settings.update(only_mutate=[module], pytest_add_cli_args_test_selection=tests,
                    pytest_add_cli_args=[*settings.get("pytest_add_cli_args", []), f"--basetemp={basetemp}"])
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    text = text[:text.index("[tool.mutmut]")] + "[tool.mutmut]\n" + "".join(
        f"{key} = {json.dumps(value)}\n" for key, value in settings.items())
    (folder / "pyproject.toml").write_text(text, encoding="utf-8")
    return folder


def run_module(module: str, names: list[str] | None) -> dict[str, object]:
    """One mutant at a time: with two forked children sharing a module's scratch copy, mutmut 3.8
    reported mutants as surviving that kill a test when run alone (see docs/testing.md).
    ``names`` None: nothing to run (no survivors left), only report."""
    folder = scratch_copy(module, MODULES[module])
    if names is None:
        return collect(module, folder)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    command = ["nice", "-n", "10", sys.executable, "-m", "mutmut", "run", "--max-children", "1", *names]
    with (folder / "mutmut.log").open("w", encoding="utf-8") as log:  # progress spinners: kept out of the report
        subprocess.run(command, cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT, check=False)
    return collect(module, folder)


def collect(module: str, folder: Path, report: bool = True) -> dict[str, object]:
    """Killed, survived and other outcomes of the module's mutants (``mutmut results --all``)."""
    done = subprocess.run([sys.executable, "-m", "mutmut", "results", "--all", "true"], cwd=folder,
                          capture_output=True, text=True, check=False)
    status: dict[str, str] = {}
    for line in done.stdout.splitlines():
        match = re.match(r"\s*(\S+__mutmut_\d+): (.+)$", line)
        if match:
            status[match[1]] = match[2].strip()
    killed = sorted(n for n, s in status.items() if s == "killed")
    survived = sorted(n for n, s in status.items() if s == "survived")
    other = sorted(f"{n}: {s}" for n, s in status.items() if s not in ("killed", "survived"))
    total = len(killed) + len(survived)
    score = round(100 * len(killed) / total, 1) if total else None
    if report:
        print(f"{module}: {len(killed)}/{total} killed ({score} %); {len(other)} not run or timed out")
        for name in survived:
            print(f"  survived {name}")
    return {"module": module, "killed": len(killed), "survived": survived, "other": other, "score": score}


def changed_functions(ref: str) -> dict[str, set[str]]:
    """Per mapped module, the names of the functions (and methods) with lines changed since ``ref``."""
    found: dict[str, set[str]] = {}
    for module in MODULES:
        diff = subprocess.run(["git", "diff", "-U0", ref, "--", module], cwd=REPO, capture_output=True,
                              text=True, check=False).stdout
        lines = {int(m[1]) + i for m in re.finditer(r"^@@ -\S+ \+(\d+)(?:,(\d+))? @@", diff, re.M)
                 for i in range(int(m[2]) if m[2] is not None else 1)}
        if not lines:
            continue
        tree = ast.parse((REPO / module).read_text(encoding="utf-8"))
        names = {node.name for node in ast.walk(tree)
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and any(node.lineno <= line <= (node.end_lineno or node.lineno) for line in lines)}
        if names:
            found[module] = names
    return found


def mutant_globs(module: str, functions: set[str]) -> list[str]:
    """mutmut 3 names a mutant ``pkg.mod.x_func__mutmut_N`` (``pkg.mod.xǁClassǁmethod__mutmut_N``)."""
    dotted = module.removesuffix(".py").replace("/", ".")
    return [glob for name in sorted(functions)
            for glob in (f"{dotted}.x_{name}__mutmut_*", f"{dotted}.xǁ*ǁ{name}__mutmut_*")]


def mutant_names(module: str, functions: set[str], survivors: bool) -> list[str] | None:
    """What to run: every mutant (no names), those of some functions, or last run's survivors
    (None when there are none)."""
    if survivors:
        folder = SCRATCH / module.replace("/", "__").removesuffix(".py")
        names = list(collect(module, folder, report=False)["survived"]) if folder.exists() else []  # type: ignore[call-overload]
        return names or None
    return mutant_globs(module, functions) if functions else []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("modules", nargs="*", help="modules to mutate (default: all of MODULES)")
    parser.add_argument("--quick", nargs="?", const="main", metavar="REF",
                        help="only the functions whose lines changed since REF (default: main)")
    parser.add_argument("--parallel", type=int, default=2, help="modules mutated at once (default 2)")
    parser.add_argument("--survivors", action="store_true",
                        help="only the mutants that survived the module's last run (after adding tests)")
    parser.add_argument("--summary", type=Path, help="also write the results as JSON")
    args = parser.parse_args(argv)
    unknown = [m for m in args.modules if m not in MODULES]
    if unknown:
        parser.error(f"not in MODULES: {', '.join(unknown)}")
    selected = {m: set() for m in (args.modules or MODULES)}  # empty: every function
    if args.quick:
        changed = changed_functions(args.quick)
        selected = {m: f for m, f in changed.items() if m in selected}
        if not selected:
            print(f"no function of the mapped modules changed since {args.quick}")
            return 0
    with ThreadPoolExecutor(max(1, args.parallel)) as pool:
        results = list(pool.map(lambda item: run_module(item[0], mutant_names(*item, args.survivors)),
                                selected.items()))
    killed = sum(int(r["killed"]) for r in results)  # type: ignore[call-overload]
    total = killed + sum(len(r["survived"]) for r in results)  # type: ignore[arg-type]
    print(f"all: {killed}/{total} killed ({round(100 * killed / total, 1) if total else None} %)")
    if args.summary:
        args.summary.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
