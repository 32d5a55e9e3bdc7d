"""The command-line conventions people bring from ruff, mypy and semgrep, run as a user runs
them (the real entry point in a subprocess where the terminal or the environment matters)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from promptlint.reporters import FORMATS
from tests.conftest import REPO, run_cli, write_tree
from tests.integration_helpers import CLEAN, CLOCK_BUST, cli, git_repo

ANSI = "\x1b["


def project(root: Path, table: str = "", files: dict[str, str] | None = None) -> Path:
    pyproject = f'[project]\nname = "demo"\n\n[tool.promptlint]\n{table}\n'
    return write_tree(root, {"pyproject.toml": pyproject,
                             **(files or {"app/bot.py": CLOCK_BUST, "legacy/old.py": CLOCK_BUST})})


def paths_found(out: str) -> list[str]:
    return sorted({f["path"] for f in json.loads(out)["findings"]})


def test_version_short_and_long(tmp_path: Path) -> None:
    for flag in ("-V", "--version"):
        code, out, _ = cli(flag, cwd=tmp_path)
        assert code == 0 and out.startswith("promptlint ")


def test_exit_zero_keeps_errors_at_2(tmp_path: Path) -> None:
    root = project(tmp_path)
    assert cli("check", cwd=root)[0] == 1
    code, out, _ = cli("check", "--exit-zero", cwd=root)
    assert code == 0 and "PC001" in out
    assert cli("check", "--exit-zero", "nope.py", cwd=root)[0] == 2
    assert cli("check", "--exit-zero", "--select", "NOPE", cwd=root)[0] == 2


def test_statistics_text_and_json(tmp_path: Path) -> None:
    root = project(tmp_path)
    code, out, _ = cli("check", "--statistics", cwd=root)
    assert code == 1 and out.split() == ["2", "PC001", "volatile-before-stable"]
    code, out, _ = cli("check", "--statistics", "--format", "json", cwd=root)
    assert json.loads(out) == [{"code": "PC001", "name": "volatile-before-stable", "count": 2, "fixable": 0}]


def test_quiet_prints_only_findings(tmp_path: Path) -> None:
    root = project(tmp_path)
    _, loud, _ = cli("check", cwd=root)
    _, quiet, _ = cli("check", "-q", cwd=root)
    assert "Found 2 findings" in loud and "Found" not in quiet and "PC001" in quiet
    clean = project(tmp_path / "clean", files={"app.py": CLEAN})
    assert cli("check", "--quiet", cwd=clean)[1] == ""
    # Quiet leaves other formats whole.
    assert cli("check", "-q", "--format", "json", cwd=root)[1] == cli("check", "--format", "json", cwd=root)[1]


def test_exclude_extend_exclude_and_extend_select_flags(tmp_path: Path) -> None:
    root = project(tmp_path, 'exclude = ["legacy"]\nselect = ["PC002"]')
    code, out, _ = cli("check", "--extend-select", "PC001", "--format", "json", cwd=root)
    assert paths_found(out) == ["app/bot.py"]
    code, out, _ = cli("check", "--select", "PC001", "--exclude", "app", "--format", "json", cwd=root)
    assert paths_found(out) == ["legacy/old.py"]  # --exclude replaces the configured exclude
    code, out, _ = cli("check", "--select", "PC001", "--extend-exclude", "app", "--format", "json", cwd=root)
    assert code == 0 and paths_found(out) == []


def test_force_exclude_applies_the_configured_exclude_to_named_files(tmp_path: Path) -> None:
    root = project(tmp_path, 'exclude = ["legacy"]')
    _, out, _ = cli("check", "legacy/old.py", "app/bot.py", "--format", "json", cwd=root)
    assert paths_found(out) == ["app/bot.py", "legacy/old.py"]  # named files bypass exclude ...
    code, out, _ = cli("check", "legacy/old.py", "app/bot.py", "--force-exclude", "--format", "json", cwd=root)
    assert paths_found(out) == ["app/bot.py"]  # ... unless forced
    code, out, _ = cli("check", "legacy/old.py", "--force-exclude", cwd=root)
    assert code == 0 and "PC001" not in out
    assert cli("check", "legacy", "--force-exclude", cwd=root)[0] == 0  # a named folder too
    assert cli("check", ".", "--force-exclude", cwd=root)[0] == 1  # the project itself never is
    forced = project(tmp_path / "cfg", 'exclude = ["legacy"]\nforce-exclude = true')
    assert cli("check", "legacy/old.py", cwd=forced)[0] == 0
    assert cli("check", "legacy/old.py", "--no-force-exclude", cwd=forced)[0] == 1


def test_force_exclude_respects_gitignore_for_named_files(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"pyproject.toml": '[project]\nname = "x"\n', ".gitignore": "generated/\n",
                                        "app.py": CLEAN})
    write_tree(root, {"generated/bot.py": CLOCK_BUST})
    assert cli("check", "generated/bot.py", cwd=root)[0] == 1
    assert cli("check", "generated/bot.py", "--force-exclude", cwd=root)[0] == 0
    assert cli("check", "generated", "--force-exclude", cwd=root)[0] == 0


def test_test_code_is_skipped_unless_asked(tmp_path: Path) -> None:
    tests = {"app/bot.py": CLOCK_BUST, "tests/test_bot.py": CLOCK_BUST, "app/testing/fake.py": CLOCK_BUST,
             "app/bot_test.py": CLOCK_BUST, "test_e2e.py": CLOCK_BUST, "conftest.py": CLOCK_BUST,
             "app/latest.py": CLOCK_BUST, "contest/entry.py": CLOCK_BUST}
    root = project(tmp_path, files=tests)
    production = ["app/bot.py", "app/latest.py", "contest/entry.py"]
    assert paths_found(cli("check", "--format", "json", cwd=root)[1]) == production
    assert paths_found(cli("check", "--check-tests", "--format", "json", cwd=root)[1]) == sorted(tests)
    assert "Skipped test code: 5 folders and files (--check-tests to analyze it)." in cli("check", cwd=root)[1]
    assert "Skipped test code" not in cli("check", "--check-tests", cwd=root)[1]
    configured = project(tmp_path / "cfg", "check-tests = true", files=tests)
    assert paths_found(cli("check", "--format", "json", cwd=configured)[1]) == sorted(tests)
    assert paths_found(cli("check", "--no-check-tests", "--format", "json", cwd=configured)[1]) == production
    # A test file named on the command line is analyzed, unless excludes are forced (pre-commit).
    assert paths_found(cli("check", "tests/test_bot.py", "--format", "json", cwd=root)[1]) == ["tests/test_bot.py"]
    assert cli("check", "tests/test_bot.py", "--force-exclude", cwd=root)[0] == 0
    # So is a test folder named on the command line, whole; a production folder skips its tests.
    assert paths_found(cli("check", "tests", "--format", "json", cwd=root)[1]) == ["tests/test_bot.py"]
    assert paths_found(cli("check", "app/testing", "--format", "json", cwd=root)[1]) == ["app/testing/fake.py"]
    assert paths_found(cli("check", "app", "--format", "json", cwd=root)[1]) == ["app/bot.py", "app/latest.py"]
    assert cli("check", "tests", "--force-exclude", cwd=root)[0] == 0
    assert "check-tests" in cli("check", "--help", cwd=root)[1]


def test_a_named_package_sees_the_modules_beside_it(tmp_path: Path) -> None:
    # No configuration: a package named on the command line is analyzed with the folder its top
    # package is imported from, so the prompt it imports from a sibling package is known (as when
    # its files are named one by one, or the whole project is checked).
    root = write_tree(tmp_path, {
        "shared/__init__.py": "",
        "shared/prompts.py": ("from datetime import datetime\n"
                              "def system() -> str:\n"
                              "    return f'Now: {datetime.now()}. ' + 'Answer from the refund policy only. ' * 40\n"),
        "bot/__init__.py": "",
        "bot/agent/__init__.py": "",
        "bot/agent/reply.py": ("from openai import OpenAI\nfrom shared.prompts import system\n\n"
                               "def reply(history: list, question: str):\n"
                               "    return OpenAI().chat.completions.create(model='gpt-4o', messages=[\n"
                               "        {'role': 'system', 'content': system()}, *history, {'role': 'user', 'content': question}])\n"),
    })
    whole = paths_found(cli("check", "--format", "json", cwd=root)[1])
    assert whole == ["shared/prompts.py"]
    for named in ("bot/agent", "bot", "bot/agent/reply.py"):
        assert paths_found(cli("check", named, "--format", "json", cwd=root)[1]) == whole, named


def test_stdin_with_stdin_filename(tmp_path: Path) -> None:
    root = project(tmp_path, 'exclude = ["legacy"]\n[tool.promptlint.per-file-ignores]\n"scripts/*" = ["PC001"]')

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "promptlint", "check", *args], cwd=root, input=CLOCK_BUST.lstrip("\n"),
                              capture_output=True, text=True, timeout=300,
                              env={**os.environ, "PYTHONPATH": str(REPO)})

    done = run("--stdin-filename", "app/editor.py", "--format", "json")
    assert done.returncode == 1, done.stderr
    findings = json.loads(done.stdout)["findings"]
    assert [(f["path"], f["line"], f["call_site"]["path"]) for f in findings] == [
        ("app/editor.py", 5, "app/editor.py")]
    assert not (root / "app" / "editor.py").exists()  # nothing written into the project


def test_stdin_buffers_in_process(tmp_path: Path) -> None:
    """The same CLI in this process (mutation testing sees it): the buffer's lines, per-file
    ignores and exclusion by the buffer's name, and a buffer beside named files."""
    root = project(tmp_path, 'exclude = ["legacy"]\n[tool.promptlint.per-file-ignores]\n"scripts/*" = ["PC001"]')

    def piped(*args: str) -> tuple[int, str, str]:
        return cli("check", *args, cwd=root, stdin=CLOCK_BUST.lstrip("\n"))

    (root / "app" / "bot.py").write_text("# the saved file differs from the editor's buffer\n" * 9)
    code, text, _ = piped("--stdin-filename", "app/bot.py")
    assert code == 1 and 'app/bot.py:5:31: PC001' in text
    assert '> 5 |     system = f"Current time:' in text  # the buffer's lines
    assert piped("--stdin-filename", "scripts/x.py")[0] == 0  # per-file ignores by its name
    assert piped("--stdin-filename", "legacy/x.py")[0] == 1
    code, text, _ = piped("--stdin-filename", "legacy/x.py", "--force-exclude", "--format", "json")
    assert code == 0 and json.loads(text)["findings"] == [] and json.loads(text)["errors"] == []
    assert piped("--stdin-filename", "app/x.py", "app/bot.py")[0] == 2


def test_color_auto_always_never_and_the_environment(tmp_path: Path) -> None:
    root = project(tmp_path)

    def colored(*args: str, **env: str) -> bool:
        done = run_cli("check", *args, cwd=root, env={"NO_COLOR": "", "FORCE_COLOR": "", **env})
        assert done.returncode == 1, done.stderr
        return ANSI in done.stdout

    assert not colored()  # not a terminal
    assert colored(FORCE_COLOR="1")
    assert not colored(NO_COLOR="1", FORCE_COLOR="1")  # NO_COLOR wins in auto
    assert colored("--color", "always", NO_COLOR="1")  # an explicit flag wins over the environment
    assert not colored("--color", "never", FORCE_COLOR="1")
    assert run_cli("check", "--color", "sometimes", cwd=root).returncode == 2


def test_color_never_reaches_a_file(tmp_path: Path) -> None:
    root = project(tmp_path)
    done = run_cli("check", "-o", "out.txt", cwd=root, env={"FORCE_COLOR": "1"})
    assert done.returncode == 1 and ANSI not in (root / "out.txt").read_text()


def test_also_writes_more_formats_from_one_run(tmp_path: Path) -> None:
    root = project(tmp_path)
    code, out, _ = cli("check", "--format", "github", "--also", "sarif=out.sarif", "--also",
                       "markdown=out.md", "--also", "json=out.json", cwd=root)
    assert code == 1 and out.count("::error ") == 2
    assert len(json.loads((root / "out.sarif").read_text())["runs"][0]["results"]) == 2
    assert json.loads((root / "out.json").read_text())["summary"]["findings"] == 2
    assert (root / "out.md").read_text().startswith("## promptlint: 2 cache-busting")
    code, out, _ = cli("check", "--statistics", "-f", "json", "--also", "json=full.json", cwd=root)
    assert json.loads(out)[0]["count"] == 2 and json.loads((root / "full.json").read_text())["version"] == 1
    assert cli("check", "--also", "html=report.html", "--also", "json=out=1.json", cwd=root)[0] == 1
    assert "promptlint report" in (root / "report.html").read_text(encoding="utf-8")
    assert json.loads((root / "out=1.json").read_text())["version"] == 1  # the first `=` ends the format
    for bad in ("pdf=x.pdf", "sarif", "json=", "=out.json"):
        code, _, err = cli("check", "--also", bad, cwd=root)
        assert (code, err) == (2, f"promptlint: error: --also takes FORMAT=FILE with FORMAT one of "
                                  f"{', '.join(FORMATS)}; got {bad!r}\n"), bad


def test_shell_completion_is_available(tmp_path: Path) -> None:
    # typer's switch for tests: the shell is named, not detected from the parent processes (a job
    # without a shell above it, like a CI runner's or a background one, has none to detect).
    done = run_cli("--show-completion", "bash", cwd=tmp_path,
                   env={"SHELL": "/bin/bash", "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"})
    assert done.returncode == 0, done.stderr
    assert "complete" in done.stdout and "promptlint" in done.stdout.lower()


def test_jobs_flag_overrides_the_configured_workers(tmp_path: Path, monkeypatch) -> None:
    from promptlint import engine

    root = project(tmp_path, "jobs = 3")
    asked: list[int] = []
    count_workers = engine.worker_count
    monkeypatch.setattr(engine, "worker_count", lambda jobs: asked.append(jobs) or count_workers(jobs))
    outputs = [cli("check", "--no-cache", "--format", "json", *flags, cwd=root)[1]
               for flags in ((), ("--jobs", "1"), ("-j", "2"))]
    assert asked == [3, 1, 2] and outputs[0] == outputs[1] == outputs[2]
    assert json.loads(outputs[0])["findings"]
    code, _, err = cli("check", "--jobs", "-1", cwd=root)
    assert code == 2 and "Traceback" not in err and "--jobs" in err


def test_cache_dir_flag_moves_the_cache_and_stays_inside_the_project(tmp_path: Path) -> None:
    root = project(tmp_path)
    code, out, _ = cli("check", "--cache-dir", "build/plcache", "--format", "json", cwd=root)
    assert code == 1 and json.loads(out)["findings"]
    assert (root / "build" / "plcache" / "CACHEDIR.TAG").is_file() and not (root / ".promptlint_cache").exists()
    code, _, err = cli("check", "--cache-dir", str(tmp_path.parent / "elsewhere"), cwd=root)
    assert code == 2 and "inside the project" in err and "Traceback" not in err
    code, _, err = cli("check", "--cache-dir", "c", "--no-cache", cwd=root)
    assert code == 2 and "contradict" in err


def test_every_check_flag_is_documented() -> None:
    import click
    import typer.main

    from promptlint.cli import app

    command = typer.main.get_command(app).commands["check"]  # type: ignore[attr-defined]
    docs = (REPO / "docs" / "integrations.md").read_text(encoding="utf-8") + (REPO / "README.md").read_text()
    flags = [opt for param in command.params if isinstance(param, click.Option)
             for opt in [*param.opts, *param.secondary_opts] if opt.startswith("--") and opt != "--help"]
    assert [flag for flag in flags if f"`{flag}" not in docs and f"{flag} " not in docs] == []


def test_quick_start_has_exactly_two_commands() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = [b.split("```", 1)[0] for b in section.split("```bash\n")[1:]]
    assert [line for block in blocks for line in block.splitlines() if line.strip()] == [
        "pip install . && promptlint check fixtures/demo_app", "bash scripts/test.sh"]
