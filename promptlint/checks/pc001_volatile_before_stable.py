r"""PC001 volatile-before-stable.

## What it does
Finds a value that changes between calls (the clock, a uuid, a random number, a counter, a user
or session identifier) placed before stable prompt content: before the rest of a long system
prompt, or before the conversation history.

## Why is this bad?
Providers and serving engines cache the longest identical *prefix* of a prompt. One changing byte
makes every token after it a cache miss: the whole stable system prompt and the history are
billed and prefilled again on every call, and the first token comes later.
Volatile text at the very end of the system prompt still busts the cache when conversation
history follows it. Text inside the final user message is safe: nothing stable follows it.

## Example
```python
system = f"Current time: {datetime.now():%H:%M}\n" + LONG_INSTRUCTIONS
client.chat.completions.create(model="gpt-4o", messages=[
    {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
```

## Use instead
```python
client.chat.completions.create(model="gpt-4o", messages=[
    {"role": "system", "content": LONG_INSTRUCTIONS}, *history,
    {"role": "user", "content": f"{question}\n\n(Current time: {datetime.now():%H:%M})"}])
```

Prompts are judged where they are assembled, too (rules/prompt_sinks.yaml): a `{"role": "system"}`
dict, a `role=` system message, a system-message constructor (`SystemMessage`,
`ChatMessage.from_system`), an agent's instructions (`Agent(instructions=...)`), or a value passed
to an *inferred wrapper*: a project function whose parameter ends up in system content, at any depth
(`provider.chat(system, history)` → `history.insert(0, {"role": "system", "content": system})`), or
any call with a `system_prompt=` keyword. Every provider puts system content before the history, so
the loss is known without seeing the LLM call; the finding names the assembly point and says that
the history after it is assumed. A system message written into a list that the same function then
fills with a conversation (each message copied with its own role, `formatted += history`, `[system,
*chat_history]`) and the instructions function of an agent (asked again before every model call of a
run, the run's steps after it) have that history known to follow, not assumed. A system message
inserted into a list ahead of what it holds (`messages.insert(1, {"role": "system", "content":
memories})`, or a framework's message object: `chat_ctx.items.insert(0,
llm.ChatMessage(role="system", ...))`) has that list's messages after it: they are known to be
there, not assumed. A Semantic Kernel prompt function is judged where it is invoked: its template
rendered with the call's `KernelArguments`, its `<message role="...">` tags the messages sent. A
counter is an attribute that any method but the constructor steps by a constant
(`self.remaining_turns -= 1`): read anywhere, it changes from one turn to the next.

Values computed from the request's own input are per request too: text built from the name that
forms the final user turn (`docs = retriever.search(question)`, `context = build(query)`) and
placed earlier in the prompt is reported as `request-derived`, and so is a parameter or a local
named like the request's input (`question`, `query`, `user_question = text_of(messages[-1])`:
`request_inputs` in rules/prompt_sinks.yaml; the message says the name is the reason). The input
handed to a helper that builds the system message is followed into it, and what a call the
analysis cannot see into computes from it there is per request too (a learning store's
`build_context(message=input)` recalls what matches this input); a parameter typed only as an
object (`agent: Agent`) is never taken for the input. Replacing
one item of a list with the input (`messages[-1] = {"role": "user", "content": question}`) does
not make the list's other items derived. A transcript of the whole
conversation so far (a parameter named like it: `history`, `chat_history`; `conversation_inputs`)
grows with every turn, so it is per request wherever it lands ahead of stable content, and so is
what a method of it returns (`conversation_history.build_context()`), even when another function
builds the prompt from it; its first or last message alone, its length, one item it hands out
(`get`, `pop`) and the system messages picked out of it are not. What a user types at the
console (`input()`) starts a task the steps after it share: per conversation. So is the result
of a *lookup*
keyed by anything but a constant (rules/sources.yaml `lookups`: vector-store searches, retrievers,
memory recalls; add your own in `[tool.promptlint.lookups]`), even where the user turn is not in
sight: documents retrieved for this question belong after the history, in the final user turn.
A web request by a plain HTTP client whose URL, query or body is not a constant (`requests.get(url,
params={"q": ticker})`, `urlopen(Request(url))`) is such a lookup too: the page or feed it returns
is what this request asked for.
A memory lookup is per request whatever its key (`get_user_memories(user_id="default")`): the
conversation writes the memories it reads. So is a value named for a memory store's content
(`ctx.memories`, `user_memories`: rules/prompt_sinks.yaml `memory_names`).
So is an agent framework's *run state* read by a callback that runs before every model call (an ADK
instruction provider or `before_model_callback` reading `context.state`; rules/sources.yaml
`run_state`, rules/prompt_sinks.yaml `request_system`): tools change it during a run, so the
instructions and the history after it miss whenever a step changes it. What a graph node reads from
the state its graph hands it (a LangGraph node registered with `add_node`: `state["section"]`;
rules/sources.yaml `graph_nodes`) is that run's own content: per conversation ahead of stable
text, and in the final user turn the request itself (PC010's to judge). So is *agent-loop state*: in
a loop that sends a request on every pass (a `while` loop, `for step in range(...)`, a `for` over
items the analysis cannot list, such as the chunks of a document), a list the loop appends to or a
text it extends (`plan.append(step)`, `log += line`, a running `summary += reply`) or a dict it
stores each step's result in (`state[key] = env.step(action)`), kept in a local or on `self`
(`self.plan.append(step)`), differs on every request, and so does the last step's
observation written into the prompt before the loop stores the next one (`self.observation =
env.step(action)`, read by the method that builds the system prompt). A method that sends a
request runs once per turn: what it carries on `self` to its next call (`self.previous = reply`
after the prompt wrote the previous one in) is such state too. Written into the system message
(`messages[0] = {"role": "system", "content": f"Plan: {plan}..."}`) it busts the rules and the
history after it. Appending to the message list itself is how a conversation grows, and is left
alone.

## Known problems
Severity follows how often the value changes, and the message says what that scope costs:
per-request values are errors (warnings when less than about 500 tokens of stable text follow and no
history is known to follow; `info` when, judged at an assembly point with the history only assumed,
less than about 500 tokens of known text follow, because a one-shot call then loses next to nothing:
a framework's run state, read by a callback that runs before every model call of a run, is a warning
from about 250 tokens), per-user values warnings and only when stable text shared across
conversations follows (the history of one conversation is theirs anyway, the fixed template text of
its earlier turns included), per-session values (computed once for a conversation and reused, such
as a task typed at the console or a time stored when the session starts: the stable text after it
misses once per conversation, on its first request) `info`, or a warning when at least ~500 tokens
(2,000 characters) of stable text follow, which every new conversation prefills again, per-day
values `info` (the cache goes cold once a day), once-per-process values `info` (workers do not share
a prefix). `info` findings are shown with `--show-info`. Request-derived, retrieved and recalled
content, and what earlier steps of an agent loop produced or observed, whose estimate loses nothing at any provider the call may reach (the whole prompt's stable
text stays below every minimum cacheable prefix: moving it would cache nothing more) is `info`, with
the estimate's words; a clock or an id there stays a warning that says so. On a provider that caches
only at explicit breakpoints (Anthropic, Bedrock: `cache: explicit` in rules/prices.yaml), a call
with no breakpoint caches nothing as written: a clock, id or counter there is a warning that says so
(the estimate's loss assumes the fix adds the breakpoint), and request-derived, retrieved or
recalled content is `info` (it costs nothing today). With breakpoints, a per-user or per-session
value costs only the stable text up to the last one: other conversations read nothing after it from
the cache (a value after it is not reported). Likewise a value costs only the stable text up to the
next value that changes on every request (the day's date, then documents looked up per request,
then the rules): the text after that one is cached by no request whatever the first does, so with
less than ~500 tokens of stable text between them the first is `info`, and the message names the
second. Request-derived, retrieved or recalled content
followed by text that mostly repeats instructions given before it (a "sandwich" around the
documents, as graphrag's search prompts do on purpose) is `info`: moving the content would only drop
the repeat. So is such content followed by less than ~500 tokens of fixed text before other request
content (`{documents}`, one sentence, `Question: {q}`); a value the analysis knows nothing of (a
catalog handed in, a project's code) is no such content, and the fixed text after it still counts;
the fields of the same looked-up content
(each document's title and text, with a bullet between them) are one block, counted after its last
piece. A value inside an earlier user, assistant or tool message counts only literal text and a
spliced history after it as lost: the messages written after it in the same list are this call's own
content, and the turn itself is replayed as written. A turn that the same expression writes again
later in the list (a chat loop appending each new message) is history, not flagged: appending to the
end of the conversation keeps its prefix. Whatever the scope, an `error` or `warning` whose estimate
loses less than a cache block (64 tokens) for every provider, with nothing of unknown length after
it, is reported as a `warning` whose message gives the estimated loss and the reason (the stable
text is below the providers' minimum). Values stored on an object in `__init__` are assumed to live
for one conversation, and so is system content assembled behind a first-call test of the object (`if
self.turn_count == 0:`, `if self._plan is None:`, `if len(self.steps) == 0:`, as Agent-S's manager
sets its system prompt with the retrieved experience on the first step of a task): per-session, with
the severity above; a flag in the test (`if self.use_memory:`) is not such a test. Unknown values
(parameters, I/O) are not flagged unless they are derived from the final user turn, named like the
request's input, or returned by a lookup. Inferred wrappers are matched by the callee's last name
(every project definition of that name), so a volatile value passed to an unrelated function of the
same name as a wrapper is reported too; a lookup keyed by a constant is not request-derived. For the
same reason, the LLM calls such a finding names (the calls the wrapper sends the prompt with) are
those of every project definition of that name, at most 16; the estimate prices it as their provider
only when they all have one, and with the model the wrapper call names when it names one. One prompt
gets one finding, at its first value; a later value that changes as often is listed on it ("also
changes here: move it too"), since moving only the first would not fix the prompt. Content after a
made-up value (memories after a clock or an id) is a finding of its own: it has its own fix, often
its own option, and suppressing the clock's finding must not hide it. So is a value the prompt gets
under an option of its own: text added by the body of an `if` with no `else` that tests a flag (`if
agent.add_session_summary_to_context: prompt += summary`) busts the cache whenever that option is
on, whichever other options are, so it is listed on an earlier finding only when that one was added
unconditionally or under the same `if`. A computed condition (`if count(prompt) < budget:`, `if
len(docs) > 0:`) is a step of the same assembly, not an option. The test is the `if` that added the
text, where the text is built (the finding names it: "added to the prompt only when this test
holds"); a flag tested in another function is not seen.

## Fix safety
No automatic fix: moving content changes what the model reads. `--unsafe-fixes` offers to move an
f-string's volatile field to the final user message where the layout is simple.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable

from promptlint.analysis.derived import LOOP_STATE, OBSERVED, RUN_STATE, is_request_content
from promptlint.analysis.layout import next_per_request
from promptlint.checks.base import (
    LONG_STABLE_CHARS,
    PER_CONVERSATION,
    SEVERITY_BY_VOLATILITY,
    Rule,
    RuleContext,
    StableAfter,
    breakpoints,
    characters,
    describe_hole,
    has_breakpoint,
    stable_after,
    volatile_holes,
)
from promptlint.model import Finding, Hole, Literal, Location, PromptLayout, RelatedLocation, Severity, Volatility

ORDER_CATEGORIES = {"set-order", "dir-order", "shuffle", "sample", "json-order"}
# Content looked up or computed for the request (not a clock or an id): it is in the prompt on
# purpose, and where the call is not seen, whether a history follows it is a guess.
LOOKED_UP = frozenset({"request-derived", "retrieval", "memory"})
# Content whose finding is info when the estimate loses nothing (`quiet_when_nothing_lost`).
QUIET_WHEN_SHORT = LOOKED_UP | {LOOP_STATE, OBSERVED}
MADE_UP = frozenset({"clock", "date", "uuid", "random", "request-id", "user-id", "counter", "hostname", "process"})
# What a value of each scope costs from where it sits on: the message says what the JSON `kind` says.
CONSEQUENCES = {
    Volatility.PER_REQUEST: "every call misses the prefix cache from here on",
    Volatility.PER_USER: "each user gets a prefix of their own from here on: text shared across users is not reused",
    Volatility.PER_SESSION: "each conversation gets a prefix of its own from here on: text shared across "
                            "conversations is not reused",
    Volatility.PER_DAY: "the cache from here on goes cold once a day, for every conversation at once",
    Volatility.PER_PROCESS: "each worker process has a prefix of its own from here on: workers and restarts "
                            "never share the cache",
}
# A value judged at an assembly point, where the history after it is only assumed, is info unless
# LONG_STABLE_CHARS (about 500 tokens) of known stable text follow it (then the assumption is not
# needed): a call that may be sent once loses too little to be worth a reviewer's time. The
# held-out repositories of bench/wild showed one-shot judges and extractors with 250-450 tokens
# after a clock or a user's name reported as warnings, all false. A framework's run state (read
# by a callback the framework runs before every model call of a run) needs only this much.
ASSUMED_HISTORY_MIN_CHARS = 1000
REPEAT_MIN_LINE = 20  # shorter lines (headings, separators) say nothing about a repeat
# How often a value changes, for "one finding per root cause": a later value is reported only when
# it changes more often than every value already reported before it in the same prompt.
SCOPE_RANK = {Volatility.PER_PROCESS: 0, Volatility.PER_DAY: 1, Volatility.PER_SESSION: 2, Volatility.PER_USER: 2,
              Volatility.PER_REQUEST: 3}


class VolatileBeforeStable(Rule):
    code = "PC001"
    name = "volatile-before-stable"
    summary = "A value that changes between calls sits before stable prompt content"
    fix_hint = "move the volatile value after the stable parts (e.g. into the final user message)"

    VALID = [
        # The conversation's transcript in the final user turn, its first message in the system
        # prompt: the rules stay first, and the first message is the same on every turn.
        """
from openai import OpenAI
client = OpenAI()
RULES = "Summarize faithfully, in the user's language, without new facts. " * 40
def summarize(history: list) -> str:
    transcript = "\\n".join(m["content"] for m in history)
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": history[0]["content"] + RULES},
        {"role": "user", "content": "Summarize:\\n" + transcript}])
""",
        # One item picked out of the conversation object (its title) is not the conversation.
        """
from openai import OpenAI
GOAL = "Answer from the data tables above; list key points with their sources. " * 80
class Search:
    def __init__(self) -> None:
        self.client = OpenAI()
    def ask(self, query: str, conversation_history) -> str:
        system = f"Topic: {conversation_history.get('title')}\\n" + GOAL
        return self.client.chat.completions.create(model="gpt-4o", messages=[
            {"role": "system", "content": system}, {"role": "user", "content": query}])
""",
        # Volatile text in the final user turn: nothing stable follows it.
        """
from datetime import datetime
from openai import OpenAI
client = OpenAI()
SYSTEM = "You are a careful assistant. " * 40
def answer(question: str, history: list) -> str:
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": SYSTEM}, *history,
        {"role": "user", "content": f"{question} (now: {datetime.now()})"}])
""",
        # Evaluated once at import time: info at most.
        """
from datetime import datetime
from anthropic import Anthropic
STARTED = datetime.now().isoformat()
SYSTEM = f"Server started {STARTED}. " + "Follow the policy carefully. " * 30
def reply(messages: list):
    return Anthropic().messages.create(model="claude-sonnet-4-5", max_tokens=500, system=SYSTEM,
                                       messages=messages)
""",
        # A lookup keyed by a constant is the same on every request.
        """
from openai import OpenAI
client = OpenAI()
def answer(question: str, retriever) -> str:
    docs = retriever.search("company handbook")
    system = f"Answer from these documents:\\n{docs}\\n" + "Be precise and cite sources. " * 200
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
""",
        # Documents retrieved for the question before a short tail in a one-shot call: the prompt's
        # stable text stays below the 1,024-token minimum either way, so nothing is lost (info).
        """
from openai import OpenAI
client = OpenAI()
def answer(question: str, retriever) -> str:
    docs = retriever.search(question)
    system = f"Answer from these documents:\\n{docs}\\n" + "Be precise and cite sources. " * 40
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
""",
        # Retrieved content in the final user turn: the instructions and history stay a prefix.
        """
from openai import OpenAI
client = OpenAI()
RULES = "Cite the document ids. Never invent facts. " * 60
def reply(memory, question: str, history: list):
    facts = memory.search(question)
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": RULES}, *history,
        {"role": "user", "content": f"{question}\\n\\nRelevant facts:\\n{facts}"}])
""",
        # Memories inserted at the end of the list: the last message, nothing of the list after it.
        """
class Memory:
    async def enhance(self, context, query: str):
        memories = await self.store.search(query)
        messages = context.get_messages()
        messages.insert(len(messages), {"role": "system", "content": f"Memories: {memories}"})
""",
        # A chat template whose system text holds only fixed instructions and the retrieved context
        # (not the question): the question is the final user turn, where it belongs.
        """
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
RULES = "Answer from the context only and cite the fragment numbers you used. " * 30
prompt = ChatPromptTemplate.from_messages([
    ("system", RULES + "\\nContext:\\n{context}"),
    MessagesPlaceholder("chat_history"),
    ("human", "{question}"),
])
""",
        # A conversation id before the history only: that history belongs to the conversation.
        """
def build(conversation_id: str, history: list) -> list:
    return [{"role": "system", "content": f"Conversation {conversation_id}."}, *history]
""",
        # A model callback putting the run's state in a new last turn: the instruction is untouched.
        """
from google.adk.agents.callback_context import CallbackContext
from google.adk.models import LlmRequest
from google.genai import types
def before_model(callback_context: CallbackContext, llm_request: LlmRequest):
    note = f"Current dashboard: {callback_context.state}"
    llm_request.contents.append(types.Content(role="user", parts=[types.Part(text=note)]))
""",
        # A dated agno agent that replays no history: each run's system prompt has nothing shared
        # after it (info at most).
        """
from agno.agent import Agent
planner = Agent(instructions=["Plan trips.", "Ask for the budget first."], add_datetime_to_context=True)
""",
        # An agent loop that only appends to its history, and puts the steps taken in the final
        # user turn: every request extends the previous one.
        """
from openai import OpenAI
client = OpenAI()
RULES = "Follow the action space below exactly. " * 80
def run(task: str, max_steps: int = 10):
    messages = [{"role": "system", "content": RULES}]
    done = []
    for step in range(max_steps):
        messages.append({"role": "user", "content": f"{task}\\nSteps taken: {done}"})
        reply = client.chat.completions.create(model="gpt-4o", messages=messages)
        messages.append({"role": "assistant", "content": reply.choices[0].message.content})
        done.append(reply.choices[0].message.content)
""",
        # The same retrieved pairs, unpacked, in the final user turn: the rules and the history
        # stay one prefix.
        """
from openai import OpenAI
RULES = "Plan one step at a time and name the worker for each step. " * 60
def reply(store, task: str, history: list):
    experiences = [text for text, _ in store.retrieve_experience(task)]
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": RULES}, *history,
        {"role": "user", "content": task + "\\nPast experiences:\\n" + "\\n".join(experiences)}])
""",
        # A Semantic Kernel prompt function: the turns left are written in the user's message,
        # after the rules of the system message, which every turn shares.
        """
from semantic_kernel import Kernel
from semantic_kernel.functions import KernelArguments
PLAN = \"\"\"<message role="system">You plan the next step of the interview and answer in JSON.
{{#each rules}}- {{this}}
{{/each}}</message>
<message role="user">Turns left: {{ turns_left }}
{{ history }}</message>\"\"\"
async def plan(kernel: Kernel, rules: list, turns_left: int, history: str):
    function = kernel.add_function(prompt=PLAN, function_name="plan", plugin_name="interview",
                                   template_format="handlebars")
    return await kernel.invoke(function, KernelArguments(rules=rules, turns_left=turns_left, history=history))
""",
    ]
    INVALID = [
        # An agent setting (rules/prompt_sinks.yaml agent_settings): agno writes the user's
        # memories, rewritten after runs, into its system prompt, ahead of the history it replays.
        """
from agno.agent import Agent
planner = Agent(instructions=["Plan trips.", "Ask for the budget first."], enable_user_memories=True,
                add_history_to_context=True)
""",
        # An ADK instruction provider: called before every model call, it reads the run's state
        # (rules/sources.yaml run_state), which tools change, ahead of the fixed guidelines.
        """
from google.adk.agents import Agent
from google.adk.agents.readonly_context import ReadonlyContext
GUIDELINES = "Build dashboards from searched data only; cite each metric's source. " * 30
def instruction_provider(context: ReadonlyContext) -> str:
    return f"Current dashboard state: {context.state}\\n\\n{GUIDELINES}"
dashboard_agent = Agent(name="Dashboard", model="gemini-2.5-flash", instruction=instruction_provider)
""",
        # The user's question (a parameter named like the request's input, rules/prompt_sinks.yaml
        # request_inputs) opens the system message, ahead of the rules and the history.
        """
RULES = "Cite the document ids. Never invent facts. Answer in the user's language. " * 40
def build_messages(question: str, history: list) -> list:
    system = f"The user asks about: {question}\\n\\n{RULES}"
    return [{"role": "system", "content": system}, *history]
""",
        # A lookup (rules/sources.yaml `lookups`) keyed by the request, in a helper that never sees
        # the user turn, ahead of the rules and the history.
        """
from openai import OpenAI
client = OpenAI()
RULES = "Cite the document ids. Never invent facts. " * 60
def build_system(vector_store, topic: str) -> str:
    notes = vector_store.search(topic)
    return f"Background:\\n{notes}\\n\\n{RULES}"
def reply(vector_store, topic: str, history: list):
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": build_system(vector_store, topic)}, *history])
""",
        """
from datetime import datetime
from openai import OpenAI
client = OpenAI()
POLICY = "Follow the refund policy step by step and cite the relevant section. " * 20
def answer(question: str) -> str:
    system = f"Current time: {datetime.now()}\\n" + POLICY
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
""",
        {
            "app/clock.py": """
import time
def stamp() -> str:
    return f"Request time: {time.time()}"
""",
            "app/bot.py": """
from openai import OpenAI
from app.clock import stamp
client = OpenAI()
def chat(history: list):
    system = "\\n\\n".join([stamp(), "You are a support agent for ACME."])
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history])
""",
        },
        # Judged where it is assembled: a builder with no LLM call in sight.
        """
from datetime import datetime
RULES = "You are the support assistant of a hardware shop. Answer in short paragraphs. " * 40
def build_messages(question: str, history: list) -> list:
    system = f"Current time: {datetime.now():%H:%M:%S}\\n" + RULES
    return [{"role": "system", "content": system}, *history, {"role": "user", "content": question}]
""",
        # An inferred wrapper: the provider class is chosen at runtime; its parameter becomes
        # the system message two frames down.
        {
            "app/providers.py": """
class Provider:
    async def chat(self, system, history):
        history.insert(0, {"role": "system", "content": system})
        return await self.client.chat.completions.create(model=self.model, messages=history)
class Bundle:
    def __init__(self, provider):
        self.provider = provider
    async def chat_delta(self, system, history):
        return await self.provider.chat(system, history)
""",
            "app/dialog.py": """
from datetime import datetime, timezone
async def dialog(bundle, config, messages):
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    return await bundle.chat_delta(f"Now: {stamp}. " + "Answer from the knowledge base. " * 70, messages)
""",
        },
        # Request-derived: documents retrieved for the question, in the system prompt.
        """
from openai import OpenAI
client = OpenAI()
def answer(question: str, retriever) -> str:
    docs = retriever.search(question)
    system = f"Answer from these documents:\\n{docs}\\n" + "Be precise and cite sources. " * 200
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": question}])
""",
        # The conversation so far as a transcript, ahead of the tools and rules of a ReAct step.
        """
from openai import OpenAI
client = OpenAI()
def next_action(history: list) -> str:
    transcript = "\\n".join(f"{m['role']}: {m['content']}" for m in history)
    system = f"Conversation so far:\\n{transcript}\\n" + "Use the tools below and answer in JSON. " * 160
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, {"role": "user", "content": "Next action?"}])
""",
        # A table of the recent turns the conversation object renders (a method of it), formatted
        # by another method into the system prompt ahead of the fixed goal (graphrag's search).
        """
from openai import OpenAI
GOAL = "Answer from the data tables above; list key points with their sources. " * 80
class Search:
    def __init__(self) -> None:
        self.client = OpenAI()
    def context(self, conversation_history) -> str:
        return "Previous turns:\\n" + conversation_history.build_context(max_turns=5)
    def ask(self, query: str, conversation_history) -> str:
        system = self.context(conversation_history) + GOAL
        return self.client.chat.completions.create(model="gpt-4o", messages=[
            {"role": "system", "content": system}, {"role": "user", "content": query}])
""",
        # Memories looked up for this query, inserted as a system message ahead of the messages
        # the conversation already holds: the whole history after it shifts on every turn.
        """
class Memory:
    async def enhance(self, context, query: str):
        memories = await self.store.search(query)
        text = "Relevant memories:\\n" + "\\n".join(f"{i}. {m['memory']}" for i, m in enumerate(memories, 1))
        messages = context.get_messages()
        messages.insert(self.position, {"role": "system", "content": text})
        context.set_messages(messages)
""",
        # A chat template (rules/prompt_sinks.yaml `chat_templates`) that repeats the final user
        # turn's variable in its system text, ahead of the history placeholder: judged where it
        # is built, whatever framework fills it later.
        """
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
RULES = "Answer from the context only and cite the fragment numbers you used. " * 30
prompt = ChatPromptTemplate.from_messages([
    ("system", "The user asks: {question}\\n" + RULES),
    MessagesPlaceholder("chat_history"),
    ("human", "{question}"),
])
""",
        # A model function chosen at runtime, given the system prompt by keyword.
        """
PROMPT = "---Data---\\n{context}\\n---Goal---\\n" + "Answer in the requested format. " * 90
async def local_query(query, store, model_func):
    context = await store.build_context(query)
    return await model_func(query, system_prompt=PROMPT.format(context=context))
""",
        # Agent-loop state: the plan the loop grows is rewritten into the system message
        # (`messages[0]`) on every pass, ahead of the rules and the history.
        """
from openai import OpenAI
client = OpenAI()
RULES = "Follow the action space below exactly. " * 80
def run(task: str, tools: list, max_steps: int = 10):
    messages = [{"role": "system", "content": RULES}, {"role": "user", "content": task}]
    plan = []
    for step in range(max_steps):
        messages[0] = {"role": "system", "content": f"Plan so far: {plan}\\n\\n{RULES}"}
        reply = client.chat.completions.create(model="gpt-4o", messages=messages, tools=tools)
        plan.append(reply.choices[0].message.content)
        messages.append({"role": "assistant", "content": reply.choices[0].message.content})
""",
        # The last step's observation kept on the object: the method that builds the system
        # prompt writes it in, then the loop stores the next one, so every request's system
        # message differs, ahead of the rules and the conversation.
        """
from openai import OpenAI
client = OpenAI()
RULES = "Answer with one browser action per line. " * 80
class BrowserAgent:
    def __init__(self, browser):
        self.browser = browser
        self.observation = ""
        self.messages = []
    def system_prompt(self) -> str:
        return f"Current page:\\n{self.observation}\\n\\n{RULES}"
    def run(self, task: str):
        self.messages.append({"role": "user", "content": task})
        while True:
            reply = client.chat.completions.create(model="gpt-4o", messages=[
                {"role": "system", "content": self.system_prompt()}, *self.messages])
            self.messages.append({"role": "assistant", "content": reply.choices[0].message.content})
            self.observation = self.browser.do(reply.choices[0].message.content)
""",
        # A running summary a loop over a document's chunks carries to the next chunk's request,
        # ahead of the rules every chunk repeats (a "refine" chain).
        """
from openai import OpenAI
client = OpenAI()
RULES = "Keep every number exactly as written; cite the section names you used. " * 100
def summarize(chunks: list[str]) -> str:
    summary = ""
    for chunk in chunks:
        reply = client.chat.completions.create(model="gpt-4o", messages=[
            {"role": "system", "content": f"Summary so far:\\n{summary}\\n\\n{RULES}"},
            {"role": "user", "content": chunk}])
        summary += reply.choices[0].message.content
    return summary
""",
        # Experiences retrieved for the task, unpacked from (experience, score) pairs, kept on the
        # object by one method and written into the system prompt by another, ahead of the
        # conversation (the store is typed `Optional[...] = None`: a caller passes one).
        """
from typing import Optional
from openai import OpenAI
RULES = "Plan one step at a time and name the worker for each step. " * 60
class Planner:
    def __init__(self, store: Optional["ExperienceStore"] = None):
        self.store = store
        self.experiences = []
    def load(self, task: str) -> None:
        self.experiences = [text for text, _ in self.store.retrieve_experience(task)]
    def reply(self, task: str, history: list):
        self.load(task)
        system = RULES + "\\nPast experiences:\\n" + "\\n".join(self.experiences)
        return OpenAI().chat.completions.create(model="gpt-4o", messages=[
            {"role": "system", "content": system}, *history, {"role": "user", "content": task}])
class ExperienceStore:
    def retrieve_experience(self, query: str):
        return [(item, 1.0) for item in self.items]
""",
        # A turn counter another object steps (`self.remaining -= 1` once per turn), read into the
        # system text of a Semantic Kernel prompt function ahead of its fixed rules: every turn's
        # system message differs, and the rules after it are never cached.
        """
from semantic_kernel import Kernel
from semantic_kernel.functions import KernelArguments
RULE = "Ask one question at a time, never repeat a question, and keep the answers in the schema."
PLAN = \"\"\"<message role="system">You plan the next step of the interview. Turns left: {{ turns_left }}.
\"\"\" + "\\n".join([RULE] * 40) + \"\"\"</message>
<message role="user">{{ history }}</message>\"\"\"
class Budget:
    def __init__(self, turns: int):
        self.remaining = turns
    def next_turn(self) -> None:
        self.remaining -= 1
async def plan(kernel: Kernel, budget: Budget, history: str):
    function = kernel.add_function(prompt=PLAN, function_name="plan", plugin_name="interview",
                                   template_format="handlebars")
    arguments = KernelArguments(turns_left=budget.remaining, history=history)
    return await kernel.invoke(function=function, arguments=arguments)
""",
    ]

    def quiet_when_nothing_lost(self, finding: Finding) -> bool:
        # Content the request needs (the question, its documents, a memory, what earlier steps of
        # an agent loop produced or observed) before a tail too short to be cached at any provider
        # the call may reach: moving it gains nothing, so it is the short-tail look-alike of issue
        # 18. A clock or an id stays a warning: it can always move, and the prompt after it may grow.
        source = finding.volatile_source
        return source is not None and source.category in QUIET_WHEN_SHORT

    def check(self, layout: PromptLayout, layout_index: int, context: RuleContext) -> Iterable[Finding]:
        reported: list[_Reported] = []  # the values judged so far in this prompt, first first
        found: list[Finding] = []
        # A value the same for a whole conversation costs the text other conversations would read
        # from the cache; a provider that caches only at breakpoints stores none after the last one.
        marks = breakpoints(layout) if layout.call.provider in context.explicit_cache_providers else []
        shared_until = marks[-1] if marks else None
        for index, part, hole in volatile_holes(layout):
            if part == "tools" or hole.volatility is Volatility.ORDER_UNSTABLE \
                    or part == "final_user" and is_request_content(hole):  # the request: PC010's
                continue
            if hole.category in ORDER_CATEGORIES:
                continue
            rank, family = SCOPE_RANK[hole.volatility], _family(hole.category)
            covering = [r for r in reported if r.covers(rank, family, hole.guard)]
            if covering:
                # The prefix already misses from an earlier value that changes as often: not a
                # finding of its own, but moving only the first value would not fix the prompt.
                noted = next((r.finding for r in reversed(covering) if r.finding is not None), None)
                if noted is not None:
                    found[noted] = _also_changes(found[noted], hole)
                continue
            # A value of another kind as volatile (the memories after the clock), or one added
            # under another option, is a finding of its own: it has its own fix, and a suppression
            # of the first must not hide it.
            judged = _Reported(rank, family, hole.guard, None)
            reported.append(judged)
            per_conversation = hole.volatility in PER_CONVERSATION
            until = shared_until if per_conversation else None
            cut = next_per_request(layout.segments(), index)
            if cut is not None and until is not None and until <= cut:
                cut = None
            after = stable_after(layout, index, until=cut if cut is not None else until)
            if not after.matters(context, shared_only=per_conversation):
                continue
            severity, consequence = _severity(hole, after, layout, index, context)
            if cut is not None and after.chars < LONG_STABLE_CHARS:
                severity, consequence = Severity.INFO, _cut_short(layout, cut, after)
            message = (f"{describe_hole(hole)} comes before {after.describe()} in the "
                       f"`{layout.call.api}` prompt; {consequence}")
            if after.only_assumed and cut is None:
                message += f" (assumed: {after.assumed})"
            reported[-1] = replace(judged, finding=len(found))
            found.append(_with_guard(self.finding(layout, layout_index, index, hole, severity, message), hole))
        return found


def _cut_short(layout: PromptLayout, cut: int, after: StableAfter) -> str:
    """The words for a value followed by little stable text and then one that changes on every
    request: what comes after that one is lost whatever this value does."""
    later = layout.segments()[cut][1]
    assert isinstance(later, Hole)
    return (f"only {characters(after.chars)} of stable text follow before {describe_hole(later)}, which "
            "changes on every request: nothing after it is cached whatever this value does (info)")


def _with_guard(finding: Finding, hole: Hole) -> Finding:
    """The `if` that added the value, named on its finding: a reviewer sees why a value of the same
    kind after another one is a finding of its own (the option that adds it may be on alone)."""
    if hole.guard is None:
        return finding
    note = RelatedLocation(hole.guard, "added to the prompt only when this test holds (an option of its own)",
                           note=True)
    return replace(finding, related=(*finding.related, note))


@dataclass(frozen=True)
class _Reported:
    """A value PC001 judged in a prompt, and the index of its finding (None: too little followed)."""

    rank: int
    family: str
    guard: Location | None
    finding: int | None

    def covers(self, rank: int, family: str, guard: Location | None) -> bool:
        """Whether a later value is part of this one's cause: it changes no more often (the same
        family at the same rank, or less often), and it is in the prompt whenever this one is (this
        one added unconditionally, or under the same option)."""
        as_often = rank < self.rank or rank == self.rank and family == self.family
        return as_often and (self.guard is None or self.guard == guard)


def _family(category: str) -> str:
    """Values the program makes up (a clock, an id) or content (the request's, what was looked up
    or observed): values of one family before the same prompt are one finding (the first, the
    others named on it)."""
    return "made-up" if category in MADE_UP else "content"


def _also_changes(finding: Finding, hole: Hole) -> Finding:
    """A later value that changes as often, listed on the finding of the first: it has to move too."""
    where = hole.origin.location if hole.origin is not None else hole.location
    if where is None or where == finding.location or any(r.location == where for r in finding.related):
        return finding
    note = f"{describe_hole(hole)} also changes here: move it too"
    return replace(finding, related=(*finding.related, RelatedLocation(where, note, note=True)))


def _severity(hole: Hole, after: StableAfter, layout: PromptLayout, index: int,
              context: RuleContext) -> tuple[Severity, str]:
    """How much this value costs, and the words for it: the scope's severity, lowered where the
    loss is small, only assumed, or not paid today."""
    severity = SEVERITY_BY_VOLATILITY[hole.volatility]
    consequence = CONSEQUENCES[hole.volatility]
    if hole.volatility is Volatility.PER_SESSION and after.chars >= LONG_STABLE_CHARS:
        # Set once per conversation (a task, a session's start time) before a long fixed body:
        # every conversation prefills that body again, as a per-user value would make it.
        severity = Severity.WARNING
        consequence = (f"{consequence}; the {after.chars:,} characters of stable text after it are prefilled again "
                       "by every new conversation")
    if severity is Severity.ERROR and (not after.history or after.only_assumed) and after.chars < LONG_STABLE_CHARS:
        severity = Severity.WARNING
    if layout.call.provider in context.explicit_cache_providers and not has_breakpoint(layout):
        # Anthropic and Bedrock cache only at a breakpoint the caller marks: with none, nothing is
        # cached as written. A clock or an id there still stops a breakpoint from ever paying off;
        # content the prompt needs for this request (documents, the question) costs nothing today
        # (bench/wild: such findings were judged false alarms).
        if hole.category in LOOKED_UP:
            return Severity.INFO, ("this call marks no cache breakpoint, so nothing is cached as written and "
                                   "the order costs nothing today (info)")
        return min(severity, Severity.WARNING, key=lambda s: s.rank), (
            "this call marks no cache breakpoint, so nothing is cached as written; a breakpoint pays off "
            "only once the value moves after the stable part")
    if after.only_assumed and (hole.category != RUN_STATE or after.chars < ASSUMED_HISTORY_MIN_CHARS):
        # Judged at an assembly point with little known text after it: whether anything is lost
        # depends on a history that may not exist (one-shot calls), and text of unknown length
        # after it is as likely volatile as stable.
        known = f"only {characters(after.chars)} of known stable text follow{'s' if after.chars == 1 else ''}" \
            if after.chars else "no known stable text follows"
        return Severity.INFO, (f"{known}, so the loss depends on a conversation "
                               "history being sent after it (info)")
    if hole.category not in LOOKED_UP or severity is Severity.INFO:
        return severity, consequence
    repeated = _repeated_after(layout, index)
    if repeated:
        # Instructions stated before the documents and again after them (a "sandwich", so the
        # model reads them next to its task): the repeat is the design, moving it would drop it.
        return Severity.INFO, (f"{consequence}; the {repeated:,} characters of stable text after it repeat "
                               "instructions given before it (a sandwich around the content), so moving it "
                               "would only drop the repeat (info)")
    block = _stable_block_after(layout, index)
    if not after.history and block < ASSUMED_HISTORY_MIN_CHARS:
        # Looked-up content followed by a short instruction and then more request content
        # (`Query: {q}` / one sentence / `{documents}`): moving it would save little.
        return Severity.INFO, (f"{consequence}; only {characters(block)} of stable text follow{'s' if block == 1 else ''} "
                               "it before other request content (info)")
    return severity, consequence


def _repeated_after(layout: PromptLayout, index: int) -> int:
    """Characters of the known text right after a value when most of its lines (of some length)
    were already said before the value in the prompt; 0 otherwise."""
    before: set[str] = set()
    after: list[str] = []
    for position, (_, segment) in enumerate(layout.segments()):
        if position < index and isinstance(segment, Literal):
            before.update(line.strip() for line in segment.text.splitlines())
        elif position > index:
            if isinstance(segment, Hole):
                break
            if isinstance(segment, Literal):
                after.append(segment.text)
    lines = [line.strip() for text in after for line in text.splitlines() if len(line.strip()) >= REPEAT_MIN_LINE]
    if not lines or sum(line in before for line in lines) * 2 < len(lines):
        return 0
    return sum(len(text) for text in after)


def _stable_block_after(layout: PromptLayout, index: int) -> int:
    """Characters of known text right after a value, up to the next value that is not known. More
    of the same looked-up content (each retrieved document's fields, with a bullet between them)
    is part of the value: the block is counted after its last piece."""
    segments = [segment for _, segment in layout.segments()]
    origin = _origin_place(segments[index])
    chars = 0
    past_unknown = False
    for segment in segments[index + 1:]:
        if isinstance(segment, Hole):
            if segment.plainly_unknown:
                # Content the analysis knows nothing of is no evidence of more request content; the
                # same looked-up content after it is the next use of it, not more of the block.
                past_unknown = True
                continue
            if origin is None or _origin_place(segment) != origin or past_unknown:
                break
            chars = 0
        elif isinstance(segment, Literal):
            chars += len(segment.text)
    return chars


def _origin_place(segment: object) -> Location | None:
    return segment.origin.location if isinstance(segment, Hole) and segment.origin is not None else None
