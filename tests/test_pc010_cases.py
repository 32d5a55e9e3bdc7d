"""PC010 instructions-after-request: fixed text written after the request's own content in the
final user message, judged where the message is built and where a call sends it, with its loss
estimated as the fixed text a reordered message would cache."""

from __future__ import annotations

from pathlib import Path

from promptlint.config import Config
from promptlint.engine import analyze
from promptlint.model import Finding
from tests.conftest import write_tree

RULES = '"Extract every fact as a triple and cite the sentence it comes from. " * 80'


def pc010(tmp_path: Path, files: dict[str, str] | str) -> list[Finding]:
    root = write_tree(tmp_path, files)
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert not result.errors, result.errors
    return [f for f in result.findings if f.rule == "PC010"]


def test_the_finding_sits_on_the_message_content_and_counts_the_fixed_text_after_its_first_value(
        tmp_path: Path) -> None:
    found = pc010(tmp_path, f'''
RULES = {RULES}
def extract(previous: str, episode: str) -> list[dict]:
    user = f"<PREVIOUS>{{previous}}</PREVIOUS>\\n<EPISODE>{{episode}}</EPISODE>\\n" + RULES + "\\nDone."
    return [{{"role": "system", "content": "You extract facts."}}, {{"role": "user", "content": user}}]
''')
    assert len(found) == 1
    finding = found[0]
    # Reported where the content is handed to the message (the fix reorders it there), with the
    # line that built it as a step.
    assert (finding.location.line, finding.severity.value) == (4, "warning")
    assert "filled per call from the value passed here (`previous`) on" in finding.message
    assert [(r.location.line, r.message) for r in finding.related][0] == (3, "`previous` is built here")
    # Tags and the closing word are labels, not instructions: only pieces of 32 characters or more count.
    fixed = len("Extract every fact as a triple and cite the sentence it comes from. " * 80)
    assert f"{fixed:,} characters of fixed text" in finding.message
    assert finding.call_site.api == "user message (role dict)"


def test_the_loss_is_the_fixed_text_a_reordered_message_caches(tmp_path: Path) -> None:
    found = pc010(tmp_path, f'''
from openai import OpenAI
RULES = {RULES}
def extract(episode: str):
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {{"role": "user", "content": f"<EPISODE>{{episode}}</EPISODE>\\n" + RULES}}])
''')
    estimates = {f.call_site.api: f.estimate for f in found}
    estimate = estimates["openai.chat.completions"]
    assert estimate is not None and estimate.lost_tokens_per_call is not None
    # About 1,100 tokens of rules: above OpenAI's 1,024-token minimum, counted in 128-token steps.
    assert 1024 <= estimate.lost_tokens_per_call <= 1300
    assert estimate.tokenizer


def test_a_user_text_handed_to_a_project_wrapper_is_judged_in_the_caller(tmp_path: Path) -> None:
    # The wrapper's messages live on its object, so the call layout does not hold the caller's text:
    # the caller is where it is seen.
    found = pc010(tmp_path, {
        "app/chat.py": '''
import openai
class ChatBot:
    def __init__(self, client: "openai.OpenAI"):
        self.client, self.messages = client, []
    def chat(self, content: str, temperature: float = 0.0):
        self.messages.append({"role": "user", "content": content})
        return self.client.chat.completions.create(model="gpt-4o", messages=self.messages)
''',
        "app/bot.py": f'''
from app.chat import ChatBot
RULES = {RULES}
def rename(bot, snippets: str):  # `bot` untyped: the call resolves by name only
    joint = f"<snippets>{{snippets}}</snippets>"
    bot.messages = [{{"role": "system", "content": "You rename files."}}]  # what makes the file an entry
    return bot.chat(content=joint + "\\n\\n" + RULES, temperature=0.1)
''',
    })
    assert [(f.location.path, f.location.line) for f in found] == [("app/bot.py", 6)]  # the `content=` argument
    assert found[0].call_site.api == "user message (user text passed to chat())"


def test_a_user_message_constructor_and_a_role_keyword_are_judged(tmp_path: Path) -> None:
    # Builders of a system and a user message, as prompt libraries write them (graphiti, LangChain).
    found = pc010(tmp_path, f'''
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel
class Message(BaseModel):
    role: str
    content: str
RULES = {RULES}
def one(text: str):
    return [SystemMessage(content="You extract facts."),
            HumanMessage(content=f"Text: {{text}}\\n" + RULES)]
def two(text: str):
    return [Message(role="system", content="You extract facts."),
            Message(role="user", content=f"Text: {{text}}\\n" + RULES)]
''')
    assert sorted(f.location.line for f in found) == [9, 12]


def test_look_alikes_stay_quiet(tmp_path: Path) -> None:
    found = pc010(tmp_path, f'''
from datetime import datetime
RULES = {RULES}
PREAMBLE = "You are a careful extractor."
def short_tail(episode: str) -> dict:
    return {{"role": "user", "content": RULES + f"\\n{{episode}}\\nAnswer in JSON, one object per fact."}}
def constants_only() -> dict:
    return {{"role": "user", "content": f"{{PREAMBLE}}\\n" + RULES}}
def system_holds_it(episode: str) -> list:
    return [{{"role": "system", "content": f"Episode: {{episode}}\\n" + RULES}}]
def assistant_turn(episode: str) -> dict:
    return {{"role": "assistant", "content": f"{{episode}}\\n" + RULES}}
def clock_first() -> dict:
    return {{"role": "user", "content": f"Now: {{datetime.now()}}\\n" + RULES}}
''')
    assert found == []


def test_values_named_like_settings_are_taken_as_constant_and_the_list_extends_in_config(tmp_path: Path) -> None:
    files = {
        "app.py": f'''
RULES = {RULES}
def extract(context: dict, persona_text: str) -> list[dict]:
    user = (f"<TYPES>{{context['entity_types']}}</TYPES>\\n"
            f"<EPISODE>{{context['episode']}}</EPISODE>\\n" + RULES)
    return [{{"role": "system", "content": "You extract facts."}}, {{"role": "user", "content": user}}]
def styled(persona_text: str) -> list[dict]:
    return [{{"role": "system", "content": "You extract facts."}},
            {{"role": "user", "content": f"{{persona_text}}\\n" + RULES}}]
''',
    }
    found = pc010(tmp_path / "default", files)
    # `entity_types` is a setting (rules/prompt_sinks.yaml `setting_names`): the episode is the first
    # value of the request; `persona_text` is not on the list.
    def first_value(finding: Finding) -> str:  # named in the message, or in the step that built it
        return (finding.message if "`" in finding.message else finding.related[0].message).split("`")[1]

    assert sorted((f.location.line, first_value(f)) for f in found) == [
        (5, "context['episode']"), (8, "persona_text")]
    files["pyproject.toml"] = '[tool.promptlint]\nsetting-names = ["persona_text"]\n'
    root = write_tree(tmp_path / "configured", files)
    from promptlint.config import load_config
    result = analyze([root], load_config(root), cwd=root)
    assert [f.location.line for f in result.findings if f.rule == "PC010"] == [5]


def test_a_data_structure_printed_into_the_message_is_not_fixed_text(tmp_path: Path) -> None:
    # swarms: a list of dicts rendered into the prompt is punctuation and keys, not instructions.
    rows = ", ".join(f'{{"focus": s.focus{i}, "attractiveness": s.score{i}, "discoveries": s.items{i}}}'
                     for i in range(60))
    found = pc010(tmp_path, f'''
def synthesize(task: str, s, agent):
    emergent = [{rows}]
    agent.messages = [{{"role": "system", "content": "You coordinate a swarm."}}]
    return [{{"role": "user", "content": f"Task: {{task}}\\nTop emergent solutions: {{emergent}}\\nSynthesize."}}]
''')
    assert found == []


def test_a_prompt_below_the_providers_minimum_is_info(tmp_path: Path) -> None:
    # ~600 tokens in all: gpt-4o caches nothing under 1,024 tokens, moved or not.
    source = '''
from openai import OpenAI
RULES = "Summarise the document above in five bullet points and keep every number exact. " * 30
def summarise(document: str):
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "user", "content": f"<document>{document}</document>" + RULES}])
'''
    assert pc010(tmp_path / "hidden", source) == []
    root = write_tree(tmp_path / "shown", source)
    result = analyze([root], Config(root=root, cache_dir=None, show_info=True), cwd=root)
    found = [f for f in result.findings if f.rule == "PC010"]
    assert [f.severity.value for f in found] == ["info"]
    assert "estimated loss: 0 tokens per call" in found[0].message


def test_project_message_classes_with_a_default_role_are_judged_as_messages(tmp_path: Path) -> None:
    # onyx: `class UserMessage(BaseModel): role: Literal["user"] = "user"`; the template puts the
    # conversation before its rules, and the placeholder is where the finding points.
    root = write_tree(tmp_path, {
        "app/models.py": '''
from typing import Literal
from pydantic import BaseModel
class SystemMessage(BaseModel):
    role: Literal["system"] = "system"
    content: str
class UserMessage(BaseModel):
    role: Literal["user"] = "user"
    content: str
''',
        "app/prompts.py": f'''
DECIDE = """Decide the time scope of the search.

## Conversation
{{conversation}}

## Rules
""" + {RULES}
''',
        "app/flow.py": '''
from datetime import datetime
from app.models import SystemMessage, UserMessage
from app.prompts import DECIDE
RULES = "Answer in the user's language and cite the fragment numbers you used. " * 40
def decide(llm, turns: list):
    conversation = "\\n".join(turns)
    messages = [UserMessage(content=DECIDE.format(conversation=conversation))]
    return llm.invoke(prompt=messages)
def chat(llm, history: list):
    system = SystemMessage(content=f"Now: {datetime.now()}\\n" + RULES)
    return llm.invoke(prompt=[system, *history])
''',
    })
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    found = sorted((f.rule, f.location.path, f.location.line) for f in result.findings)
    assert found == [("PC001", "app/flow.py", 10), ("PC010", "app/prompts.py", 4)]


def test_a_tail_of_two_to_five_hundred_tokens_is_info_and_a_closing_line_nothing(tmp_path: Path) -> None:
    source = '''
RULES = "Extract every fact as a triple and cite the sentence it comes from. " * 16
def extract(episode: str) -> list[dict]:
    return [{"role": "system", "content": "You extract facts."},
            {"role": "user", "content": f"<EPISODE>{episode}</EPISODE>\\n" + RULES}]
def closing(episode: str) -> list[dict]:
    return [{"role": "system", "content": "You extract facts."},
            {"role": "user", "content": f"<EPISODE>{episode}</EPISODE>\\nAnswer in JSON, one object per fact."}]
'''
    root = write_tree(tmp_path, source)
    result = analyze([root], Config(root=root, cache_dir=None, show_info=True), cwd=root)
    found = [(f.location.line, f.severity.value) for f in result.findings if f.rule == "PC010"]
    assert found == [(4, "info")]  # 1,104 characters of rules: about 276 tokens
    assert "little to gain (info)" in next(f.message for f in result.findings if f.rule == "PC010")


def test_the_formatting_of_a_loop_s_items_is_neither_counted_nor_moved(tmp_path: Path) -> None:
    """sweep's `context_get_files_to_change`: one line per snippet ("The file '...' is imported by
    the following files:") is written before the fixed instructions. That line stays with its
    values: only the instructions after them count, in the message and in the estimate."""
    root = write_tree(tmp_path, '''
from openai import OpenAI
INSTRUCTIONS = "List every file to change, one per line, with the reason it has to change. " * 20
def plan(first, second, third, issue: str):
    lines = []
    for snippet in [first, second, third]:
        lines.append(f"The file '{snippet.file_path}' is imported by the following files, in this order:")
        lines.append(snippet.importers)
    joint = "\\n".join(lines) + f"\\n<issue>{issue}</issue>"
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": "You plan code changes."},
        {"role": "user", "content": joint + "\\n\\n" + INSTRUCTIONS}])
''')
    result = analyze([root], Config(root=root, cache_dir=None, show_info=True), cwd=root)
    found = [f for f in result.findings if f.rule == "PC010"]
    instructions = len("List every file to change, one per line, with the reason it has to change. " * 20)
    assert found and all(f"and {instructions:,} characters of fixed text" in f.message for f in found)
    # ~300 tokens of instructions after ~5 of system text: nothing any layout could cache at
    # OpenAI, however many snippets the loop is unrolled for.
    assert all(f.estimate is not None and f.estimate.lost_tokens_per_call == 0 for f in found)


def _turn(*segments: object, earlier: tuple = ()) -> "PromptLayout":
    from promptlint.model import CallSite, Location, Part, PromptLayout

    call = CallSite(Location("app.py", 1, 1, 1, 2), "openai.chat.completions", "openai", "gpt-4o", "f")
    return PromptLayout(call, (*earlier, Part("final_user", tuple(segments))))


def test_instruction_pieces_count_long_pieces_once_and_leave_a_loop_s_formatting() -> None:
    from promptlint.analysis.layout import MIN_INSTRUCTION_PIECE, instruction_pieces
    from promptlint.model import Hole, Literal, Location, Volatility

    def at(line: int) -> Location:
        return Location("app.py", line, 1, line, 2)

    def value(name: str) -> Hole:
        return Hole(Volatility.UNKNOWN, name, at(1))

    label = Literal("x" * (MIN_INSTRUCTION_PIECE - 1), at(2))  # one short of a piece: a label
    exact = Literal("y" * MIN_INSTRUCTION_PIECE, at(3))
    per_item = Literal("' is imported by the following files, in this order:", at(4))
    rules = Literal("Answer in full sentences and cite the policy section. " * 10, at(5))
    # The issue first, then a loop over two files: the per-file line follows one value the first
    # time and three the second; the rules after it are the instructions.
    layout = _turn(value("issue"), exact, label, value("first"), per_item, value("importers"), value("second"),
                   per_item, value("importers"), rules)
    pieces = instruction_pieces(layout.segments(), 0)
    assert pieces == [exact, rules]
    # `"..." * 20` repeats a piece with no value between: one long text, every copy counted.
    repeated = _turn(value("document"), rules, rules)
    assert instruction_pieces(repeated.segments(), 0) == [rules, rules]


def test_only_a_history_or_an_earlier_turn_with_values_makes_the_final_turn_not_worth_reordering() -> None:
    from promptlint.analysis.layout import input_then_fixed_text
    from promptlint.model import Hole, Literal, Location, Part, Volatility

    where = Location("app.py", 2, 1, 2, 2)
    rules = Literal("Answer in full sentences and cite the policy section. " * 10, where)
    document = Hole(Volatility.UNKNOWN, "document", where)
    system_value = Part("system", (Literal("You answer."), Hole(Volatility.UNKNOWN, "persona", where)))
    found = input_then_fixed_text(_turn(document, rules, earlier=(system_value,)))
    assert found is not None and found.fixed_chars == len(rules.text)  # a value in the system text: still judged
    earlier_user = Part("user", (Hole(Volatility.UNKNOWN, "first_question", where),))
    assert input_then_fixed_text(_turn(document, rules, earlier=(earlier_user,))) is None
    history = Part("history", (Hole(Volatility.UNKNOWN, "history", where, is_history=True),))
    assert input_then_fixed_text(_turn(document, rules, earlier=(history,))) is None
