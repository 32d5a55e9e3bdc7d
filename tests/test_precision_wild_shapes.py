"""Shapes that bench/wild judges called false alarms (issue 16), each pinned with a small realistic
program, next to the real bust it must not hide."""

from __future__ import annotations

import re
from pathlib import Path

from promptlint.config import Config
from promptlint.pipeline import analyze_for_report
from promptlint.model import Finding, Hole, Literal, Volatility
from tests.conftest import write_tree
from tests.integration_helpers import cli
from tests.test_notebooks import notebook

POLICY = '"Follow the refund policy step by step and cite the relevant section. " * 40'


def findings(root: Path, show_info: bool = True) -> list[Finding]:
    result = analyze_for_report([root], Config(root=root, cache_dir=None, show_info=show_info), cwd=root)
    assert not result.errors
    return list(result.findings)


def test_counter_in_a_turn_followed_only_by_this_calls_own_messages_is_not_a_bust(tmp_path: Path) -> None:
    """instructor's knowledge-graph loop: `Part {i}` sits in a user message built fresh for each
    call; what follows is more of this call's content (the chunk, the current graph), not a
    history shared with later calls."""
    root = write_tree(tmp_path, '''
from openai import OpenAI
client = OpenAI()
def build(chunks: list[str], state) -> None:
    for i, chunk in enumerate(chunks):
        client.chat.completions.create(model="gpt-4o", messages=[
            {"role": "system", "content": "You build a knowledge graph."},
            {"role": "user", "content": f"Extract nodes and edges. Part {i}/{len(chunks)}:\\n{chunk}"},
            {"role": "user", "content": f"Here is the current state of the graph:\\n{state.model_dump_json()}"},
        ])
''')
    assert [f.rule for f in findings(root)] == []


def test_clock_in_a_pinned_user_turn_before_the_history_is_still_a_bust(tmp_path: Path) -> None:
    root = write_tree(tmp_path, '''
from datetime import datetime
from openai import OpenAI
client = OpenAI()
def reply(history: list, question: str):
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": "You are a support agent."},
        {"role": "user", "content": f"Context: it is {datetime.now()}."},
        *history,
        {"role": "user", "content": question},
    ])
''')
    [finding] = findings(root)
    assert (finding.rule, finding.location.line, finding.severity.value) == ("PC001", 7, "error")
    assert "the conversation history" in finding.message


def test_gemini_parts_list_is_one_user_turn(tmp_path: Path) -> None:
    """vision_rag: `contents=[f"... Question: {question}", image]` is one user turn of text and
    an image, not a history after the question."""
    root = write_tree(tmp_path, '''
from google import genai
client = genai.Client()
def answer(question: str, image):
    prompt = [f"Answer the question based on the following image. Be as elaborate as possible.\\n"
              f"Question: {question}", image]
    return client.models.generate_content(model="gemini-2.5-flash", contents=prompt).text
''')
    assert findings(root) == []


def test_gemini_contents_with_roles_are_still_turns(tmp_path: Path) -> None:
    root = write_tree(tmp_path, f'''
from datetime import datetime
from google import genai
client = genai.Client()
POLICY = {POLICY}
def answer(question: str, history: list):
    contents = [{{"role": "user", "parts": [{{"text": f"Now: {{datetime.now()}}. " + POLICY}}]}},
                *history, {{"role": "user", "parts": [{{"text": question}}]}}]
    return client.models.generate_content(model="gemini-2.5-flash", contents=contents).text
''')
    assert [f.rule for f in findings(root)] == ["PC001"]


def test_retrieved_content_on_a_call_without_breakpoint_is_info(tmp_path: Path) -> None:
    """claude-cookbooks' RAG evaluation: documents retrieved for the query sit before a rubric in
    an Anthropic call with no `cache_control`: nothing is cached as written, so nothing is lost."""
    root = write_tree(tmp_path, f'''
import anthropic
client = anthropic.Anthropic()
RUBRIC = {POLICY}
def grade(query: str, vector_store):
    docs = vector_store.search(query)
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=300, messages=[
        {{"role": "user", "content": f"<docs>{{docs}}</docs>\\n" + RUBRIC}}])
''')
    [finding] = findings(root)
    assert (finding.rule, finding.severity.value) == ("PC001", "info")
    assert "nothing is cached as written and the order costs nothing today" in finding.message
    assert findings(root, show_info=False) == []


def test_set_order_in_a_notebook_is_info(tmp_path: Path) -> None:
    """A notebook's calls run in one kernel: a set of strings has one order there."""
    cells = notebook(("code", ["from openai import OpenAI\n",
                               f"GUIDE = {POLICY}\n",
                               "def ask(history):\n",
                               "    roster = '\\n'.join({'triage', 'billing', 'refunds'})\n",
                               "    return OpenAI().chat.completions.create(model='gpt-4o', messages=[\n",
                               "        {'role': 'system', 'content': roster + GUIDE}, *history])\n"]))
    [finding] = findings(write_tree(tmp_path, {"team.ipynb": cells}))
    assert (finding.rule, finding.severity.value) == ("PC003", "info")
    assert "one kernel process" in finding.message
    plain = write_tree(tmp_path / "module", {"team.py": "".join(
        line for line in ["from openai import OpenAI\n", f"GUIDE = {POLICY}\n", "def ask(history):\n",
                          "    roster = '\\n'.join({'triage', 'billing', 'refunds'})\n",
                          "    return OpenAI().chat.completions.create(model='gpt-4o', messages=[\n",
                          "        {'role': 'system', 'content': roster + GUIDE}, *history])\n"])})
    [finding] = findings(plain)
    assert (finding.rule, finding.severity.value) == ("PC003", "warning")


CACHE_KEY_APP = '''
import uuid
from openai import OpenAI
client = OpenAI()
GUIDE = {guide}
def review(diff: str) -> str:
    return client.responses.create(model="gpt-5.1", instructions=GUIDE, input=[{{"role": "user", "content": diff}}],
                                   prompt_cache_key=f"review-{{uuid.uuid4()}}").output_text
'''


def test_an_error_whose_estimate_is_zero_is_a_warning_that_says_why(tmp_path: Path) -> None:
    short = write_tree(tmp_path / "short", CACHE_KEY_APP.format(guide='"Review the diff. Be brief."'))
    [finding] = findings(short, show_info=False)
    assert (finding.rule, finding.severity.value) == ("PC005", "warning")
    assert finding.estimate is not None and finding.estimate.lost_tokens_per_call == 0
    assert "estimated loss: 0 tokens per call" in finding.message
    assert "below the providers' minimum cacheable prefix" in finding.message
    long = write_tree(tmp_path / "long", CACHE_KEY_APP.format(guide=POLICY.replace("40", "80")))
    [finding] = findings(long, show_info=False)
    assert (finding.rule, finding.severity.value) == ("PC005", "error")
    assert finding.estimate is not None and (finding.estimate.lost_tokens_per_call or 0) >= 1024
    assert "estimated loss" not in finding.message


FILTERED_SET_APP = '''
from openai import OpenAI
from pydantic import BaseModel
client = OpenAI()
GUIDE = {guide}
class Message(BaseModel):
    role: str
    content: str
def reply(history: list, question: str):
    messages = [Message(role="system", content=GUIDE), Message(role="user", content=question)]
    files = {{m["file"] for m in messages if isinstance(m, {kind})}}
    system = "Files: " + ", ".join(files) + "\\n" + GUIDE
    return client.chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": system}}, *history, {{"role": "user", "content": question}}])
'''


def test_a_set_filtered_to_a_type_its_items_never_have_is_empty(tmp_path: Path) -> None:
    """gptme: a set of dicts filtered from a list of pydantic messages is always empty: it has one
    order, so nothing is reported. Filtered to the messages' own class, it is a real set."""
    empty = write_tree(tmp_path / "dict", FILTERED_SET_APP.format(guide=POLICY, kind="dict"))
    assert findings(empty) == []
    real = write_tree(tmp_path / "message", FILTERED_SET_APP.format(guide=POLICY, kind="Message"))
    assert [(f.rule, f.location.line) for f in findings(real)] == [("PC003", 10)]


def test_the_html_report_gives_the_reason_of_a_zero_estimate(tmp_path: Path) -> None:
    root = write_tree(tmp_path, CACHE_KEY_APP.format(guide='"Review the diff. Be brief."'))
    code, _, err = cli("report", ".", "-o", "report.html", cwd=root)
    assert code == 0, err
    text = (root / "report.html").read_text(encoding="utf-8")
    [article] = re.findall(r'<article .*?</article>', text, re.DOTALL)
    assert "PC005" in article and "~0 cached tokens" not in article
    assert re.search(r'<p class="cost">Estimate: no cached tokens lost per call: [^<]*minimum', article)


def test_a_random_hint_in_the_task_message_before_other_single_messages_is_not_a_bust(tmp_path: Path) -> None:
    """autogen's chess sample: the task text ends with a random example move; the agent appends the
    task as one message and then other single messages (of other branches): no spliced history
    follows the random value, and the task turn is replayed as written."""
    root = write_tree(tmp_path, '''
import random
from openai import OpenAI
client = OpenAI()
def run(task, moves: list):
    text = f"Board: {task}. Respond with <move>...</move>. For example, <move>{random.choice(moves)}</move>."
    sent = [{"role": "system", "content": "You are a chess player."}]
    sent.append({"role": "user", "content": text})
    sent.append(task)
    return client.chat.completions.create(model="gpt-4o", messages=sent)
''')
    assert [f.rule for f in findings(root)] == []


PROVIDER = '''
from datetime import datetime
from openai import OpenAI
class Chat:
    def __init__(self) -> None:
        self.client = OpenAI()
    def chat(self, system: str, history: list, gen_conf: dict):
        history.insert(0, {"role": "system", "content": system})
        return self.client.chat.completions.create(model="gpt-4o", messages=history, **gen_conf)
'''


def test_a_wrapper_handed_the_message_list_knows_the_history_after_the_system_text(tmp_path: Path) -> None:
    """ragflow's solo chat: `chat_mdl.chat(system_prompt, msg, conf)` on a provider chosen at
    runtime: the list after the system text is handed over in the same call, so the history is
    known, not assumed, and a to-the-second clock in a configured system prompt is an error."""
    root = write_tree(tmp_path, PROVIDER + '''
def solo(dialog, messages: list, chat_mdl):
    msg = [{"role": m["role"], "content": m["content"]} for m in messages if m["role"] != "system"]
    sys_date = datetime.now().strftime("%Y-%m-%d %H:%M:%S")
    system_prompt = dialog.prompt_config.get("system", "").replace("{date}", sys_date)
    return chat_mdl.chat(system_prompt, msg, dialog.llm_setting)
''')
    [finding] = findings(root)
    assert (finding.rule, finding.location.line, finding.severity.value) == ("PC001", 13, "error")
    assert "assumed" not in finding.message and "system text passed to chat()" in finding.message


def test_a_copy_of_the_assembled_prompt_is_not_a_second_root_cause(tmp_path: Path) -> None:
    """ragflow's dialog: the system message with the clock is trimmed by a helper, and
    `msg[0]["content"]` (a copy, derived from the question) is what the call sends: one finding,
    at the clock, not a second one at the copy."""
    root = write_tree(tmp_path, PROVIDER + '''
POLICY = "Follow the refund policy step by step and cite the relevant section. " * 40
def fit(msg: list, limit: int, question: str) -> list:
    return msg if len(str(msg)) < limit else [msg[0], {"role": "user", "content": question[:limit]}]
def dialog(messages: list, question: str, chat_mdl):
    system = f"Now: {datetime.now()}\\n" + POLICY
    msg = [{"role": "system", "content": system}, *messages, {"role": "user", "content": question}]
    msg = fit(msg, 8000, question)
    prompt = msg[0]["content"]
    return chat_mdl.chat(prompt, msg[1:], {})
''')
    found = [(f.rule, f.location.line, f.volatile_source.category if f.volatile_source else None)
             for f in findings(root, show_info=False)]
    assert ("PC001", 14, "clock") in found
    assert not any(category == "request-derived" for _, _, category in found), found


def test_a_cycle_counter_in_a_system_message_of_an_agent_loop_through_project_frames(tmp_path: Path) -> None:
    """onyx's research agent: the loop calls a project step function (an inferred wrapper, not the
    SDK), the system message is a `ChatMessageSimple(message=..., message_type=MessageType.SYSTEM)`,
    and the template says which cycle this is before its fixed guidance (role_keys in
    rules/prompt_sinks.yaml)."""
    root = write_tree(tmp_path, {
        "agent/prompts.py": 'RESEARCH_PROMPT = """You are on cycle {current_cycle_count} of 8.\\n""" + '
                            '"Use the tools, think before each call, cite what you read. " * 30\n',
        "agent/llm.py": '''
from openai import OpenAI
client = OpenAI()
def run_llm_step(history: list):
    return client.chat.completions.create(model="gpt-4o", messages=history)
''',
        "agent/loop.py": '''
from agent.llm import run_llm_step
from agent.prompts import RESEARCH_PROMPT
from agent.types import ChatMessageSimple, MessageType
def research(history: list) -> None:
    cycle = 0
    while cycle <= 8:
        system = ChatMessageSimple(message=RESEARCH_PROMPT.format(current_cycle_count=cycle),
                                   message_type=MessageType.SYSTEM)
        run_llm_step(history=[system, *history])
        cycle += 1
''',
        "agent/types.py": '''
from enum import Enum
class MessageType(Enum):
    SYSTEM = "system"
    USER = "user"
class ChatMessageSimple:
    def __init__(self, message: str, message_type: MessageType) -> None:
        self.message, self.message_type = message, message_type
'''})
    found = [(f.rule, f.location.path, f.volatile_source.category if f.volatile_source else None)
             for f in findings(root, show_info=False)]
    assert ("PC001", "agent/prompts.py", "counter") in found, found


def test_one_finding_lists_every_call_the_value_reaches(tmp_path: Path) -> None:
    """A provider switch: the same system text goes to OpenAI or, through LiteLLM, to DeepSeek.
    One root cause, one finding, and it names both calls."""
    root = write_tree(tmp_path, f'''
from datetime import datetime
import litellm
from openai import OpenAI
openai_client = OpenAI()
POLICY = {POLICY}
def answer(history: list, provider: str):
    system = f"Now: {{datetime.now()}}\\n" + POLICY
    messages = [{{"role": "system", "content": system}}, *history]
    if provider == "openai":
        return openai_client.chat.completions.create(model="gpt-4o", messages=messages)
    return litellm.completion(model="deepseek/deepseek-chat", messages=messages)
''')
    [finding] = findings(root)
    calls = {finding.call_site.api} | {r.message for r in finding.related if r.message.startswith("also reaches")}
    assert calls == {"openai.chat.completions", "also reaches the `litellm.completion` call here"}
    # a note beside the value's path, not a step of it (reporters list it apart: text `note`)
    assert [r.note for r in finding.related] == [False] * (len(finding.related) - 1) + [True]


def test_a_langchain_chat_template_rendered_anywhere_is_judged_where_it_is_rendered(tmp_path: Path) -> None:
    """quivr's Zendesk prompt: a `SystemMessagePromptTemplate` with `{current_time}` in a registry
    of templates (a dict returned by a function, behind `types.MappingProxyType`), rendered with
    `format_prompt(**inputs)` and sent to a tool-bound model the analysis cannot see."""
    root = write_tree(tmp_path, {"prompts.py": '''
import types
from enum import Enum
from langchain_core.prompts import ChatPromptTemplate, HumanMessagePromptTemplate, SystemMessagePromptTemplate
class Name(str, Enum):
    ZENDESK = "ZENDESK"
def _define() -> dict:
    prompts = {}
    system = ("You are a customer service agent.\\nHere is the current time: {current_time} UTC\\n"
              + "Use the same tone, format and structure as in similar tickets. " * 30)
    prompts[Name.ZENDESK] = ChatPromptTemplate.from_messages([
        SystemMessagePromptTemplate.from_template(system),
        HumanMessagePromptTemplate.from_template("{client_query}")])
    return prompts
custom_prompts = types.MappingProxyType(_define())
''', "rag.py": '''
import datetime
from prompts import Name, custom_prompts
class Rag:
    def draft(self, state: dict):
        template = custom_prompts[Name.ZENDESK]
        now = datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S")
        msg = template.format_prompt(client_query=state["query"], current_time=now)
        return self.bind_tools_to_llm("draft").invoke(msg)
'''})
    [finding] = findings(root)
    # At the `{current_time}` slot, on the string's own line (its `\n` escapes are not source lines).
    assert (finding.rule, finding.location.path, finding.location.line) == ("PC001", "prompts.py", 8)
    assert "chat template rendered by format_prompt()" in finding.call_site.api


def test_a_chain_to_a_model_the_analysis_cannot_see_still_renders_its_chat_template(tmp_path: Path) -> None:
    root = write_tree(tmp_path, '''
import datetime
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
PROMPT = ChatPromptTemplate.from_messages([
    ("system", "Today is {now}.\\n" + "Follow the refund policy step by step and cite the section. " * 40),
    MessagesPlaceholder("history"),
    ("human", "{question}"),
])
class Bot:
    def __init__(self, llm):
        self.llm = llm
    def answer(self, question: str, history: list):
        chain = PROMPT | self.llm
        return chain.invoke({"now": datetime.datetime.now().isoformat(), "question": question, "history": history})
''')
    [finding] = findings(root)
    assert (finding.rule, finding.location.line, finding.severity.value) == ("PC001", 4, "error")
    assert "chat template rendered by a chain's invoke()" in finding.call_site.api


def test_the_system_messages_picked_out_of_a_list_are_not_derived_from_the_users_turn() -> None:
    """ragflow's message_fit_in: `[m for m in msg if m["role"] == "system"]` out of a list that
    also holds the user's request is the system part, not request-derived text."""
    import ast

    from promptlint.analysis.derived import derived_names

    function = ast.parse('''
def fit(msg, user_request):
    msg.append({"role": "user", "content": user_request})
    system_part = [m for m in msg if m["role"] == "system"]
    last = [m for m in msg if m["role"] == "user"]
    return system_part, last
''').body[0]
    derived = derived_names(function, {"user_request", "msg"})
    assert "last" in derived and "system_part" not in derived


def test_a_flag_at_its_default_picks_its_branch(tmp_path: Path) -> None:
    """onyx's get_current_llm_day_time: the hour and minute are included only when a flag that
    defaults to False is passed; called without it, the system prompt changes once a day."""
    app = '''
from datetime import datetime
from openai import OpenAI
client = OpenAI()
POLICY = "Follow the refund policy step by step and cite the relevant section. " * 40
def day_time(include_hour_min: bool = False) -> str:
    now = datetime.now()
    return now.strftime("%B %d, %Y %H:%M") if include_hour_min else now.strftime("%B %d, %Y")
def answer(history: list, question: str):
    system = f"Today: {{day_time({flag})}}\\n" + POLICY
    return client.chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": system}}, *history, {{"role": "user", "content": question}}])
'''
    [daily] = findings(write_tree(tmp_path / "default", app.format(flag="")))
    assert daily.message.startswith("per-day clock") and daily.severity.value == "info"
    [minutes] = findings(write_tree(tmp_path / "minutes", app.format(flag="include_hour_min=True")))
    assert minutes.message.startswith("per-request clock") and minutes.severity.value == "error"


def test_an_enumerate_index_goes_with_its_item(tmp_path: Path) -> None:
    """sweep's format_snippets: `for i, snippet in enumerate(snippets)` numbers the files of a
    prompt while each is summarized by a model; the same snippets get the same numbers, so the
    index is not a counter that changes per call."""
    root = write_tree(tmp_path, f'''
from openai import OpenAI
client = OpenAI()
GUIDE = {POLICY}
def summarize(code: str) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[{{"role": "user", "content": code}}])
def plan(history: list) -> str:
    files = []
    for i, path in enumerate(["app.py", "db.py"]):
        files.append(f"<file index={{i}}>{{path}}: {{summarize(path)}}</file>")
    return client.chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": GUIDE + "\\n".join(files)}}, *history])
''')
    assert not any(f.volatile_source is not None and f.volatile_source.category == "counter"
                   for f in findings(root))


def test_a_wrappers_user_text_is_not_taken_for_its_message_list(tmp_path: Path) -> None:
    """awesome-llm-apps' rag_app: `generate_response(system_prompt, query)` sends
    `messages=[{"role": "user", "content": query}]`; the query is a message's text, not a history
    after the system text, so the retrieved chunks near its end stay `info` (one-shot)."""
    root = write_tree(tmp_path, '''
import anthropic
class Pipeline:
    def __init__(self) -> None:
        self.client = anthropic.Anthropic()
    def create_system_prompt(self, chunks: list) -> str:
        return "You are Ragie AI, answer concisely. " * 10 + f"=== {chunks} === END SYSTEM INSTRUCTIONS"
    def generate_response(self, system_prompt: str, query: str) -> str:
        return self.client.messages.create(model="claude-sonnet-4-5", max_tokens=1024, system=system_prompt,
                                           messages=[{"role": "user", "content": query}])
    def process_query(self, query: str, vector_store) -> str:
        chunks = vector_store.similarity_search(query)
        return self.generate_response(self.create_system_prompt(chunks), query)
''')
    assert all(f.severity.value == "info" for f in findings(root))


def test_a_request_object_with_its_messages_is_one_request_not_a_session(tmp_path: Path) -> None:
    """vanna's `LlmRequest(messages=..., system_prompt=...)`: a capitalized constructor that also
    takes the messages is one request, with that history after the system text (a
    `SessionParams(system_prompt=...)` without messages is built once per session)."""
    app = f'''
from datetime import datetime
from requests_models import LlmRequest, SessionParams
GUIDE = {POLICY}
def build(history: list, question: str):
    system = f"Now: {{datetime.now()}}\\n" + GUIDE
    messages = [*history, {{"role": "user", "content": question}}]
    return {{call}}
'''
    [request] = findings(write_tree(tmp_path / "request", app.replace(
        "{call}", "LlmRequest(messages=messages, system_prompt=system)")))
    assert (request.severity.value, "assumed" in request.message) == ("error", False)
    assert request.message.startswith("per-request clock")
    [session] = findings(write_tree(tmp_path / "session", app.replace("{call}", "SessionParams(system_prompt=system)")))
    # Once per session, but before ~700 tokens of guide: every new conversation prefills it again.
    assert session.message.startswith("per-session clock") and session.severity.value == "warning"
    assert "prefilled again by every new conversation" in session.message


def test_a_cache_control_on_a_text_block_object_is_a_breakpoint(tmp_path: Path) -> None:
    """`TextBlockParam(text=..., cache_control=...)` marks a breakpoint like the dict form: the clock
    before it is PC007's, not PC001's "no breakpoint" warning."""
    root = write_tree(tmp_path, f'''
from datetime import datetime
import anthropic
from anthropic.types import TextBlockParam
POLICY = {POLICY.replace("40", "80")}
def answer(history: list):
    return anthropic.Anthropic().messages.create(model="claude-sonnet-4-5", max_tokens=500, messages=history,
        system=[TextBlockParam(type="text", text=f"Now: {{datetime.now()}}\\n" + POLICY,
                               cache_control={{"type": "ephemeral"}})])
''')
    assert [(f.rule, f.severity.value) for f in findings(root)] == [("PC007", "error")]


def test_an_explicit_role_wins_over_the_class_name() -> None:
    """llama_index's `ChatMessage(role="system")` is a system message, not a user turn because its
    class name starts with "Chat"."""
    from promptlint.analysis.layout import message_role_content
    from promptlint.analysis.values import Obj, lit

    message = Obj("llama_index.core.llms.ChatMessage", (("role", lit("system")), ("content", lit("Be brief."))))
    assert message_role_content(message)[0] == "system"
    enum_role = Obj("llama_index.core.llms.ChatMessage", (("role", lit("MessageRole.SYSTEM")), ("content", lit("x"))))
    assert message_role_content(enum_role)[0] == "system"
    assert message_role_content(Obj("llama_index.core.llms.ChatMessage", (("content", lit("hi")),)))[0] == "user"


def test_nothing_after_a_value_is_never_a_finding_even_with_min_stable_chars_zero(tmp_path: Path) -> None:
    root = write_tree(tmp_path, '''
from datetime import datetime
from openai import OpenAI
def ask(question: str):
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": f"You are brief. Now: {datetime.now()}"}])
''')
    result = analyze_for_report([root], Config(root=root, cache_dir=None, show_info=True, min_stable_chars=0), cwd=root)
    # Only the assembly point's own judgement is left (a history is assumed after a system message).
    assert [f.call_site.api for f in result.findings] == ["system message (role dict)"]
    assert all("comes before  in" not in f.message for f in result.findings)


def test_an_assistant_prefill_keeps_the_user_message_before_it_final() -> None:
    """claude-cookbooks' classifiers end with `{"role": "assistant", "content": "<category>"}`: the
    ticket in the user message before that prefill is the final turn, not an earlier one."""
    from promptlint.analysis.layout import mark_final_user
    from promptlint.model import Location, Part

    where = Location("app.py", 1, 1, 1, 1)
    ticket = Part("user", (Hole(Volatility.UNKNOWN, "ticket", where),), where)
    prefill = Part("assistant", (Literal("<category>", where),), where)
    assert [p.name for p in mark_final_user([Part("system", (), where), ticket, prefill])] == \
        ["system", "final_user", "assistant"]
    answered = Part("assistant", (Hole(Volatility.UNKNOWN, "reply", where),), where)
    assert [p.name for p in mark_final_user([ticket, answered])] == ["user", "assistant"]


def test_a_turn_a_chat_loop_appends_is_history_replayed_as_written(tmp_path: Path) -> None:
    """swarm's REPL (and every chat loop): each request appends the user's new turn, timestamp and
    all, to the end of the list; the earlier turns are history, the same in every later request
    (issue 18: appending to the end of the history is not volatile)."""
    root = write_tree(tmp_path, '''
from datetime import datetime
from openai import OpenAI
client = OpenAI()
def repl():
    messages = []
    while True:
        question = input("You: ")
        messages.append({"role": "user", "content": f"[{datetime.now()}] {question}"})
        response = client.chat.completions.create(model="gpt-4o", messages=messages)
        messages.append({"role": "assistant", "content": response.choices[0].message.content})
''')
    assert [f.rule for f in findings(root)] == []


def test_a_turn_rebuilt_at_the_same_place_on_every_request_still_busts_the_history_after_it(tmp_path: Path) -> None:
    """The look-alike that is a bust: a dated user turn written first on every request, ahead of
    the stored conversation."""
    root = write_tree(tmp_path, '''
from datetime import datetime
from openai import OpenAI
client = OpenAI()
def reply(history: list, question: str):
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "user", "content": f"Today is {datetime.now():%Y-%m-%d %H:%M}."},
        *history, {"role": "user", "content": question}])
''')
    found = findings(root)
    assert [(f.rule, f.severity.value, f.location.line) for f in found] == [("PC001", "error", 6)]


KHOJ_CHAT = '''
from google import genai
from openai import OpenAI

PERSONALITY = "You are a helpful personal assistant. Answer from the notes you are given. " * 40
NOTES = "Use my personal notes and our past conversations to inform your response. " * 30


def rebuild(user_name: str, chat_history: list, query: str) -> list:
    messages = [{"role": "system", "content": PERSONALITY + f"\\\\nUser's Name: {user_name}"}]
    for chat in chat_history:
        role = "user" if chat.by == "you" else "assistant"
        messages.append({"role": role, "content": NOTES + chat.context})
        messages.append({"role": role, "content": chat.message})
    messages.append({"role": "user", "content": query})
    return messages


def to_gemini(messages: list) -> tuple:
    system = ""
    contents = []
    for message in messages:
        if message["role"] == "system":
            system += "\\\\n\\\\n" + message["content"]
        else:
            contents.append({"role": message["role"], "parts": [{"text": message["content"]}]})
    return system, contents


def answer_with_gemini(request, chat_history: list, query: str):
    system, contents = to_gemini(rebuild(request.user.name, chat_history, query))
    return genai.Client().models.generate_content(model="gemini-2.5-flash", contents=contents,
                                                  config={"system_instruction": system})


def answer_with_openai(request, chat_history: list, query: str):
    return OpenAI().chat.completions.create(model="gpt-4.1", messages=rebuild(request.user.name, chat_history, query))
'''


def test_a_users_name_before_only_their_own_conversation_is_quiet(tmp_path: Path) -> None:
    """VALID (khoj): the user's name ends the system prompt, and what follows is that user's own
    conversation, rebuilt from the stored chat with a fixed note template in its turns. The
    template text is the conversation's own (no other user shares a prefix after the name), and a
    formatter that moves the system messages into Gemini's system instruction moves only those:
    a message whose role is known is what it is."""
    assert findings(write_tree(tmp_path, {"app/chat.py": KHOJ_CHAT})) == []


def test_a_users_name_before_shared_instructions_is_still_reported(tmp_path: Path) -> None:
    """INVALID: the same name ahead of the personality text, which every user shares."""
    chat = KHOJ_CHAT.replace('PERSONALITY + f"\\\\nUser\'s Name: {user_name}"', 'f"User\'s Name: {user_name}\\\\n" + PERSONALITY')
    assert chat != KHOJ_CHAT
    found = findings(write_tree(tmp_path, {"app/chat.py": chat}))
    assert {(f.rule, f.severity.value, f.location.line) for f in found} == {("PC001", "warning", 9)}
