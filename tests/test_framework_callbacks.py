"""Framework callbacks that run before every model call (issues 15 and 18): an instruction provider
passed as an agent's instructions, and a model callback that rewrites the request's system
instruction, judged with the run state they read (rules/sources.yaml run_state,
rules/prompt_sinks.yaml request_system). Shapes from Google ADK apps in bench/wild."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from promptlint.config import Config, apply_settings
from promptlint.engine import analyze
from promptlint.knowledge import load_knowledge
from tests.conftest import run_cli, write_tree

GUIDELINES = "Ground every answer in the dashboard data and cite the metric you used. " * 20


def findings(tmp_path: Path, files: dict[str, str], config: Config | None = None) -> list[tuple[str, int, str, str]]:
    root = write_tree(tmp_path, files)
    config = replace(config, root=root) if config is not None else Config(root=root, cache_dir=None)
    result = analyze([root], config, cwd=root)
    assert not result.errors, result.errors
    return [(f.location.path, f.location.line, f.severity.value, f.message) for f in result.findings]


INSTRUCTION_PROVIDER_APP = {
    "agent/instructions.py": f'''
from google.adk.agents.readonly_context import ReadonlyContext

def instruction_provider(context: ReadonlyContext) -> str:
    return f"""You manage a dashboard.
Current dashboard state: {{context.state}}
{GUIDELINES}"""
''',
    "agent/agent.py": '''
from google.adk.agents import Agent
from instructions import instruction_provider

dashboard_agent = Agent(name="DashboardAgent", model="gemini-2.5-flash", instruction=instruction_provider)
''',
}


def test_an_instruction_provider_reading_the_run_state_before_the_guidelines(tmp_path: Path) -> None:
    """INVALID: ADK calls the provider before every model call; tools change the state, so the
    guidelines after it and the run's steps, which ADK sends after the instructions, never stay a
    cached prefix: an error, the history being known to follow a function given as instructions."""
    found = findings(tmp_path, INSTRUCTION_PROVIDER_APP)
    assert [(path, line) for path, line, _, _ in found] == [("agent/instructions.py", 5)]
    _, _, severity, message = found[0]
    assert severity == "error" and "(assumed:" not in message
    assert "run-state `context.state`" in message and "Agent() instructions" in message
    assert "the framework builds this text again for later model calls" in message


def test_an_instruction_provider_without_run_state_is_quiet(tmp_path: Path) -> None:
    """VALID: the same provider naming the agent (fixed for the run) instead of its state."""
    provider = INSTRUCTION_PROVIDER_APP["agent/instructions.py"].replace("{context.state}", "{context.agent_name}")
    assert findings(tmp_path, {**INSTRUCTION_PROVIDER_APP, "agent/instructions.py": provider}) == []


def test_instructions_given_as_text_are_built_once_for_the_conversation(tmp_path: Path) -> None:
    """VALID: text passed directly is fixed when the agent is built; a parameter of the module's
    own function is not run state (only annotated framework contexts are)."""
    files = {"agent/agent.py": f'''
from google.adk.agents import Agent

def build(state) -> Agent:
    return Agent(name="A", model="gemini-2.5-flash", instruction=f"State: {{state}}\\n{GUIDELINES}")
'''}
    assert findings(tmp_path, files) == []


def test_a_clock_in_dynamic_instructions_of_an_agent_built_at_import_is_per_request(tmp_path: Path) -> None:
    """INVALID: the Agents SDK calls the instructions function before every model call, also when
    the agent is a module-level object: the clock in it changes on every request, not once per
    process (as text given directly at import would)."""
    files = {"agent/support.py": f'''
from datetime import datetime

from agents import Agent, RunContextWrapper

def dynamic_instructions(context: RunContextWrapper, agent: Agent) -> str:
    return f"Now: {{datetime.now().isoformat()}}\\n{GUIDELINES}"

support = Agent(name="support", instructions=dynamic_instructions)
'''}
    found = findings(tmp_path, files)
    assert [(path, line, severity) for path, line, severity, _ in found] == [("agent/support.py", 6, "error")]
    assert found[0][3].startswith("per-request clock `datetime.now()` comes before ")


MODEL_CALLBACK_APP = {
    "agent/modifiers.py": '''
from google.adk.agents.callback_context import CallbackContext
from google.adk.models import LlmRequest
from google.genai import types

def before_model(callback_context: CallbackContext, llm_request: LlmRequest):
    prefix = f"Current dashboard: {callback_context.state}\\n"
    original = llm_request.config.system_instruction or types.Content(parts=[])
    if not original.parts:
        original.parts.append(types.Part(text=""))
    original.parts[0].text = prefix + (original.parts[0].text or "")
    llm_request.config.system_instruction = original
    return None
''',
}


def test_a_model_callback_prepending_run_state_to_the_system_instruction(tmp_path: Path) -> None:
    """INVALID: the state goes in front of the agent's own instruction and the session history
    the framework sends after it (known, not assumed)."""
    found = findings(tmp_path, MODEL_CALLBACK_APP)
    assert [(path, line, severity) for path, line, severity, _ in found] == [("agent/modifiers.py", 6, "error")]
    message = found[0][3]
    assert "run-state `callback_context.state`" in message and "conversation history" in message
    assert "set by a model callback: `original.parts[0].text`" in message
    assert "assumed:" not in message


def test_a_model_callback_putting_run_state_in_a_new_user_turn_is_quiet(tmp_path: Path) -> None:
    """VALID: the state is appended as the request's last turn; the system instruction is untouched."""
    callback = MODEL_CALLBACK_APP["agent/modifiers.py"].replace(
        '''    original.parts[0].text = prefix + (original.parts[0].text or "")
''', '''    llm_request.contents.append(types.Content(role="user", parts=[types.Part(text=prefix)]))
''')
    assert findings(tmp_path, {"agent/modifiers.py": callback}) == []


def test_a_callback_built_by_a_factory_is_judged_as_the_framework_runs_it(tmp_path: Path) -> None:
    """INVALID: `_make_injector` returns the callback; nothing in the project calls it, the
    framework does, before every model call. The state is born where it is read."""
    files = {"agent/main.py": '''
import json
from google.adk.agents.callback_context import CallbackContext
from google.adk.models import LlmRequest

def _context(state) -> str:
    return "DATA:\\n" + json.dumps(state.get("financial_data"))

def _make_injector():
    def modifier(callback_context: CallbackContext, llm_request: LlmRequest):
        prefix = f"The user's data is below.\\n{_context(callback_context.state)}\\n---\\n"
        original = llm_request.config.system_instruction
        original.parts[0].text = prefix + (original.parts[0].text or "")
        return None
    return modifier

budget_callback = _make_injector()
'''}
    root = write_tree(tmp_path, files)
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert [(f.rule, f.severity.value) for f in result.findings] == [("PC001", "error")]
    origin = result.findings[0].volatile_source
    assert origin is not None and (origin.location.line, origin.source) == (10, "callback_context.state")


def test_run_state_and_request_types_are_extended_in_config(tmp_path: Path) -> None:
    """A user's own framework: its context type's `memory` attribute is run state, and its request
    object's `system` attribute is the system prompt a callback sets."""
    config = apply_settings(Config(root=tmp_path, cache_dir=None), {
        "run-state": {"myagents.StepContext": ["memory"]},
        "request-system": {"myagents.ModelRequest": ["system"]},
    }, "test")
    knowledge = load_knowledge(config)
    assert knowledge.run_state["myagents.StepContext"] == ("memory",)
    assert knowledge.request_system["myagents.ModelRequest"] == ("system",)
    files = {"app/hooks.py": f'''
from myagents import ModelRequest, StepContext

def before_call(ctx: StepContext, request: ModelRequest) -> None:
    request.system = f"Notes so far: {{ctx.memory}}\\n" + {GUIDELINES!r}
'''}
    found = findings(tmp_path, files, config)
    assert [(path, line, severity) for path, line, severity, _ in found] == [("app/hooks.py", 4, "error")]
    assert "run-state `ctx.memory`" in found[0][3]


def test_a_malformed_run_state_table_is_a_clear_config_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.promptlint]\nrun-state = {"x.Ctx" = "state"}\n', encoding="utf-8")
    (tmp_path / "app.py").write_text("x = 1\n", encoding="utf-8")
    result = run_cli("check", ".", cwd=tmp_path)
    assert result.returncode == 2
    assert "run-state" in result.stderr and "a table of qualified name = [attribute names]" in result.stderr
    assert "Traceback" not in result.stderr


RETRIEVAL_NODE = {"agent/retrieval.py": '''
from livekit.agents import llm

async def llm_node(chat_ctx: llm.ChatContext, retriever):
    user_query = chat_ctx.items[-1].text_content
    nodes = await retriever.aretrieve(user_query)
    instructions = "Context that might help answer the user's question:"
    for node in nodes:
        instructions += f"\\n\\n{node}"
    chat_ctx.items.insert(0, llm.ChatMessage(role="system", content=[instructions]))
    return chat_ctx
'''}


def test_a_framework_system_message_inserted_ahead_of_the_chat_context(tmp_path: Path) -> None:
    """INVALID (livekit's RAG example): documents retrieved for this turn go into a system message
    inserted at the front of the chat context, so the whole conversation after it misses. The
    items already in the context are known to follow: an error, not an assumed-history info."""
    found = findings(tmp_path, RETRIEVAL_NODE)
    assert [(path, line, severity) for path, line, severity, _ in found] == [("agent/retrieval.py", 8, "error")]
    assert "inserted into `chat_ctx.items`" in found[0][3] and "assumed:" not in found[0][3]


def test_the_same_message_appended_after_the_chat_context_is_quiet(tmp_path: Path) -> None:
    """VALID: appended at the end, the retrieved documents follow the history."""
    node = RETRIEVAL_NODE["agent/retrieval.py"].replace(
        'chat_ctx.items.insert(0, llm.ChatMessage(role="system"', 'chat_ctx.items.append(llm.ChatMessage(role="user"')
    assert findings(tmp_path, {"agent/retrieval.py": node}) == []


CONSOLE_AGENT = {"agent/cli.py": f'''
from openai import OpenAI

client = OpenAI()
RULES = {GUIDELINES * 4!r}

def run(task: str, history: list) -> str:
    system = f"Your task: {{task}}\\n\\n" + RULES
    return client.chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": system}}, *history])

def main() -> None:
    history: list = []
    while True:
        run(input("Task: "), history)
'''}


def test_a_task_typed_at_the_console_ahead_of_the_fixed_rules(tmp_path: Path) -> None:
    """What the user types (`input()`, rules/sources.yaml) starts a task the steps after it share:
    per conversation. Ahead of fixed rules every new task re-sends them uncached: a warning when
    the rules are long (as here), info when they are short (the rules are shared only across tasks)."""
    root = write_tree(tmp_path, CONSOLE_AGENT)
    result = analyze([root], Config(root=root, cache_dir=None, show_info=True), cwd=root)
    assert [(f.rule, f.severity.value, f.location.line) for f in result.findings] == [("PC001", "warning", 7)]
    assert "per-session user-input `input(\"Task: \")`" in result.findings[0].message
    assert "text shared across conversations is not reused" in result.findings[0].message
    assert "prefilled again by every new conversation" in result.findings[0].message
    short = re.sub(r"^RULES = .*$", f"RULES = {GUIDELINES!r}", CONSOLE_AGENT["agent/cli.py"], flags=re.MULTILINE)
    assert len(GUIDELINES) < 2000 <= len(GUIDELINES * 4) and short != CONSOLE_AGENT["agent/cli.py"]
    root = write_tree(tmp_path / "short", {"agent/cli.py": short})
    result = analyze([root], Config(root=root, cache_dir=None, show_info=True), cwd=root)
    assert [(f.rule, f.severity.value) for f in result.findings] == [("PC001", "info")]


def test_the_typed_task_in_the_final_user_turn_is_quiet(tmp_path: Path) -> None:
    """VALID: the typed task is the last message; the rules stay a shared prefix."""
    cli = CONSOLE_AGENT["agent/cli.py"].replace(
        'system = f"Your task: {task}\\n\\n" + RULES', "system = RULES").replace(
        "*history])", '*history, {"role": "user", "content": task}])')
    root = write_tree(tmp_path, {"agent/cli.py": cli})
    assert analyze([root], Config(root=root, cache_dir=None, show_info=True), cwd=root).findings == ()


MIDDLEWARE_APP = {"agent/middleware.py": f'''
from langchain.agents.middleware import AgentMiddleware, ModelRequest

class PlanMiddleware(AgentMiddleware):
    def wrap_model_call(self, request: ModelRequest, handler):
        request.system_prompt = f"Current plan: {{request.state['plan']}}\\n" + {GUIDELINES!r}
        return handler(request)
'''}


def test_a_langchain_middleware_writing_the_agent_state_into_the_system_prompt(tmp_path: Path) -> None:
    """INVALID: LangChain agent middleware runs `wrap_model_call` before every model call; the plan
    in the agent's state changes as the steps go, ahead of the fixed guidelines and the history."""
    found = findings(tmp_path, MIDDLEWARE_APP)
    assert [(path, line, severity) for path, line, severity, _ in found] == [("agent/middleware.py", 5, "error")]
    assert "run-state `request.state`" in found[0][3] and "set by a model callback: `request.system_prompt`" in found[0][3]


def test_a_middleware_adding_the_state_as_the_last_message_is_quiet(tmp_path: Path) -> None:
    """VALID: the guidelines stay the system prompt; the plan goes after the history."""
    source = MIDDLEWARE_APP["agent/middleware.py"].replace(
        "request.system_prompt = f", "request.messages.append(f")
    source = source.replace("+ " + repr(GUIDELINES), ")\n        request.system_prompt = " + repr(GUIDELINES))
    assert "request.messages.append(f" in source and "request.system_prompt = 'Ground" in source
    assert findings(tmp_path, {"agent/middleware.py": source}) == []


AGNO_AGENT = '''
from agno.agent import Agent
from agno.db.sqlite import SqliteDb

INSTRUCTIONS = ["You plan trips.", "Ask for the budget first.", "Quote prices in euros."]

def build_planner() -> Agent:
    return Agent(
        instructions=INSTRUCTIONS,
        db=SqliteDb(db_file="tmp/planner.db"),
        enable_user_memories=True,
        add_history_to_context=True,
        num_history_runs=50,
    )
'''


def test_an_agent_setting_writing_memories_ahead_of_the_replayed_history(tmp_path: Path) -> None:
    """INVALID: agno writes the user's memories into the system prompt it builds before every run,
    and replays the conversation after it: each memory update makes that history miss."""
    found = findings(tmp_path, {"app/planner.py": AGNO_AGENT})
    pc001 = [(line, severity, message) for _, line, severity, message in found if "memory" in message]
    assert [(line, severity) for line, severity, _ in pc001] == [(10, "error")]
    message = pc001[0][2]
    assert "memory `enable_user_memories=True`" in message and "the conversation history" in message
    assert "writes the user's memories into the system prompt" in message


def test_an_agent_setting_finding_says_which_setting_to_turn_off(tmp_path: Path) -> None:
    """The fix is a setting, not a move in the project's own text: the hint names it."""
    root = write_tree(tmp_path, {"app/planner.py": AGNO_AGENT})
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    hints = [f.hint for f in result.findings if f.rule == "PC001"]
    assert len(hints) == 1 and "add_memories_to_context=False" in hints[0]
    timed = AGNO_AGENT.replace("enable_user_memories=True,", "add_datetime_to_context=True,")
    root = write_tree(tmp_path / "timed", {"app/planner.py": timed})
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert [f.hint for f in result.findings if f.rule == "PC001"] == [
        "set add_datetime_to_context=False and give the time with the user's message (or a tool that returns it)"]


def test_an_agent_setting_turned_off_or_without_replayed_history_is_quiet(tmp_path: Path) -> None:
    """VALID: memories kept out of the context (`add_memories_to_context=False`), and a dated
    agent that replays no history (each run sends its own fresh system prompt, nothing after)."""
    kept_out = AGNO_AGENT.replace("enable_user_memories=True,", "enable_user_memories=True, add_memories_to_context=False,")
    dated = AGNO_AGENT.replace("enable_user_memories=True,", "add_datetime_to_context=True,") \
                      .replace("add_history_to_context=True,", "").replace("num_history_runs=50,", "")
    for source in (kept_out, dated):
        assert [f for f in findings(tmp_path, {"app/planner.py": source}) if "PC001" in f[3] or "=True" in f[3]] == []


def test_agent_settings_are_extended_in_config(tmp_path: Path) -> None:
    """A user's own agent class that stamps the time into its system prompt when asked to."""
    config = apply_settings(Config(root=tmp_path, cache_dir=None), {
        "agent-instructions": {"myagents.Agent": ["instructions"]},
        "agent-settings": {"myagents.Agent": {"stamp_time": {"volatility": "per-request", "category": "clock",
                                                             "text": "the time", "fix": "set stamp_time=False"}}},
    }, "test")
    assert load_knowledge(config).agent_settings["myagents.Agent"]["stamp_time"].text == "the time"
    assert load_knowledge(config).agent_settings["myagents.Agent"]["stamp_time"].fix == "set stamp_time=False"
    files = {"app/bot.py": f'''
from myagents import Agent

def build(conversation) -> Agent:
    return Agent(instructions={GUIDELINES!r}, stamp_time=True)
'''}
    found = findings(tmp_path, files, replace(config, show_info=True))
    assert [(line, severity) for _, line, severity, _ in found] == [(4, "info")]
    assert "clock `stamp_time=True`" in found[0][3]


def test_a_malformed_agent_settings_table_is_a_clear_config_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.promptlint.agent-settings]\n"x.Agent" = {stamp = {volatility = "hourly"}}\n', encoding="utf-8")
    (tmp_path / "app.py").write_text("x = 1\n", encoding="utf-8")
    result = run_cli("check", ".", cwd=tmp_path)
    assert result.returncode == 2
    assert "x.Agent(stamp=True)" in result.stderr and "volatility must be one of" in result.stderr
    assert "Traceback" not in result.stderr


LEDGER_MIDDLEWARE = '''
from langchain.agents.middleware import AgentMiddleware, ModelRequest
from langchain_core.messages import HumanMessage, SystemMessage

def _after_system(messages: list, injected: list) -> list:
    index = 0
    while index < len(messages) and isinstance(messages[index], SystemMessage):
        index += 1
    return [*messages[:index], *injected, *messages[index:]]

class LedgerMiddleware(AgentMiddleware):
    def wrap_model_call(self, request: ModelRequest, handler):
        ledger = "\\n".join(str(entry) for entry in request.state.get("ledger", []))
        block = HumanMessage(content=f"<ledger>\\n{ledger}\\n</ledger>")
        return handler(request.override(messages=_after_system(list(request.messages), [block])))
'''


def test_a_middleware_inserting_run_state_ahead_of_the_conversation(tmp_path: Path) -> None:
    """INVALID: the ledger of the run's steps goes right after the system messages, ahead of the
    whole conversation the request carries: every step that changes it misses that history."""
    found = findings(tmp_path, {"app/ledger.py": LEDGER_MIDDLEWARE})
    assert [(line, severity) for _, line, severity, _ in found] == [(12, "error")]
    message = found[0][3]
    assert "run-state `request.state`" in message and "the conversation history" in message
    assert "messages set by a model callback: `request.override(messages=...)`" in message


def test_a_middleware_appending_run_state_after_the_conversation_is_quiet(tmp_path: Path) -> None:
    """VALID: the same ledger as the last message, after the conversation: nothing shared follows."""
    appended = LEDGER_MIDDLEWARE.replace("_after_system(list(request.messages), [block])",
                                         "[*request.messages, block]")
    assert findings(tmp_path, {"app/ledger.py": appended}) == []


def test_request_message_lists_are_extended_in_config(tmp_path: Path) -> None:
    """A user's own request type: a callback prepending a dated turn to its conversation. The
    callback is defined at module level, but the framework runs it before every call: the clock
    is per request, not evaluated once at import time."""
    config = apply_settings(Config(root=tmp_path, cache_dir=None),
                            {"request-messages": {"myagents.Call": ["turns"]}}, "test")
    assert load_knowledge(config).request_messages["myagents.Call"] == ("turns",)
    assert "Call" in load_knowledge(config).callback_types
    files = {"app/hooks.py": '''
from datetime import datetime
from myagents import Call

def before_call(call: Call) -> None:
    call.turns = [{"role": "user", "content": f"Now: {datetime.now()}"}, *call.turns]
'''}
    found = findings(tmp_path, files, config)
    assert [(line, severity) for _, line, severity, _ in found] == [(5, "error")]
    assert "`call.turns = ...`" in found[0][3]


AGNO_SESSION_STATE_APP = {
    "shop/agent.py": f'''
from agno.agent import Agent
from agno.run import RunContext

def instructions(run_context: RunContext) -> str:
    return f"""You keep the user's shopping list.
Current list: {{run_context.session_state["items"]}}
{GUIDELINES}"""

shopping_agent = Agent(name="Shopper", instructions=instructions, add_history_to_context=True)
''',
}


def test_agno_instructions_reading_the_session_state(tmp_path: Path) -> None:
    """INVALID: Agno builds the instructions again for every run, and the agent's tools write the
    session state between runs (Agno's documented dynamic-instructions pattern), so the
    guidelines and the session history after the list never stay a cached prefix. VALID twin:
    fixed instructions."""
    [(path, line, severity, message)] = findings(tmp_path / "invalid", AGNO_SESSION_STATE_APP)
    assert (path, line, severity) == ("shop/agent.py", 6, "error")
    assert "run-state `run_context.session_state" in message
    # Even at the end of the instructions the state comes before the history Agno sends after them:
    # the fix reads it into the user's turn, and the instructions stay fixed.
    source = AGNO_SESSION_STATE_APP["shop/agent.py"]
    listed = 'Current list: {run_context.session_state["items"]}\n'
    assert findings(tmp_path / "valid", {"shop/agent.py": source.replace(listed, "")}) == []


AGNO_OWN_TREE = {
    "agno/__init__.py": "",
    "agno/run/__init__.py": "from agno.run.base import RunContext\n",
    "agno/run/base.py": '''
from dataclasses import dataclass, field

@dataclass
class RunContext:
    run_id: str
    session_state: dict = field(default_factory=dict)
''',
    "agno/agent/__init__.py": "",
    "agno/agent/messages.py": f'''
from typing import Optional
from agno.run import RunContext

GUIDELINES = "{GUIDELINES}"

def get_system_message(run_context: Optional[RunContext], add_state: bool) -> dict:
    content = "You are a helpful agent.\\n"
    session_state = run_context.session_state if run_context else None
    if add_state and session_state is not None:
        content += f"<session_state>{{session_state}}</session_state>\\n"
    content += GUIDELINES
    return {{"role": "system", "content": content}}
''',
}


def test_the_run_context_inside_the_frameworks_own_tree(tmp_path: Path) -> None:
    """INVALID: analyzing Agno itself, `RunContext` is a project class; the knowledge still
    applies by its name, so the session state written into the system message is run state."""
    found = findings(tmp_path, AGNO_OWN_TREE)
    assert [(path, line) for path, line, _, message in found if "run-state" in message] == \
        [("agno/agent/messages.py", 10)]
