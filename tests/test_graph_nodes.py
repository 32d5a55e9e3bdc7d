"""Graph nodes (issue 15): a LangGraph node reads the run's own content from the state the graph
hands it (`state["section"]`, `state.topic`, `state.get("brief")`; rules/sources.yaml
graph_nodes). Shapes from langchain-ai/open_deep_research and local-deep-researcher in bench/wild."""

from __future__ import annotations

from pathlib import Path

from promptlint.config import Config
from promptlint.engine import analyze
from tests.conftest import run_cli, write_tree

GUIDELINES = "Search the web for sources, cite every claim, and keep the section under 200 words. " * 40

RESEARCH_GRAPH = f'''
from typing import TypedDict
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI
from langgraph.graph import StateGraph, START

PROMPT = """You are researching one section of a report.
Section: {{section}}
{GUIDELINES}"""

class SectionState(TypedDict):
    section: str
    messages: list

llm = ChatOpenAI(model="gpt-4o")

def research_section(state: SectionState):
    system = PROMPT.format(section=state["section"])
    return {{"messages": [llm.invoke([SystemMessage(content=system)] + state["messages"])]}}

builder = StateGraph(SectionState)
builder.add_node("research", research_section)
builder.add_edge(START, "research")
'''


def findings(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str, str, str]]:
    root = write_tree(tmp_path, files)
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert not result.errors, result.errors
    return [(f.location.path, f.location.line, f.rule, f.severity.value, f.message) for f in result.findings]


def test_a_node_writing_its_state_into_the_system_prompt_before_the_guidelines(tmp_path: Path) -> None:
    """INVALID: every run (every `Send` to the node) has another section, so the guidelines after
    it and the node's conversation are prefilled again by each run: reported at the slot, with
    the state read as its origin."""
    root = write_tree(tmp_path, {"graph.py": RESEARCH_GRAPH})
    result = analyze([root], Config(root=root, cache_dir=None), cwd=root)
    assert [(f.location.line, f.rule, f.severity.value) for f in result.findings] == [(7, "PC001", "warning")]
    finding = result.findings[0]
    assert finding.message.startswith("per-session request-derived `state[\"section\"]` comes before")
    assert "read from the state the graph hands this node" in finding.message
    assert finding.volatile_source is not None and finding.volatile_source.location.line == 17


CLASS_GRAPH = f'''
from langchain_core.messages import SystemMessage
from langchain_openai import ChatOpenAI
from langgraph.graph import StateGraph

PROMPT = """You plan the research of one topic.
Topic: {{topic}}
{GUIDELINES}"""

class Planner:
    def __init__(self):
        self.llm = ChatOpenAI(model="gpt-4o")

    def plan(self, state: dict):
        system = PROMPT.format(topic=state["topic"])
        return {{"messages": [self.llm.invoke([SystemMessage(content=system), *state["messages"]])]}}

    def build(self):
        graph = StateGraph(dict)
        graph.add_node("plan", self.plan)
        return graph.compile()
'''


def test_a_method_registered_as_a_node_reads_its_state_after_self(tmp_path: Path) -> None:
    """INVALID: a class that builds its graph from its own methods (`graph.add_node("plan",
    self.plan)`): the parameter after `self` is the state."""
    found = findings(tmp_path, {"planner.py": CLASS_GRAPH})
    assert [(path, line, rule, severity) for path, line, rule, severity, _ in found] == [("planner.py", 6, "PC001", "warning")]
    assert found[0][4].startswith('per-session request-derived `state["topic"]` comes before')


def test_a_method_no_graph_registers_is_not_a_node(tmp_path: Path) -> None:
    """VALID: the same class handing the graph another method: `plan`'s `state` is a parameter
    like any other."""
    other = CLASS_GRAPH.replace('graph.add_node("plan", self.plan)', 'graph.add_node("plan", self.build)')
    assert other != CLASS_GRAPH
    assert findings(tmp_path, {"planner.py": other}) == []


def test_the_state_in_the_final_user_turn_after_a_fixed_system_prompt_is_quiet(tmp_path: Path) -> None:
    """VALID: the fixed guidelines first, the section only in the user's turn, nothing after it."""
    node = RESEARCH_GRAPH.replace(
        '''    system = PROMPT.format(section=state["section"])
    return {"messages": [llm.invoke([SystemMessage(content=system)] + state["messages"])]}''',
        '''    system = PROMPT.format(section="the one named below")
    return {"messages": [llm.invoke([SystemMessage(content=system), *state["messages"],
                                     HumanMessage(content=f"Section: {state['section']}")])]}''')
    assert node != RESEARCH_GRAPH
    assert findings(tmp_path, {"graph.py": node}) == []


def test_nodes_added_as_a_sequence_are_nodes(tmp_path: Path) -> None:
    """INVALID: `builder.add_sequence([...])` registers each function of the list as a node."""
    sequence = RESEARCH_GRAPH.replace('builder.add_node("research", research_section)',
                                      'builder.add_sequence([research_section])')
    assert sequence != RESEARCH_GRAPH
    assert [(path, line, rule) for path, line, rule, _, _ in findings(tmp_path, {"graph.py": sequence})] \
        == [("graph.py", 7, "PC001")]


def test_a_function_no_graph_registers_is_not_a_node(tmp_path: Path) -> None:
    """VALID: without the registration `state` is a parameter like any other (unknown, not
    reported); `add_node` of a module that does not import LangGraph (networkx) registers nothing."""
    unregistered = RESEARCH_GRAPH.replace('builder.add_node("research", research_section)\n', "")
    assert findings(tmp_path / "a", {"graph.py": unregistered}) == []
    networkx = RESEARCH_GRAPH.replace("from langgraph.graph import StateGraph, START", "from networkx import DiGraph as StateGraph\nSTART = 0")
    assert findings(tmp_path / "b", {"graph.py": networkx}) == []


def test_the_state_in_a_user_turn_before_fixed_instructions_is_the_request(tmp_path: Path) -> None:
    """INVALID (PC010): the brief fills the only user message and the report instructions follow
    it there: part of no prefix two runs share. The state is the request here, not a value to
    move ahead of a history (PC001 stays quiet)."""
    files = {"report.py": f'''
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI
from langgraph.graph import StateGraph

REPORT = """Research brief: {{brief}}

{GUIDELINES * 2}"""

model = ChatOpenAI(model="gpt-4o")

async def write_report(state, config):
    prompt = REPORT.format(brief=state.get("research_brief", ""))
    return {{"report": await model.ainvoke([HumanMessage(content=prompt)])}}

graph = StateGraph(dict)
graph.add_node("write_report", write_report)
'''}
    found = findings(tmp_path, files)
    assert [(path, line, rule, severity) for path, line, rule, severity, _ in found] == [("report.py", 5, "PC010", "warning")]
    assert 'filled per call from `state.get("research_brief", "")` on' in found[0][4]


def test_a_project_graph_framework_is_configured(tmp_path: Path) -> None:
    """A team's own graph runner registers nodes with `register`: named in
    `[tool.promptlint.graph-nodes]`, its nodes' state is read the same way."""
    own = RESEARCH_GRAPH.replace("from langgraph.graph import StateGraph, START", "from flowkit import StateGraph, START") \
        .replace("builder.add_node(", "builder.register(")
    root = write_tree(tmp_path, {"graph.py": own})
    quiet = run_cli("check", ".", "--no-cache", cwd=root)
    assert quiet.returncode == 0, quiet.stdout + quiet.stderr
    (root / "pyproject.toml").write_text('[tool.promptlint.graph-nodes]\nflowkit = ["register"]\n')
    loud = run_cli("check", ".", "--no-cache", cwd=root)
    assert loud.returncode == 1 and "graph.py:7" in loud.stdout and 'state["section"]' in loud.stdout
    listed = run_cli("rules", "--frameworks", cwd=root)
    graph_line = next(line for line in listed.stdout.splitlines() if line.startswith("graph nodes"))
    following = listed.stdout.splitlines()[listed.stdout.splitlines().index(graph_line) + 1]
    assert "langgraph" in following and "flowkit" in following


def test_a_graph_nodes_table_that_is_not_lists_of_names_is_a_config_error(tmp_path: Path) -> None:
    """Bad config: a clear error naming the key and the shape, exit 2, no traceback."""
    root = write_tree(tmp_path, {"graph.py": RESEARCH_GRAPH,
                                 "pyproject.toml": '[tool.promptlint.graph-nodes]\nflowkit = "register"\n'})
    result = run_cli("check", ".", "--no-cache", cwd=root)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "graph-nodes" in result.stderr and "a table of package = [method names]" in result.stderr


# The node-factory shape of TauricResearch/TradingAgents (bench/wild, batch 2026-12-07): each
# agent module returns a node function built around the model it is given, and the graph module
# registers what the factories return.
ANALYST = f'''
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder

GUIDE = """{GUIDELINES}"""

def create_market_analyst(llm):
    def market_analyst_node(state):
        current_date = state["trade_date"]
        prompt = ChatPromptTemplate.from_messages([
            ("system", "You are a market analyst. Today's date is {{current_date}}.\\n{{guide}}"),
            MessagesPlaceholder(variable_name="messages"),
        ])
        prompt = prompt.partial(current_date=current_date, guide=GUIDE)
        chain = prompt | llm
        return {{"messages": [chain.invoke(state["messages"])]}}

    return market_analyst_node
'''

SETUP = '''
from langchain_openai import ChatOpenAI
from langgraph.graph import StateGraph

from agents.market import create_market_analyst

def build_graph():
    llm = ChatOpenAI(model="gpt-4o")
    workflow = StateGraph(dict)
    analyst = create_market_analyst(llm)
    workflow.add_node("Market Analyst", analyst)
    return workflow.compile()
'''


def test_a_node_a_factory_returns_reads_its_state_when_the_graph_registers_it(tmp_path: Path) -> None:
    """INVALID: the returned node function is analyzed as an entry of its own, and since the
    graph module registers what `create_market_analyst` makes, its `state` is the run's state:
    the date ahead of the guide is reported where it is read."""
    found = findings(tmp_path, {"agents/__init__.py": "", "agents/market.py": ANALYST, "graph.py": SETUP})
    assert [(path, rule, severity) for path, _, rule, severity, _ in found] == [
        ("agents/market.py", "PC001", "warning")]
    assert found[0][4].startswith('per-session request-derived `state["trade_date"]` comes before')


def test_a_factory_no_graph_registers_makes_no_node(tmp_path: Path) -> None:
    """VALID: without a module registering the factory's product, the returned function's `state`
    is a parameter like any other."""
    unregistered = SETUP.replace('    workflow.add_node("Market Analyst", analyst)\n', "")
    assert unregistered != SETUP
    assert findings(tmp_path, {"agents/__init__.py": "", "agents/market.py": ANALYST, "graph.py": unregistered}) == []


def test_a_returned_function_is_analyzed_as_an_entry(tmp_path: Path) -> None:
    """INVALID: a factory's product is run when its caller calls it, out of the analysis' sight:
    the clock it writes ahead of the fixed instructions is found in the returned function itself."""
    files = {"bot.py": f'''
from datetime import datetime
from openai import OpenAI

GUIDE = """{GUIDELINES}"""

def make_responder(client: OpenAI):
    def respond(history: list, question: str) -> str:
        system = f"Now: {{datetime.now().isoformat()}}\\n{{GUIDE}}"
        messages = [{{"role": "system", "content": system}}, *history, {{"role": "user", "content": question}}]
        return client.chat.completions.create(model="gpt-4o", messages=messages).choices[0].message.content

    return respond
'''}
    found = findings(tmp_path, files)
    assert [(path, rule) for path, _, rule, _, _ in found] == [("bot.py", "PC001")]
    assert found[0][4].startswith("per-request clock `datetime.now()` comes before")
