"""What the reach pass read of a file (promptlint/reach_inputs.py): an edit that changes none of
it keeps the stored reach; the reaching definitions are placed again among the active ones."""

from __future__ import annotations

from promptlint.reach_inputs import FileInputs, file_inputs, flow_names, moved_indices, same_reach

FLOW = (0, "system", "s=system")
ASK = ("ask", frozenset({"create"}), False, (FLOW,))
GO = ("go", frozenset({"ask"}), True, ())
INERT = ("version", frozenset(), True, ())
RELEVANT = frozenset({"create", "ask"})


def inputs(*definitions, called=("ask", "print"), entry=False) -> FileInputs:  # type: ignore[no-untyped-def]
    return file_inputs("sha", entry, called, RELEVANT, definitions)


def test_only_the_deciding_names_a_file_calls_count() -> None:
    assert inputs(GO).called == inputs(GO, called=("ask", "print", "version", "len")).called
    assert inputs(GO).called != inputs(GO, called=("print",)).called  # it no longer calls a wrapper
    assert inputs(GO).called != inputs(GO, entry=True).called  # it became an entry


def test_inert_definitions_are_set_apart_and_active_ones_kept_in_order() -> None:
    record = inputs(INERT, ASK, GO)
    assert record.sha == "sha" and record.active_index == (1, 2) and record.inert == ("version",)
    assert inputs(GO).active != inputs(("go", frozenset({"ask"}), False, ())).active  # callable without arguments
    assert inputs(GO).active != inputs(("went", frozenset({"ask"}), True, ())).active  # renamed
    assert record.active == inputs(ASK, GO).active != inputs(GO, ASK).active
    changed_flow = ("ask", frozenset({"create"}), False, ((0, "system", "s=prompt"),))
    assert inputs(changed_flow, GO).active != inputs(ASK, GO).active
    unparsed = file_inputs("sha", False, ("ask",), RELEVANT, None)
    assert unparsed.active is None and unparsed.sha == "sha"  # not parsed
    assert unparsed.called != file_inputs("sha", False, (), RELEVANT, None).called


def test_an_inert_definition_matters_only_under_a_name_with_flows() -> None:
    flow_named = frozenset(flow_names([(ASK, GO)]))
    assert flow_named == {"ask"}
    assert same_reach(inputs(ASK, GO), inputs(INERT, ASK, GO), flow_named)
    assert not same_reach(inputs(ASK, GO), inputs(("ask", frozenset(), False, ()), ASK, GO), flow_named)
    assert not same_reach(inputs(ASK, GO), inputs(ASK), flow_named)
    assert not same_reach(inputs(GO), inputs(GO, called=("print",)), flow_named)


def test_reaching_definitions_are_placed_again_past_inserted_inert_ones() -> None:
    before, now = inputs(ASK, GO), inputs(INERT, ASK, INERT, GO)
    assert moved_indices((1, 0), before, now) == (3, 1)
    assert moved_indices((-1,), before, now) == (-1,)  # not parsed: stays so
    assert moved_indices((5,), before, now) is None  # not an active definition before: cannot be placed
    assert moved_indices((0,), inputs(INERT, ASK), now) is None


def test_records_survive_their_json_form() -> None:
    for record in (inputs(INERT, ASK, GO), file_inputs(None, True, (), RELEVANT, None)):
        assert FileInputs.from_json(record.to_json()) == record
