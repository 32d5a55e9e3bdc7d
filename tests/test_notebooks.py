"""Jupyter notebooks: code cells analyzed as one module, IPython syntax blanked, locations as
`cell N` + line within the cell (like ruff), through every output and filter."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from promptlint.notebooks import notebook_source
from tests.conftest import write_tree
from tests.integration_helpers import CLEAN, cli, git, git_repo

SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))

SETUP = ["%pip install openai\n", "from datetime import datetime\n", "from openai import OpenAI\n",
         "POLICY = 'Follow the refund policy step by step and cite the relevant section. ' * 20\n"]
ANSWER = ["def answer(question, history):\n",
          "    system = f\"Current time: {datetime.now()}\\n\" + POLICY\n",
          "    return OpenAI().chat.completions.create(model='gpt-4o', messages=[\n",
          "        {'role': 'system', 'content': system}, *history, {'role': 'user', 'content': question}])\n",
          "!ls -l\n",
          "answer?"]


def notebook(*cells: tuple[str, list[str]]) -> str:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": kind, "metadata": {}, "source": source,
         **({"execution_count": None, "outputs": []} if kind == "code" else {})} for kind, source in cells]},
        indent=1)


BUST = notebook(("markdown", ["# Support bot\n"]), ("code", SETUP),
                ("code", ["%%bash\n", "for f in *; do\n", "  echo $((1 +\n", "done\n"]),
                ("code", ANSWER))


def test_code_cells_become_one_module_with_magics_blanked() -> None:
    converted = notebook_source(BUST)
    lines = converted.source.splitlines()
    assert lines[0] == "" and lines[1] == "from datetime import datetime"  # %pip blanked, line kept
    assert "echo" not in converted.source and "!ls" not in converted.source and "answer?" not in converted.source
    compile(converted.source, "nb", "exec")
    assert converted.place(lines.index("def answer(question, history):") + 1) == (4, 1)  # markdown counted


def test_shell_escapes_continued_indented_or_without_percent_are_blanked() -> None:
    # Seen in public cookbooks (bench/wild): each of these made the whole notebook a syntax error.
    converted = notebook_source(notebook(
        ("code", ["!pip install -qU \\\n", "    anthropic==0.49 \\\n", "    pinecone\n", "import os\n"]),
        ("code", ["import sys\n", "if 'google.colab' in sys.modules:\n", "    !git clone https://x.git /tmp/x\n",
                  "    %cd /tmp/x\n"]),
        ("code", ['pip install -U "autogen-ext[openai]"\n', "pip = 3\n", "pip.main(['list'])\n", "pip or 4\n"])))
    lines = converted.source.splitlines()
    compile(converted.source, "nb", "exec")
    assert lines[:4] == ["", "", "", "import os"]  # the continued lines go with the escape
    assert lines[7:9] == ["    pass", "    pass"]  # the `if` keeps a body
    assert lines[10:14] == ["", "pip = 3", "pip.main(['list'])", "pip or 4"]  # only the magic is blanked
    assert converted.place(13) == (3, 3)


def test_finding_in_a_cell_text_and_json(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"bot.ipynb": BUST})
    code, out, _ = cli("check", "bot.ipynb", cwd=root)
    assert code == 1
    assert "bot.ipynb:cell 4:2:31: PC001" in out
    assert '  > 2 |     system = f"Current time: {datetime.now()}\\n" + POLICY' in out  # the cell's own lines
    code, out, _ = cli("check", "--format", "json", cwd=root)
    [finding] = json.loads(out)["findings"]
    assert (finding["path"], finding["cell"], finding["line"], finding["column"]) == ("bot.ipynb", 4, 2, 31)
    assert (finding["call_site"]["cell"], finding["call_site"]["line"]) == (4, 3)
    assert json.loads(out)["summary"]["files_analyzed"] == 1


def test_value_born_in_an_earlier_cell_is_followed(tmp_path: Path) -> None:
    cells = notebook(("code", ["from datetime import datetime\n", "from openai import OpenAI\n",
                               "def stamp():\n", "    return f'Now: {datetime.now()}\\n'\n"]),
                     ("code", ["RULES = 'Answer politely and cite the knowledge base. ' * 30\n",
                               "def reply(history, question):\n",
                               "    return OpenAI().chat.completions.create(model='gpt-4o', messages=[\n",
                               "        {'role': 'system', 'content': stamp() + RULES}, *history,\n",
                               "        {'role': 'user', 'content': question}])\n"]))
    root = write_tree(tmp_path, {"nb.ipynb": cells})
    _, out, _ = cli("check", "--format", "json", cwd=root)
    [finding] = json.loads(out)["findings"]
    assert finding["rule"] == "PC001" and finding["volatile_source"]["cell"] == 1


def test_suppression_per_file_ignores_exclude_and_select(tmp_path: Path) -> None:
    suppressed = BUST.replace("+ POLICY\\n", "+ POLICY  # promptlint: ignore[PC001]\\n")
    assert suppressed != BUST
    root = write_tree(tmp_path, {"pyproject.toml": '[tool.promptlint]\nexclude = ["vendor"]\n'
                                                    '[tool.promptlint.per-file-ignores]\n"notebooks/*" = ["PC001"]\n',
                                 "ok.ipynb": suppressed, "notebooks/a.ipynb": BUST, "vendor/b.ipynb": BUST,
                                 "app.py": CLEAN})
    code, out, err = cli("check", cwd=root)
    assert code == 0, out + err
    assert cli("check", "--select", "PC002", "bad.ipynb", cwd=write_tree(tmp_path / "s", {"bad.ipynb": BUST}))[0] == 0


def test_sarif_and_github_for_a_notebook(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"bot.ipynb": BUST})
    _, out, _ = cli("check", "--format", "sarif", cwd=root)
    document = json.loads(out)
    jsonschema.Draft4Validator(SCHEMA).validate(document)
    physical = document["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert physical["region"]["startLine"] == 2 and physical["properties"] == {"cell": 4}
    _, out, _ = cli("check", "--format", "github", cwd=root)
    assert "::error file=bot.ipynb,line=2," in out and "in cell 4" in out


def test_broken_notebook_is_a_per_file_error(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"broken.ipynb": "{not json", "app.py": CLEAN})
    code, out, _ = cli("check", "--format", "json", cwd=root)
    errors = json.loads(out)["errors"]
    assert code == 0 and [e["path"] for e in errors] == ["broken.ipynb"]
    assert cli("check", "broken.ipynb", cwd=root)[0] == 2  # nothing requested could be analyzed


def test_prompt_lines_that_look_like_ipython_stay_in_their_string() -> None:
    # claude-cookbooks' text_to_sql guide: few-shot questions ending in `?` inside a prompt were
    # blanked as help lines, and the prompt lost them.
    cell = ['EXAMPLES = """\n', "User: Who is the oldest employee?\n", "!important: answer with SQL only\n",
            '%s rows at most"""\n', "len?\n"]
    converted = notebook_source(notebook(("code", cell[:4]), ("code", cell[4:])))
    lines = converted.source.splitlines()
    assert lines[:4] == [line.rstrip("\n") for line in cell[:4]]  # valid Python: kept whole
    assert lines[5] == ""  # a help line in a cell of its own is still IPython


def test_a_syntax_error_in_a_cell_names_the_cell_and_its_line(tmp_path: Path) -> None:
    broken = notebook(("markdown", ["# Notes\n"]), ("code", ["from openai import OpenAI\n"]),
                      ("code", ["rows = 5\n", "table = df.apply(\n", "    lambda row: row * rows\n", "print(table)\n"]))
    root = write_tree(tmp_path, {"broken.ipynb": broken, "app.py": CLEAN})
    code, out, _ = cli("check", "--format", "json", cwd=root)
    errors = json.loads(out)["errors"]
    assert [(e["path"], e["message"].split(":")[0]) for e in errors] == [
        ("broken.ipynb", "syntax error (cell 3, line 4)")], errors  # where the parser gave up


def test_diff_keeps_findings_of_a_changed_notebook(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"old.ipynb": BUST, "app.py": CLEAN})
    assert cli("check", "--diff", "HEAD", cwd=root)[0] == 0
    write_tree(root, {"new.ipynb": BUST})
    code, out, _ = cli("check", "--diff", "HEAD", "--format", "json", cwd=root)
    assert code == 1 and [f["path"] for f in json.loads(out)["findings"]] == ["new.ipynb"]
    git("add", "new.ipynb", cwd=root)
    git("commit", "-q", "-m", "nb", cwd=root)
    assert cli("check", "--diff", "HEAD", cwd=root)[0] == 0


def test_gitignored_notebooks_are_skipped(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {".gitignore": "scratch/\n", "app.py": CLEAN})
    write_tree(root, {"scratch/try.ipynb": BUST})
    assert cli("check", cwd=root)[0] == 0
    assert cli("check", "scratch/try.ipynb", cwd=root)[0] == 1  # named explicitly: analyzed ...
    assert cli("check", "scratch/try.ipynb", "--force-exclude", cwd=root)[0] == 0  # ... unless forced


def test_hostile_notebooks_are_per_file_errors(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"deep.ipynb": "[" * 100_000 + "]" * 100_000, "list.ipynb": "[1, 2]",
                                 "odd.ipynb": json.dumps({"cells": [{"cell_type": "code", "source": 7}, 3]}),
                                 "app.py": CLEAN})
    code, out, _ = cli("check", "--format", "json", cwd=root)
    assert code == 0 and sorted(e["path"] for e in json.loads(out)["errors"]) == ["deep.ipynb", "list.ipynb"]
