"""State an object carries from one turn to the next, and the evaluator gaps real code hits on the
way to it (issue 14): a filter that drops the previous speaker, handed to a wrapper that formats
it into the system prompt ahead of the transcript (microsoft/autogen's SelectorGroupChat in
bench/wild); a project's own copy of a modelled message class; a variable rendered as a template
(DB-GPT); the branch that sends the history (khoj); a client set after a `None` placeholder; a
call the depth cut short, not reused for a caller with more depth left (swarms); a tool's result
in an agent loop, named like an observation, written into the system message through a helper
that fills in a default when handed nothing (Qwen-Agent).

When two branches send equally volatile text, one as a system message and the other as a user
message (autogen sends the selector prompt as `SystemMessage` to OpenAI models, as `UserMessage` to
the others), the join keeps the system message (`evaluator._telling`). No small program found so
far needs that tie-break (where the message is built, an assembly point judges the system message
already); bench/wild's autogen-03 does, and is lost without it. So do two of browser-use-02's steps
(see that test) and Qwen-Agent's finding kept beside another whose value was made in another file
(`engine._seen_through_another`)."""

from __future__ import annotations

from pathlib import Path

from promptlint.config import Config
from promptlint.engine import analyze
from tests.conftest import write_tree

SELECTOR = '''
from openai import AsyncOpenAI

PROMPT = """You are in a role play game. The following roles are available:
{roles}.
Read the following conversation. Then select the next role from {participants} to play.

{history}

Read the above conversation. Then select the next role from {participants} to play.
"""


class SpeakerSelector:
    def __init__(self, names: list[str], descriptions: list[str]) -> None:
        self._client = AsyncOpenAI()
        self._names = names
        self._descriptions = descriptions
        self._previous_speaker: str | None = None
        self._transcript: list[str] = []

    def record(self, speaker: str, text: str) -> None:
        self._transcript.append(f"{speaker}: {text}")

    async def select_speaker(self) -> str:
        if self._previous_speaker is not None:
            participants = [p for p in self._names if p != FILTER]
        else:
            participants = list(self._names)
        roles = "\\n".join(f"{n}: {d}" for n, d in zip(self._names, self._descriptions))
        name = await self._ask(roles, participants)
        self._previous_speaker = name
        return name

    async def _ask(self, roles: str, participants: list[str]) -> str:
        history = "\\n".join(self._transcript)
        prompt = PROMPT.format(roles=roles, participants=str(participants), history=history)
        response = await self._client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "system", "content": prompt}])
        return response.choices[0].message.content or ""
'''


def findings(root: Path) -> list[tuple[str, int, str]]:
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert not result.errors, result.errors
    return [(f.location.path, f.location.line, f.rule) for f in result.findings]


def test_participants_without_the_previous_speaker_before_the_transcript(tmp_path: Path) -> None:
    """INVALID: the candidates exclude the last speaker, who changes every turn, and the prompt
    lists them before the transcript that grows."""
    root = write_tree(tmp_path, {"selector.py": SELECTOR.replace("FILTER", "self._previous_speaker")})
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert [(f.location.line, f.rule) for f in result.findings] == [(5, "PC001")]
    finding = result.findings[0]  # at the template's slot, the filter as its source
    assert finding.message.startswith("per-request loop-state `[p for p in self._names if p != self._previous_")
    assert finding.volatile_source is not None and finding.volatile_source.location.line == 31


def test_a_filter_by_a_constant_keeps_the_same_candidates(tmp_path: Path) -> None:
    """VALID twin: the filter drops a fixed name, so the list is the same on every turn."""
    root = write_tree(tmp_path, {"selector.py": SELECTOR.replace("FILTER", '"admin"')})
    assert findings(root) == []


ROLE_BY_FAMILY = '''
from datetime import datetime
from openai import OpenAI

client = OpenAI()
RULES = "Answer from the attached documents only and cite each one by its number. " * 40

def ask(transcript: str, family: str) -> str:
    prompt = f"Now: {datetime.now().isoformat()}\\n{transcript}\\n{RULES}"
    if family == "openai":
        messages = [{"role": "system", "content": prompt}]
    else:
        messages = [{"role": "user", "content": prompt}]
    return client.chat.completions.create(model="gpt-4o", messages=messages)
'''


def test_a_prompt_sent_as_a_system_message_for_one_family_is_judged_as_one(tmp_path: Path) -> None:
    """INVALID: one branch sends the stamped prompt as the system message, the other as the only
    user message (where the text after the transcript is the request's own); both are equally
    volatile, so the join keeps the system message, where the clock spoils the rules after it."""
    root = write_tree(tmp_path, {"app.py": ROLE_BY_FAMILY})
    assert ("app.py", 8, "PC001") in findings(root)


def test_the_projects_own_copy_of_a_modelled_message_class(tmp_path: Path) -> None:
    """INVALID: a tree holding the library (autogen's repository holds autogen_core) defines the
    message class in a private module and exports it; the class is still the modelled system
    message, so the clock in its content is judged where the message is built. VALID twin: the
    same text without the clock."""
    library = {
        "autogen_core/__init__.py": "",
        "autogen_core/models/__init__.py": "from ._types import SystemMessage, UserMessage\n",
        "autogen_core/models/_types.py": (
            "from pydantic import BaseModel\n\n"
            "class SystemMessage(BaseModel):\n    content: str\n\n"
            "class UserMessage(BaseModel):\n    content: str\n    source: str\n"),
    }
    app = '''
from datetime import datetime
from autogen_core.models import SystemMessage

RULES = "You plan the team's next step and name the agent who takes it, with a reason. " * 40

def planner_messages(history: list) -> list:
    return [SystemMessage(content=f"Time: {STAMP}\\n{RULES}"), *history]
'''
    stamped = write_tree(tmp_path / "stamped", {**library, "app/planner.py": app.replace("{STAMP}", "{datetime.now()}")})
    assert ("app/planner.py", 7, "PC001") in findings(stamped)
    fixed = write_tree(tmp_path / "fixed", {**library, "app/planner.py": app.replace("Time: {STAMP}\\n", "")})
    assert findings(fixed) == []



def test_a_variable_rendered_as_a_template_keeps_its_clock(tmp_path: Path) -> None:
    """INVALID (DB-GPT's prompt formatter): every variable that looks like a template is rendered
    with the others before the system template is; the clock among them is still the clock after
    that render, ahead of the long constraints. VALID twin: the time is a fixed string."""
    source = '''
from datetime import datetime
from jinja2.sandbox import SandboxedEnvironment
from openai import OpenAI

client = OpenAI()
env = SandboxedEnvironment()
SYSTEM = "The current time is: {{ now_time }}.\\n" + "Follow the constraints and answer with the JSON schema. " * 50


def render(data: dict) -> str:
    for key in list(data):
        if isinstance(data[key], str) and "{{" in data[key]:
            data[key] = env.from_string(data[key]).render(**data)
    return env.from_string(SYSTEM).render(**data)


def think(history: list) -> str:
    variables = {"now_time": NOW}
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": render(variables)}, *history])
'''
    stamped = write_tree(tmp_path / "stamped", source.replace("NOW", 'datetime.now().strftime("%H:%M:%S")'))
    assert findings(stamped) == [("app.py", 7, "PC001")]
    fixed = write_tree(tmp_path / "fixed", source.replace("NOW", '"noon"'))
    assert findings(fixed) == []


GROUNDER = 'from openai import AsyncOpenAI\n\nTEMPLATE = """You are a GUI agent. Long fixed action space text follows here and is stable across steps.\n## Action Space\n{action_space}\n## User Instruction\n{instruction}\n"""\nACTIONS = "click(x,y)\\ntype(text)\\nscroll(dir)\\nwait()\\nfinished(content)\\n" * 10\n\n\nclass Grounder:\n    def __init__(self, client: AsyncOpenAI):\n        self.client = client\n        self.history_responses: list[str] = []\n        self.template = TEMPLATE\n\n    def _format(self, instruction: str):\n        user_prompt = self.template.format(instruction=instruction, action_space=ACTIONS)\n        messages = [\n            {"role": "system", "content": "You are a helpful assistant."},\n            {"role": "user", "content": user_prompt},\n        ]\n        if len(self.history_responses) > 0:\n            for response in self.history_responses:\n                messages.append({"role": "assistant", "content": response})\n            messages.append({"role": "user", "content": "screenshot"})\n        else:\n            messages.append({"role": "user", "content": "screenshot"})\n        return messages\n\n    async def act(self, instruction: str):\n        messages = self._format(instruction)\n        response = await self.client.chat.completions.create(model="m", messages=messages)\n        prediction = response.choices[0].message.content\n        self.history_responses.append(prediction)\n        return prediction\n'
RUNNER = 'from openai import AsyncOpenAI\nfrom agent import Grounder\n\n\nclass Runner:\n    def __init__(self, client: AsyncOpenAI):\n        self.client = client\n        self.grounder = Grounder(client)\n\n    async def reason(self, goal: str) -> dict:\n        raw = await self.client.chat.completions.create(model="r", messages=[{"role": "user", "content": goal}])\n        action = raw.choices[0].message.content\n        return {"type": "action", "message": action}\n\n    async def act(self, goal: str):\n        res = await self.reason(goal)\n        action = res["message"]\n        return await self.ground(action)\n\n    async def ground(self, action: str):\n        return await self.grounder.act(action)\n'


def test_the_branch_that_sends_the_history_is_the_one_judged(tmp_path: Path) -> None:
    """INVALID (khoj's UI-TARS grounder): after the first step the message list carries the earlier
    replies (`if self.history_responses: for r in ...: messages.append(...)`), on the first step
    not; both branches hold the same volatile instruction, and the join keeps the branch with the
    history, which the instruction (the reasoning model's reply to the goal) precedes. Seen from the
    grounder's own `act`, the instruction is the request it sends as a user turn, placed where the
    template takes it (line 19, where the fix goes); seen from the runner, it is the reasoning
    model's reply (line 16). Both fill the same placeholder of the same call: one finding, at the
    placeholder, listing the runner's value."""
    root = write_tree(tmp_path, {"agent.py": GROUNDER, "runner.py": RUNNER})
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    [kept] = result.findings
    assert (kept.location.path, kept.location.line, kept.rule) == ("agent.py", 19, "PC001")
    assert [(r.location.path, r.location.line) for r in kept.related if r.note and "also fills" in r.message] == [
        ("runner.py", 16)]


def test_a_client_set_after_a_none_placeholder(tmp_path: Path) -> None:
    """INVALID: `self.client = None` in the constructor, the real client made in `connect()`: the
    placeholder gives way to the value set after it, so the call is an Anthropic call whose system
    prompt opens with the clock. (Read as None, the call was no LLM call at all.)"""
    source = '''
from datetime import datetime
from anthropic import Anthropic

RULES = "Review the diff for bugs, then list each one with its file and line, most severe first. " * 30


class Reviewer:
    def __init__(self) -> None:
        self.client = None

    def connect(self) -> None:
        self.client = Anthropic()

    def review(self, history: list) -> str:
        system = f"Review started {datetime.now().isoformat()}\\n{RULES}"
        return self.client.messages.create(model="claude-sonnet-4-5", max_tokens=1024, system=system,
                                           messages=history)
'''
    assert findings(write_tree(tmp_path, source)) == [("app.py", 15, "PC001")]


def test_a_call_cut_by_the_depth_is_computed_again_for_a_shallower_caller(tmp_path: Path) -> None:
    """INVALID (swarms renders its history four frames below an entry and at the entry itself):
    `render()` is first run three frames down, where the depth runs out before `_worker()`; the
    entry's own `render()` call must not reuse that cut result, or the clock is never seen."""
    source = '''
from datetime import datetime
from openai import OpenAI

client = OpenAI()
RULES = "You are the team's planner: split the task into steps and name who does each one. " * 40


class Memory:
    def render(self) -> str:
        return self._worker()

    def _worker(self) -> str:
        return f"[{datetime.now().isoformat()}] System: {RULES}"


class Agent:
    def __init__(self) -> None:
        self.memory = Memory()

    def _plan(self) -> str:
        return self._outline()

    def _outline(self) -> str:
        return self._draft()

    def _draft(self) -> str:
        return self.memory.render()

    def run(self, history: list) -> str:
        outline = self._plan()
        prompt = self.memory.render()
        return client.chat.completions.create(model="gpt-4o", messages=[{"role": "system", "content": prompt}, *history])
'''
    assert findings(write_tree(tmp_path, source)) == [("app.py", 13, "PC001")]



FOLLOW_UP = 'from openai import OpenAI\nfrom pydantic import BaseModel, Field\n\nclient = OpenAI()\nSYSTEM = "You are a browsing agent. Follow the rules below.\\n" + "- Rule: be careful and precise.\\n" * 100\n\n\nclass StatePrompt:\n    def __init__(self, history_description: str | None, task: str | None) -> None:\n        self.history_description = history_description\n        self.task = task\n\n    def get_user_message(self) -> dict:\n        text = f"<user_request>\\n{self.task}\\n</user_request>\\n"\n        text += "<agent_history>\\n" + (self.history_description or "") + "\\n</agent_history>\\n"\n        return {"role": "user", "content": text}\n\n\nclass ManagerState(BaseModel):\n    history_items: list[str] = Field(default_factory=list)\n\n\nclass Manager:\n    def __init__(self, task: str) -> None:\n        self.task = task\n        self.state = ManagerState()\n        self.last_state: dict | None = None\n\n    def add_new_task(self, new_task: str) -> None:\n        self.task += "\\n" + new_task\n        self.state.history_items.append(new_task)\n\n    @property\n    def history_description(self) -> str:\n        return "\\n".join(item for item in self.state.history_items)\n\n    def record(self, text: str) -> None:\n        self.state.history_items.append(text)\n\n    def create_state_messages(self) -> None:\n        self.last_state = StatePrompt(history_description=self.history_description, task=self.task).get_user_message()\n\n    def get_messages(self) -> list[dict]:\n        return [{"role": "system", "content": SYSTEM}, self.last_state]\n\n\nclass Agent:\n    def __init__(self, task: str) -> None:\n        self.mm = Manager(task)\n\n    def step(self) -> None:\n        self.mm.create_state_messages()\n        reply = client.chat.completions.create(model="gpt-4o", messages=self.mm.get_messages())\n        self.mm.record(reply.choices[0].message.content)\n\n    def add_new_task(self, new_task: str) -> None:\n        self.mm.add_new_task(new_task)\n'


def test_a_follow_up_request_before_the_agents_history(tmp_path: Path) -> None:
    """INVALID (browser-use's state message): `add_new_task` extends the task with a follow-up
    request while appending it to the history the manager keeps on its state object; the state
    message writes the task ahead of that history, rendered, so every follow-up re-sends the whole
    history uncached (PC011). VALID twin: without `add_new_task` the task is set once, in the
    constructor, and is the same on every step that grows the history. (On browser-use itself two
    more steps are needed, which this program does not: `self._message_manager.create_state_messages()`
    run although its result is dropped, and a user message built one frame down kept for PC011.)"""
    assert findings(write_tree(tmp_path / "follow", FOLLOW_UP)) == [("app.py", 14, "PC011")]
    once = FOLLOW_UP.replace('''    def add_new_task(self, new_task: str) -> None:
        self.task += "\\n" + new_task
        self.state.history_items.append(new_task)
''', "")
    assert once != FOLLOW_UP
    assert findings(write_tree(tmp_path / "once", once)) == []


KNOWLEDGE_LOOP = 'import copy\nfrom openai import OpenAI\n\nclient = OpenAI()\n\nTEMPLATE = {"en": "# Knowledge Base\\n\\n{knowledge}", "zh": "# 知识库\\n\\n{knowledge}"}\n\n\nclass Base:\n    def _call_llm(self, messages):\n        return client.chat.completions.create(model="gpt-4o", messages=messages)\n\n    def _call_tool(self, name, args):\n        return self.tools[name].call(args)\n\n    def _add_knowledge(self, messages, lang="en", knowledge=""):\n        messages = copy.deepcopy(messages)\n        if not knowledge:\n            knowledge = self.store.lookup(messages)\n        prompt = TEMPLATE[lang].format(knowledge=knowledge)\n        if messages and messages[0]["role"] == "system":\n            messages[0]["content"] += "\\n\\n" + prompt\n        else:\n            messages = [{"role": "system", "content": prompt}] + messages\n        return messages\n\n\nclass LoopAgent(Base):\n    def run(self, messages, lang="en"):\n        original = messages\n        response = []\n        while True:\n            out = self._call_llm(messages + response)\n            response.append(out)\n            action, args = parse(out)\n            if action is None:\n                break\n            observation = self._call_tool(action, args)\n            messages = self._add_knowledge(original, lang=lang, knowledge=observation)\n            response.append({"role": "tool", "content": "see the system message"})\n\n\ndef parse(out):\n    return out.action, out.args\n'


def test_a_tool_result_written_into_the_system_message_inside_the_agent_loop(tmp_path: Path) -> None:
    """INVALID (Qwen-Agent's virtual-memory agent): each retrieval result, named `observation`
    (rules/prompt_sinks.yaml observation_inputs), is written into the system message through a
    helper that fills in its own lookup only when it is handed nothing (`if not knowledge:`), so the
    next step's request changes at the system prompt. VALID twin: the result goes into the
    conversation as a tool message, at its end."""
    found = analyze([write_tree(tmp_path / "system", KNOWLEDGE_LOOP)],
                    Config(root=tmp_path / "system", cache_dir=None), cwd=tmp_path / "system").findings
    observed = [f for f in found if f.message.startswith("per-request observation `self._call_tool(action, args)`")]
    assert [(f.location.line, f.rule) for f in observed] == [(38, "PC001")]
    at_the_end = KNOWLEDGE_LOOP.replace(
        "            messages = self._add_knowledge(original, lang=lang, knowledge=observation)\n"
        "            response.append({\"role\": \"tool\", \"content\": \"see the system message\"})",
        "            response.append({\"role\": \"tool\", \"content\": observation})")
    assert at_the_end != KNOWLEDGE_LOOP
    found = analyze([write_tree(tmp_path / "end", at_the_end)], Config(root=tmp_path / "end", cache_dir=None),
                    cwd=tmp_path / "end").findings
    assert not [f for f in found if "observation" in f.message]
