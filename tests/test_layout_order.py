"""The provider's cache order of one call, built from evaluated values (promptlint/analysis/layout.py).

Every rule reads these layouts: which part a value lands in (tools, system, a history, the final
user turn), in which order, and where cache markers sit. The tests build values by hand and
compare whole parts, so a changed part name, a lost marker or a turn taken for a history fails.
"""

from __future__ import annotations

from promptlint.analysis.layout import (
    ASSUMED_HISTORY,
    argument,
    assembly_layout,
    block_segments,
    blocks_text,
    build_layout,
    call_site,
    content_text,
    history_hole,
    is_assembly,
    mark_final_user,
    message_parts,
    message_role_content,
    messages_layout,
    shape_parts,
    tools_text,
    user_turn_layout,
)
from promptlint.analysis.values import (
    NONE,
    Mapping,
    Ref,
    Obj,
    Seq,
    Splice,
    TemplateVal,
    Text,
    Unknown,
    lit,
    unknown,
)
from promptlint.knowledge import ApiSpec, PartSpec
from promptlint.model import CacheBreakpoint, CallSite, Hole, Literal, Location, Part, PromptLayout, Setting, Via, Volatility

WHERE = Location("app.py", 3, 5, 3, 40)
ELSEWHERE = Location("app.py", 9, 1, 9, 20)
CLOCK = Hole(Volatility.PER_REQUEST, "now", ELSEWHERE)
USER_ID = Hole(Volatility.PER_USER, "user_id", ELSEWHERE)
PARAM = Hole(Volatility.UNKNOWN, "history", ELSEWHERE)
MARK = CacheBreakpoint(WHERE)


def At(text: str) -> Literal:  # noqa: N802 - reads like the Literal it stands for
    """Text the rendering adds (JSON punctuation), placed at the call."""
    return Literal(text, WHERE)


def msg(role: str, content: object) -> Mapping:
    return Mapping((("role", lit(role)), ("content", content)))  # type: ignore[arg-type]


def text(*segs: object) -> Text:
    return Text(tuple(segs))  # type: ignore[arg-type]


# --- finding an argument ---------------------------------------------------------------------


def test_argument_by_keyword_position_receiver_field_and_path() -> None:
    first, second = lit("a"), lit("b")
    owner = Obj("Agent", (("system", lit("owner's")),))
    config = Mapping((("system", lit("from a dict")),))
    settings = Obj("Settings", (("system", lit("from an object")),))
    kwargs = {"messages": lit("m"), "config": config, "settings": settings, "plain": lit("x")}
    assert argument("messages", [first], kwargs, None) == lit("m")
    assert argument("#0", [first, second], kwargs, None) == first
    assert argument("#1", [first, second], kwargs, None) == second
    assert argument("#2", [first, second], kwargs, None) is None
    assert argument("@system", [], kwargs, owner) == lit("owner's")
    assert argument("@system", [], kwargs, None) is None
    assert argument("config.system", [], kwargs, None) == lit("from a dict")
    assert argument("settings.system", [], kwargs, None) == lit("from an object")
    assert argument("config.missing", [], kwargs, None) is None
    assert argument("plain.system", [], kwargs, None) is None  # text has no fields
    assert argument("absent", [], kwargs, None) is None


# --- a whole call ----------------------------------------------------------------------------


SPEC = ApiSpec("anthropic.messages", "anthropic", ("x",), "model",
               (PartSpec("tools", "tools", "tools"), PartSpec("system", "system", "blocks"),
                PartSpec("messages", "messages", "messages")), ("metadata.user_id", "extra", "empty", "gone"))
SITE = CallSite(WHERE, "anthropic.messages", "anthropic", None, "ask")


def test_build_layout_orders_parts_as_the_spec_and_marks_the_final_user_turn() -> None:
    kwargs = {"system": lit("rules"), "tools": NONE,
              "messages": Seq((Splice(PARAM), msg("user", lit("question"))))}
    layout = build_layout(SPEC, SITE, [], kwargs, None)
    assert layout == PromptLayout(SITE, (
        Part("system", (Literal("rules"),), WHERE),
        Part("history", (history_hole(PARAM),), WHERE),
        Part("final_user", (Literal("question"),), WHERE),
    ))


def test_build_layout_settings_prefer_a_volatile_hole_and_skip_missing_values() -> None:
    kwargs = {"system": lit("rules"),
              "metadata": Mapping((("user_id", text(Literal("u-"), USER_ID)),)),
              "extra": text(Literal("fixed"), PARAM), "empty": Text(()), "gone": NONE}
    layout = build_layout(SPEC, SITE, [], kwargs, None)
    assert layout.settings == (Setting("metadata.user_id", USER_ID), Setting("extra", Literal("fixed")),
                               Setting("empty", Literal("", None)))


def test_build_layout_reads_positions_and_the_receiver_for_parts_and_settings() -> None:
    spec = ApiSpec("x.generate", "x", ("x",), None, (PartSpec("system", "@system", "text"),
                                                      PartSpec("prompt", "#0", "text")), ("#1", "@user"))
    owner = Obj("Client", (("system", lit("rules")), ("user", Obj("Thing"))))
    layout = build_layout(spec, SITE, [lit("q"), Unknown(Hole(Volatility.UNKNOWN, "key", None))], {}, owner)
    assert layout.parts == (Part("system", (Literal("rules"),), WHERE), Part("prompt", (Literal("q"),), WHERE))
    # A value with no place of its own is placed at the call; one the analysis cannot read is named.
    assert layout.settings == (Setting("#1", Hole(Volatility.UNKNOWN, "key", WHERE)),
                               Setting("@user", Hole(Volatility.UNKNOWN, "@user", WHERE)))


# --- parts by shape --------------------------------------------------------------------------


def test_tools_shape_renders_each_tool_with_its_order_hole_first_and_markers_after() -> None:
    order = Hole(Volatility.ORDER_UNSTABLE, "set(...)", None)
    tools = Seq((Mapping((("name", lit("a")),)), Mapping((("name", lit("b")), ("cache_control", lit("x")))),
                 Splice(PARAM)), order=order)
    segs = tools_text(tools, WHERE)
    assert segs[0] == Hole(Volatility.ORDER_UNSTABLE, "set(...)", WHERE)  # the call's place, when it has none
    assert segs[1:] == (At("{"), At('"name": '), Literal('"a"'), At("}"),
                        At("{"), At('"name": '), Literal('"b"'), At(', "cache_control": '),
                        Literal('"x"'), At("}"), MARK, PARAM)
    placed = Hole(Volatility.ORDER_UNSTABLE, "set(...)", ELSEWHERE)
    assert tools_text(Seq((), order=placed), WHERE) == (placed,)
    assert shape_parts("tools", "tools", Seq((Mapping((("cache_control", NONE),)),)), WHERE) == [
        Part("tools", (At("{"), At('"cache_control": '), At("null"), At("}"), MARK), WHERE)]
    assert shape_parts("tools", "tools", Obj("ToolBox"), WHERE) == [
        Part("tools", (Hole(Volatility.UNKNOWN, "tools", WHERE),), WHERE)]
    assert tools_text(text(Literal("[...]"), CLOCK), WHERE) == (Literal("[...]"), CLOCK)


def test_json_shape_renders_structures_and_formats_the_rest() -> None:
    assert shape_parts("schema", "json", Seq((lit("a"),)), WHERE) == [
        Part("schema", (At("["), Literal('"a"'), At("]")), WHERE)]
    assert shape_parts("schema", "json", Mapping(()), WHERE) == [
        Part("schema", (At("{"), At("}")), WHERE)]
    assert shape_parts("schema", "json", unknown("s"), WHERE) == [
        Part("schema", (Hole(Volatility.UNKNOWN, "s", WHERE),), WHERE)]


def test_text_shape_keeps_the_part_name() -> None:
    assert shape_parts("prompt", "text", text(Literal("p"), CLOCK), WHERE) == [
        Part("prompt", (Literal("p"), CLOCK), WHERE)]
    assert shape_parts("prompt", "text", Obj("Thing"), WHERE) == [
        Part("prompt", (Hole(Volatility.UNKNOWN, "prompt", WHERE),), WHERE)]


def test_blocks_shape_reads_text_blocks_and_cache_points() -> None:
    blocks = Seq((Mapping((("text", lit("rules")),)), Mapping((("cachePoint", Mapping(())),)),
                  Mapping((("type", lit("text")), ("text", text(CLOCK)), ("cache_control", Mapping(()))))))
    assert shape_parts("system", "blocks", blocks, WHERE) == [
        Part("system", (Literal("rules"), MARK, CLOCK, MARK), WHERE)]
    assert blocks_text(Obj("Thing"), WHERE) == (Hole(Volatility.UNKNOWN, "system", WHERE),)
    assert blocks_text(lit("plain"), WHERE) == (Literal("plain"),)


def test_block_segments_of_each_kind_of_block() -> None:
    assert block_segments(Mapping((("content", lit("c")),)), WHERE) == (Literal("c"),)
    assert block_segments(Mapping((("text", lit("t")), ("content", lit("c")))), WHERE) == (Literal("t"),)
    assert block_segments(Mapping((("type", lit("image")),)), WHERE) == ()
    assert block_segments(Mapping((("text", unknown("t")),)), WHERE) == (Hole(Volatility.UNKNOWN, "t", WHERE),)
    assert block_segments(Mapping((("text", Obj("Thing")),)), WHERE) == (Hole(Volatility.UNKNOWN, "text", WHERE),)
    assert block_segments(Splice(CLOCK), WHERE) == (CLOCK,)
    assert block_segments(Obj("TextBlockParam", (("text", lit("t")), ("cache_control", Mapping(())))), WHERE) == (
        Literal("t"), MARK)
    assert block_segments(Obj("Part", (("content", lit("c")),)), WHERE) == (Literal("c"),)
    assert block_segments(Obj("Part", (("text", lit("t")), ("content", lit("c")))), WHERE) == (Literal("t"),)
    assert block_segments(Obj("Part", (("text", Obj("Inner")),)), WHERE) == (
        Hole(Volatility.UNKNOWN, "text", WHERE),)
    assert block_segments(Obj("Image"), WHERE) == ()
    assert block_segments(unknown("img"), WHERE) == (Hole(Volatility.UNKNOWN, "img", WHERE),)
    assert block_segments(Ref("os.environ"), WHERE) == (Hole(Volatility.UNKNOWN, "block", WHERE),)
    assert block_segments(Obj("Image", args=(lit("x"),)), WHERE) == ()


# --- messages --------------------------------------------------------------------------------


def test_a_text_or_template_for_messages_is_the_final_user_turn() -> None:
    for shape in ("messages", "contents", "converse_messages"):
        assert shape_parts("messages", shape, text(Literal("q "), CLOCK), WHERE) == [
            Part("final_user", (Literal("q "), CLOCK), WHERE)]
        template = TemplateVal("format", text(Literal("Hi {name}")))
        assert shape_parts("messages", shape, template, WHERE) == [Part("final_user", (Literal("Hi {name}"),), WHERE)]
    # A list the analysis cannot see into is a conversation history.
    assert shape_parts("messages", "messages", Unknown(PARAM), WHERE) == [
        Part("history", (history_hole(PARAM),), WHERE)]


def test_gemini_contents_without_turns_are_one_user_turn() -> None:
    contents = Seq((lit("Describe "), Mapping((("text", text(CLOCK)),)), Splice(PARAM)))
    # A splice is a run of turns, so this list holds turns: it is read as messages.
    assert shape_parts("contents", "contents", contents, WHERE) == [
        Part("user", (Literal("Describe "),), WHERE),
        Part("message", (Hole(Volatility.UNKNOWN, "message", WHERE, is_history=True),), WHERE),
        Part("history", (history_hole(PARAM),), WHERE)]
    parts = Seq((lit("Describe "), Mapping((("text", text(CLOCK)),)), Obj("Image"), Obj("Part", (("text", Obj("Uri")),))))
    assert shape_parts("contents", "contents", parts, WHERE) == [
        Part("final_user", (Literal("Describe "), CLOCK, Hole(Volatility.UNKNOWN, "text", WHERE)), WHERE)]
    turns = Seq((Obj("types.Content", (("parts", Seq((lit("a"),))),)), Obj("types.Content", (("parts", lit("b")),))))
    assert shape_parts("contents", "contents", turns, WHERE) == [
        Part("user", (Literal("a"),), WHERE), Part("user", (Literal("b"),), WHERE)]  # build_layout marks the last
    # One message with a role makes the list a list of turns: dicts, message classes, objects with a role.
    for turn in (msg("user", lit("a")), Obj("HumanMessage", (("content", lit("a")),)),
                 Obj("Msg", (("role", lit("user")), ("content", lit("a"))))):
        assert shape_parts("contents", "contents", Seq((turn,)), WHERE) == [Part("user", (Literal("a"),), WHERE)]
    # The same strings as OpenAI messages are turns whose role is not known.
    assert shape_parts("messages", "messages", Seq((lit("a"),)), WHERE) == [Part("user", (Literal("a"),), WHERE)]


def test_message_parts_keep_the_list_order_histories_and_unknown_turns() -> None:
    order = Hole(Volatility.ORDER_UNSTABLE, "set(...)", ELSEWHERE)
    messages = Seq((msg("system", lit("rules")), Splice(PARAM), Splice(CLOCK), unknown("task"), Obj("Thing"),
                    msg("user", Obj("Thing"))), order=order)
    assert message_parts(messages, WHERE) == [
        Part("history", (order,), WHERE),
        Part("system", (Literal("rules"),), WHERE),
        Part("history", (history_hole(PARAM),), WHERE),
        Part("history", (CLOCK,), WHERE),
        Part("message", (Hole(Volatility.UNKNOWN, "task", None, is_history=True),), WHERE),
        Part("message", (Hole(Volatility.UNKNOWN, "message", WHERE, is_history=True),), WHERE),
        Part("user", (Hole(Volatility.UNKNOWN, "content", WHERE),), WHERE),
    ]
    assert message_parts(Unknown(PARAM), WHERE) == [Part("history", (history_hole(PARAM),), WHERE)]
    assert message_parts(lit("q"), WHERE) == [Part("final_user", (Literal("q"),), WHERE)]
    assert message_parts(Obj("Thing"), WHERE) == [Part("final_user", (Hole(Volatility.UNKNOWN, "input", WHERE),), WHERE)]


def test_history_hole_marks_only_stable_or_unknown_runs_as_history() -> None:
    assert history_hole(PARAM) == Hole(Volatility.UNKNOWN, "history", ELSEWHERE, is_history=True)
    assert history_hole(CLOCK) is CLOCK
    assert history_hole(USER_ID) is USER_ID


def test_role_and_content_of_dict_messages() -> None:
    assert message_role_content(msg("system", lit("s"))) == ("system", lit("s"))
    assert message_role_content(msg("developer", lit("s"))) == ("system", lit("s"))
    assert message_role_content(msg("Assistant", lit("a"))) == ("assistant", lit("a"))
    assert message_role_content(msg("narrator", lit("n"))) == ("user", lit("n"))  # an unknown name is a user's
    computed = Mapping((("role", unknown("role")), ("content", lit("c"))))
    assert message_role_content(computed) == ("user", lit("c"))
    assert message_role_content(Mapping((("content", lit("c")),))) == (None, lit("c"))
    assert message_role_content(Mapping((("role", lit("user")), ("parts", lit("p"))))) == ("user", lit("p"))
    assert message_role_content(Mapping((("role", lit("user")), ("text", lit("t"))))) == ("user", lit("t"))
    assert message_role_content(Mapping((("role", lit("user")), ("parts", lit("p")), ("text", lit("t"))))) == (
        "user", lit("p"))
    assert message_role_content(Mapping((("role", lit("user")),))) == ("user", NONE)


def test_role_and_content_of_message_objects_pairs_and_text() -> None:
    assert message_role_content(Obj("SystemMessage", (("content", lit("s")),))) == ("system", lit("s"))
    assert message_role_content(Obj("HumanMessage", args=(lit("h"),))) == ("user", lit("h"))
    assert message_role_content(Obj("AIMessage")) == ("assistant", NONE)
    # An explicit role wins over the class name; an enum member is read by its last name.
    assert message_role_content(Obj("ChatMessage", (("role", lit("MessageRole.SYSTEM")), ("content", lit("s"))))) == (
        "system", lit("s"))
    assert message_role_content(Obj("ChatMessage", (("role", lit("llama_index.MessageRole.SYSTEM")),))) == (
        "system", NONE)
    assert message_role_content(Obj("ChatMessage", (("role", lit("wizard")), ("content", lit("w"))))) == (
        "user", lit("w"))
    assert message_role_content(Obj("Msg", (("role", unknown("r")), ("content", lit("c"))))) == ("user", lit("c"))
    assert message_role_content(Obj("types.Content", (("parts", lit("p")),))) == ("user", lit("p"))
    assert message_role_content(Obj("types.Content", (("content", lit("c")), ("parts", lit("p"))))) == (
        "user", lit("c"))
    assert message_role_content(Obj("Thing", (("content", lit("c")),))) == (None, NONE)
    assert message_role_content(Seq((lit("system"), lit("s")))) == ("system", lit("s"))
    assert message_role_content(Seq((lit("Human"), lit("h")))) == ("user", lit("h"))
    assert message_role_content(Seq((lit("narrator"), lit("n")))) == (None, NONE)
    assert message_role_content(Seq((unknown("r"), lit("n")))) == (None, NONE)
    assert message_role_content(Seq((lit("ai"), unknown("a")))) == ("assistant", unknown("a"))
    assert message_role_content(Seq((lit("system"), lit("s"), lit("x")))) == (None, NONE)
    assert message_role_content(lit("plain")) == ("user", lit("plain"))
    assert message_role_content(unknown("m")) == (None, NONE)


def test_content_text_reads_blocks_or_formats_text() -> None:
    blocks = Seq((Mapping((("type", lit("text")), ("text", lit("a")))), Mapping((("cachePoint", lit("x")),))))
    assert content_text(blocks, WHERE) == (Literal("a"), MARK)
    assert content_text(Obj("Thing"), WHERE) == (Hole(Volatility.UNKNOWN, "content", WHERE),)


def test_the_last_user_message_is_the_final_turn_before_a_literal_prefill() -> None:
    system, user = Part("system", (Literal("s"),)), Part("user", (Literal("q"),))
    final = Part("final_user", (Literal("q"),))
    prefill = Part("assistant", (Literal("{"),))
    open_reply = Part("assistant", (Literal("{"), CLOCK))
    assert mark_final_user([system, user]) == [system, final]
    assert mark_final_user([user]) == [final]
    assert mark_final_user([system, user, prefill]) == [system, final, prefill]
    assert mark_final_user([user, prefill]) == [final, prefill]
    history = Part("history", (PARAM,))
    assert mark_final_user([system, history, user, prefill]) == [system, history, final, prefill]
    assert mark_final_user([system, user, open_reply]) == [system, user, open_reply]
    assert mark_final_user([user, system]) == [user, system]
    assert mark_final_user([prefill]) == [prefill]
    assert mark_final_user([]) == []


# --- layouts judged where they are assembled -------------------------------------------------


def test_assembly_layout_assumes_the_history_unless_the_messages_are_handed_over() -> None:
    site = CallSite(WHERE, "system message (instructions=)", "any", None, "build")
    history = Hole(Volatility.UNKNOWN, "conversation history", WHERE, is_history=True, assumption=ASSUMED_HISTORY)
    assert assembly_layout("instructions=", text(Literal("s"), CLOCK), WHERE, "build") == PromptLayout(
        site, (Part("system", (Literal("s"), CLOCK), WHERE), Part("history", (history,), WHERE)))
    handed = Seq((Splice(PARAM), msg("user", lit("q"))))
    assert assembly_layout("instructions=", lit("s"), WHERE, "build", messages=handed) == PromptLayout(
        site, (Part("system", (Literal("s"),), WHERE), Part("history", (history_hole(PARAM),), WHERE),
               Part("final_user", (Literal("q"),), WHERE)))
    assert is_assembly(site)
    assert assembly_layout("instructions=", Obj("Thing"), WHERE, "build").parts[0] == Part(
        "system", (Hole(Volatility.UNKNOWN, "content", WHERE),), WHERE)


def test_messages_layout_is_the_list_in_its_own_order() -> None:
    layout = messages_layout("chat(messages)", Seq((msg("system", text(CLOCK)), msg("user", lit("q")))), WHERE, "run")
    assert layout == PromptLayout(CallSite(WHERE, "message list (chat(messages))", "any", None, "run"), (
        Part("system", (CLOCK,), WHERE), Part("final_user", (Literal("q"),), WHERE)))
    assert is_assembly(layout.call)


def test_a_prompt_handed_to_a_wrapper_keeps_the_wrappers_name_and_the_model_named() -> None:
    via = Via("chat_anthropic", "claude-opus-4-5")
    handed = assembly_layout("system text passed to chat_anthropic()", lit("s"), WHERE, "review", via=via)
    assert handed.call == CallSite(WHERE, "system message (system text passed to chat_anthropic())", "any",
                                   "claude-opus-4-5", "review", via="chat_anthropic")
    listed = messages_layout("messages passed to chat()", Seq((msg("user", lit("q")),)), WHERE, "run", Via("chat"))
    assert (listed.call.via, listed.call.model, listed.call.api) == ("chat", None, "message list (messages passed to chat())")
    turn = user_turn_layout("user text passed to ask()", lit("q"), WHERE, "run", Via("ask", "gpt-4o"))
    assert turn.call == CallSite(WHERE, "user message (user text passed to ask())", "any", "gpt-4o", "run", via="ask")
    assert is_assembly(handed.call) and is_assembly(listed.call) and is_assembly(turn.call)
    assert assembly_layout("role dict", lit("s"), WHERE, "build").call.via is None


def test_only_assembly_points_are_assembly_points() -> None:
    assert not is_assembly(SITE)
    assert not is_assembly(CallSite(WHERE, "system message (x)", "openai"))
    assert not is_assembly(CallSite(WHERE, "openai.chat.completions", "any"))


# --- the call site ---------------------------------------------------------------------------


def test_call_site_reads_the_model_from_the_call_or_the_client_object() -> None:
    site = call_site(None, None, SPEC, {"model": lit("claude-x")}, None, WHERE, "ask")  # type: ignore[arg-type]
    assert site == CallSite(WHERE, "anthropic.messages", "anthropic", "claude-x", "ask")
    for field in ("model", "model_name", "model_id"):
        owner = Obj("ChatAnthropic", ((field, lit("claude-y")),))
        assert call_site(None, None, SPEC, {}, owner, WHERE, "ask").model == "claude-y"  # type: ignore[arg-type]
    assert call_site(None, None, SPEC, {"model": unknown("m")}, None, WHERE, "ask").model is None  # type: ignore[arg-type]
    assert call_site(None, None, SPEC, {}, Obj("Client"), WHERE, "ask").model is None  # type: ignore[arg-type]
    owner = Obj("ChatAnthropic", (("model", lit("claude-y")),))
    assert call_site(None, None, SPEC, {"model": lit("claude-x")}, owner, WHERE, "ask").model == "claude-x"  # type: ignore[arg-type]
    unnamed = ApiSpec("x.y", "x", ("x",), None, ())
    owner = Obj("Client", (("model", lit("m")),))
    assert call_site(None, None, unnamed, {"model": lit("m")}, owner, WHERE, "f") == CallSite(  # type: ignore[arg-type]
        WHERE, "x.y", "x", None, "f")


def test_values_hash_once_and_never_carry_the_hash_to_another_process() -> None:
    """Values are memo keys (a call's arguments): their hash is kept on the object, but a copy
    sent to a worker (pickled) hashes again there, where strings hash differently."""
    import pickle
    import subprocess
    import sys

    from promptlint.analysis.values import Seq, Text

    value = Seq((Text((Literal("rules ", None), Hole(Volatility.PER_REQUEST, "now()", None))),))
    assert hash(value) == hash(value) and "_hash" in value.__dict__
    assert "_hash" not in pickle.loads(pickle.dumps(value)).__dict__
    check = ("import pickle, sys\n"
             "from promptlint.analysis.values import Seq, Text\n"
             "from promptlint.model import Hole, Literal, Volatility\n"
             "copy = pickle.loads(sys.stdin.buffer.read())\n"
             "fresh = Seq((Text((Literal('rules ', None), Hole(Volatility.PER_REQUEST, 'now()', None))),))\n"
             "assert {fresh: 1}[copy] == 1 and hash(copy) == hash(fresh)\n")
    done = subprocess.run([sys.executable, "-c", check], input=pickle.dumps(value), capture_output=True,
                          env={**__import__("os").environ, "PYTHONHASHSEED": "12345"})
    assert done.returncode == 0, done.stderr.decode()


def test_recording_a_step_leaves_a_value_without_volatile_holes_as_it_is() -> None:
    """A number stays a number (`"-" * width` after `width = 40` repeats), and the same object
    is kept, with its cached hash, when no hole is volatile."""
    from promptlint.analysis.values import Number, Text, add_step
    from promptlint.model import Step

    step = Step(Location("app.py", 3, 1, 3, 6), "assigned to `width`")
    number = Number((Literal("40", None),))
    assert add_step(number, step) is number
    text = Text((Literal("Hello ", None), Hole(Volatility.UNKNOWN, "name", None)))
    assert add_step(text, step) is text
    dated = Text((Hole(Volatility.PER_REQUEST, "now()", None),))
    assert add_step(dated, step).segs[0].path == (step,)
