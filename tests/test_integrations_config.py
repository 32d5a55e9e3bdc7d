"""Configuration end to end: `[tool.promptlint]` found upwards, every selection key, excludes and
.gitignore, fail level, traffic; CLI flags override; unknown keys and codes are exit 2; the
`rules`/`rule` commands; and the pre-commit situation (files passed one by one, project analyzed)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import write_tree
from tests.integration_helpers import CLOCK_BUST, CROSS_MODULE, check_json, cli, git_repo, rules_found

SET_TOOLS = """
from openai import OpenAI
SPECS = {"search": {"type": "function", "function": {"name": "search"}},
         "lookup": {"type": "function", "function": {"name": "lookup"}}}
def run(messages: list):
    enabled = set(SPECS)
    tools = [SPECS[name] for name in enabled]
    return OpenAI().chat.completions.create(model="gpt-4.1", tools=tools, messages=messages)
"""


def project(tmp_path: Path, table: str, files: dict[str, str] | None = None) -> Path:
    pyproject = f'[project]\nname = "demo"\n\n[tool.promptlint]\n{table}\n'
    return write_tree(tmp_path, {"pyproject.toml": pyproject, **(files or {"app/clock.py": CLOCK_BUST,
                                                                          "app/tools.py": SET_TOOLS})})


def test_config_is_found_upwards_from_the_analyzed_path(tmp_path: Path) -> None:
    root = project(tmp_path, 'select = ["PC002"]')
    assert rules_found(root / "app") == ["PC002"]
    assert rules_found(root, "app/clock.py", "app/tools.py") == ["PC002"]


def test_ignore_and_extend_select(tmp_path: Path) -> None:
    root = project(tmp_path, 'ignore = ["PC002"]')
    assert rules_found(root) == ["PC001"]
    root2 = project(tmp_path / "b", 'select = ["PC002"]\nextend-select = ["PC001"]')
    assert sorted(rules_found(root2)) == ["PC001", "PC002"]


def test_per_file_ignores(tmp_path: Path) -> None:
    root = project(tmp_path, '[tool.promptlint.per-file-ignores]\n"app/tools.py" = ["PC002"]')
    assert rules_found(root) == ["PC001"]


def test_cli_flags_override_the_file(tmp_path: Path) -> None:
    root = project(tmp_path, 'select = ["PC002"]\nfail-on = "error"')
    assert rules_found(root, "--select", "PC001") == ["PC001"]
    code, _ = check_json(root, "--fail-on", "info")
    assert code == 1


def test_fail_on_level(tmp_path: Path) -> None:
    warning_only = CLOCK_BUST.replace("* 20", "* 5").replace("*history, ", "")
    root = project(tmp_path, 'fail-on = "error"', {"app.py": warning_only})
    code, report = check_json(root)
    assert [f["severity"] for f in report["findings"]] == ["warning"] and code == 0
    code, _ = check_json(root, "--fail-on", "warning")
    assert code == 1


def test_exclude_and_gitignore(tmp_path: Path) -> None:
    root = project(tmp_path, 'exclude = ["generated"]', {"generated/clock.py": CLOCK_BUST,
                                                         "ignored/clock.py": CLOCK_BUST,
                                                         "app/clock.py": CLOCK_BUST,
                                                         ".gitignore": "ignored/\n"})
    git_repo(root, {})
    _, report = check_json(root)
    assert [f["path"] for f in report["findings"]] == ["app/clock.py"]


def test_traffic_and_providers_are_accepted(tmp_path: Path) -> None:
    root = project(tmp_path, 'calls-per-day = 5000\nproviders = ["openai"]\n'
                             '[tool.promptlint.traffic]\n"app/*" = 20000', {"app/clock.py": CLOCK_BUST})
    code, report = check_json(root)
    assert code == 1
    losses = [loss for f in report["findings"] for loss in (f["estimate"] or {}).get("losses", [])]
    assert all(loss["calls_per_day"] in (5000, 20000) for loss in losses)


def test_unknown_key_is_exit_2_with_a_clear_message(tmp_path: Path) -> None:
    root = project(tmp_path, 'selekt = ["PC001"]')
    code, _, err = cli("check", ".", cwd=root)
    assert code == 2
    assert "unknown key 'selekt' in [tool.promptlint]" in err and "pyproject.toml" in err


def test_unknown_rule_code_is_exit_2(tmp_path: Path) -> None:
    root = project(tmp_path / "proj", 'ignore = ["PC999"]')
    code, _, err = cli("check", ".", cwd=root)
    assert code == 2 and "unknown rule code or prefix 'PC999'" in err
    (tmp_path / "other").mkdir()
    code, _, err = cli("check", ".", "--select", "XYZ1", cwd=tmp_path / "other")
    assert code == 2 and "'XYZ1'" in err


def test_wrong_type_is_exit_2(tmp_path: Path) -> None:
    root = project(tmp_path, 'fail-on = "sometimes"')
    code, _, err = cli("check", ".", cwd=root)
    assert code == 2 and "'fail-on' must be one of" in err


def test_rules_and_rule_commands(tmp_path: Path) -> None:
    code, out, _ = cli("rules", cwd=tmp_path)
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()][:2] == ["PC001", "PC002"] and "PC900" in out
    code, out, _ = cli("rule", "PC004", cwd=tmp_path)
    assert code == 0 and "## What it does" in out and "## Fix safety" in out
    code, out, _ = cli("rule", "unused-suppression", cwd=tmp_path)
    assert code == 0 and out.startswith("PC900 unused-suppression.")
    code, _, err = cli("rule", "PC999", cwd=tmp_path)
    assert code == 2 and "unknown rule 'PC999'" in err


def test_files_passed_one_by_one_are_analyzed_with_the_project(tmp_path: Path) -> None:
    """The pre-commit situation: only bot.py is staged; the clock is born in sections.py."""
    root = git_repo(tmp_path, CROSS_MODULE)
    _, report = check_json(root, "helpdesk/bot.py")
    [finding] = report["findings"]
    assert (finding["rule"], finding["path"], finding["call_site"]["path"]) == \
        ("PC001", "helpdesk/sections.py", "helpdesk/bot.py")
    assert rules_found(root, "helpdesk/sections.py") == ["PC001"]
    assert rules_found(root, "helpdesk/unrelated.py") == []


def test_rules_frameworks_lists_the_knowledge_and_the_users_own(tmp_path: Path) -> None:
    """`promptlint rules --frameworks`: what each knowledge table covers, with the project's
    own declarations from its config; a broken config is exit 2."""
    root = project(tmp_path, 'chat-templates = ["acme_prompts.ChatPrompt"]\n'
                             '[tool.promptlint.system-messages]\n"acme_llm.SystemNote" = ["text"]')
    code, out, _ = cli("rules", "--frameworks", cwd=root)
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("LLM calls") and "openai" in lines[1]
    system = lines[lines.index(next(line for line in lines if line.startswith("system messages"))) + 1]
    assert "acme_llm" in system and "langchain_core" in system
    chat = lines[lines.index(next(line for line in lines if line.startswith("chat templates"))) + 1]
    assert "dbgpt" in chat and "acme_prompts" in chat
    broken = project(tmp_path / "broken", 'fail-on = "sometimes"')
    assert cli("rules", "--frameworks", cwd=broken)[0] == 2


def test_rules_frameworks_names_namespace_packages_and_the_callback_tables(tmp_path: Path) -> None:
    """The run-state and model-callback tables are listed, a namespace package by its second name
    (`google.adk`, not `google`), with the project's own run-state types."""
    root = project(tmp_path, '[tool.promptlint.run-state]\n"myagents.StepContext" = ["memory"]')
    code, out, _ = cli("rules", "--frameworks", cwd=root)
    lines = out.splitlines()
    run_state = lines[lines.index(next(line for line in lines if line.startswith("run state"))) + 1]
    assert code == 0 and "google.adk" in run_state and "langchain" in run_state and "myagents" in run_state
    callbacks = lines[lines.index(next(line for line in lines if line.startswith("model callbacks"))) + 1]
    assert "google.adk" in callbacks and "google," not in callbacks + ","
    settings = lines[lines.index(next(line for line in lines if line.startswith("agent settings"))) + 1]
    assert "agno" in settings and "phi" in settings
    wrappers = lines[lines.index(next(line for line in lines if line.startswith("calls that wrap a client"))) + 1]
    assert "instructor" in wrappers and "langsmith" in wrappers


def test_rules_frameworks_lists_the_http_clients_and_chat_endpoints(tmp_path: Path) -> None:
    """Raw HTTP: the clients and the endpoints, the project's own endpoints included (a path, or a
    `:method` ending as Google's REST APIs write them)."""
    root = project(tmp_path, '[tool.promptlint.http-paths]\n"/api/chat" = "openai.client.chat.completions.create"\n'
                             '":rawPredict" = "gemini.rest.generate_content"')
    code, out, _ = cli("rules", "--frameworks", cwd=root)
    lines = out.splitlines()
    clients = lines[lines.index(next(line for line in lines if line.startswith("HTTP clients"))) + 1]
    assert code == 0 and clients.strip() == "aiohttp, httpx, requests"
    endpoints = lines[lines.index(next(line for line in lines if line.startswith("chat endpoints"))) + 1]
    assert "/v1/messages (anthropic.messages)" in endpoints and "/api/chat (openai.chat.completions)" in endpoints
    assert ":rawPredict (google.gemini.generate_content)" in endpoints
