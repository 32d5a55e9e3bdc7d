"""The bench/wild scorer's own logic, on a tiny synthetic repository (real git, real promptlint).

The benchmark itself needs snapshots of public repositories and is not run here; these tests pin
what it computes from them: label parsing, export of a pinned commit, matching, and the counts.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

spec = importlib.util.spec_from_file_location("wild_score", REPO / "bench" / "wild" / "score.py")
assert spec and spec.loader
score = importlib.util.module_from_spec(spec)
sys.modules["wild_score"] = score
spec.loader.exec_module(score)

APP = '''\
import datetime
from openai import OpenAI

client = OpenAI()
RULES = """You are the support assistant of a hardware shop. Answer in short paragraphs.
Never promise refunds; point to the returns page instead. Keep a friendly tone.
""" * 40


def answer(question: str) -> str:
    now = datetime.datetime.now().isoformat()
    system = f"Current time: {now}\\n" + RULES
    reply = client.chat.completions.create(
        model="gpt-4o",
        messages=[{"role": "system", "content": system}, {"role": "user", "content": question}],
    )
    return reply.choices[0].message.content


def stamp_last(question: str) -> str:
    when = datetime.datetime.now().isoformat()
    reply = client.chat.completions.create(
        model="gpt-4o",
        messages=[{"role": "system", "content": RULES}, {"role": "user", "content": f"{question} ({when})"}],
    )
    return reply.choices[0].message.content
'''


def label(**overrides: object) -> dict[str, object]:
    base: dict[str, object] = {
        "id": "shop-01", "repo": "acme/shop", "commit": "x", "path": "shop/app.py",
        "volatile": [11, 11], "lands": [12, 12], "verdict": "bust", "class": "per-request",
        "kind": "clock", "reach": "direct", "call": "openai.chat.completions.create",
        "frames": [], "reason": "timestamp ahead of the rules",
    }
    base.update(overrides)
    return base


@pytest.fixture
def snapshot(tmp_path: Path) -> tuple[Path, str]:
    """A git repository `acme+shop/repo` whose pinned commit holds the app under `shop/`."""
    repo = tmp_path / "snapshots" / "acme+shop" / "repo"
    (repo / "shop").mkdir(parents=True)
    (repo / "shop" / "app.py").write_text(APP)
    (repo / "README.md").write_text("not analyzed: outside the subtree\n")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "pinned"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    (repo / "shop" / "app.py").write_text("# a later commit that must not be exported\n")
    subprocess.run([*git, "commit", "-qam", "later"], check=True)
    return tmp_path / "snapshots", commit


def write_inputs(tmp_path: Path, commit: str, labels: list[dict[str, object]], judged: list[dict[str, object]]) -> list[str]:
    (tmp_path / "manifest.yaml").write_text(f"repos:\n  - repo: acme/shop\n    commit: {commit}\n    subtree: shop\n")
    (tmp_path / "labels").mkdir()
    (tmp_path / "labels" / "acme+shop.jsonl").write_text("".join(json.dumps(item) + "\n" for item in labels))
    (tmp_path / "judged.jsonl").write_text("".join(json.dumps(item) + "\n" for item in judged))
    return ["--manifest", str(tmp_path / "manifest.yaml"), "--labels", str(tmp_path / "labels"),
            "--judged", str(tmp_path / "judged.jsonl")]


def test_scores_a_pinned_commit_against_labels_and_judgements(tmp_path: Path, snapshot: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    snapshots, commit = snapshot
    labels = [
        label(),
        label(id="shop-02", volatile=[21, 21], lands=[24, 24], verdict="safe", reason="clock in the final user turn"),
        label(id="shop-03", volatile=[30, 30], lands=[31, 31], reason="a bust the tool cannot see (no such lines)"),
    ]
    options = write_inputs(tmp_path, commit, labels, judged=[])
    assert score.main(["--snapshots", str(snapshots), "--trees", str(tmp_path / "trees"), "--json", *options]) == 0
    data = json.loads(capsys.readouterr().out)

    assert data["labels"] == {"bust": 2, "safe": 1}
    assert data["found"] == 1 and data["recall"] == 0.5
    assert data["safe_violated"] == 0
    assert data["findings"] >= 1 and data["unjudged"] == data["findings"] and data["precision"] is None
    assert data["recall_by_reach"]["direct"] == {"busts": 2, "found": 1, "recall": 0.5}
    assert data["per_repo"]["acme/shop"]["lines"] == APP.count("\n")
    assert not (tmp_path / "trees" / "acme+shop" / "README.md").exists()


def test_judged_findings_give_precision_and_stubs_list_the_rest(tmp_path: Path, snapshot: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    snapshots, commit = snapshot
    options = write_inputs(tmp_path, commit, [label()], judged=[])
    stubs = tmp_path / "stubs.jsonl"
    score.main(["--snapshots", str(snapshots), "--trees", str(tmp_path / "t1"), "--write-unjudged", str(stubs), *options])
    capsys.readouterr()
    records = [json.loads(line) for line in stubs.read_text().splitlines()]
    assert records and all(r["path"] == "shop/app.py" and r["verdict"] is None for r in records)

    judged = [dict(records[0], verdict=True, reason="real")] + [dict(r, verdict=False, reason="no") for r in records[1:]]
    (tmp_path / "judged.jsonl").write_text("".join(json.dumps(r) + "\n" for r in judged))
    score.main(["--snapshots", str(snapshots), "--trees", str(tmp_path / "t2"), "--json", *options])
    data = json.loads(capsys.readouterr().out)
    assert data["unjudged"] == 0 and data["judged"] == len(records)
    assert data["precision"] == pytest.approx(1 / len(records))


def test_matching_uses_the_finding_line_or_its_source_and_the_rule() -> None:
    bust = score.parse_label(label(volatile=[11, 11], lands=[12, 13], rule="PC001"), "t")
    at_landing = score.Finding("acme/shop", "shop/app.py", 13, "PC001", "error", "m")
    at_source = score.Finding("acme/shop", "shop/app.py", 40, "PC001", "error", "m", source=("shop/app.py", 11))
    elsewhere = score.Finding("acme/shop", "shop/app.py", 14, "PC001", "error", "m")
    other_rule = score.Finding("acme/shop", "shop/app.py", 12, "PC002", "error", "m")
    other_repo = score.Finding("acme/other", "shop/app.py", 12, "PC001", "error", "m")
    assert [score.matches(f, bust) for f in (at_landing, at_source, elsewhere, other_rule, other_repo)] == [
        True, True, False, False, False]


def test_info_findings_neither_find_busts_nor_violate_safe_labels() -> None:
    bust = score.parse_label(label(), "t")
    safe = score.parse_label(label(id="s", verdict="safe"), "t")
    info = score.Finding("acme/shop", "shop/app.py", 12, "PC001", "info", "m")
    result = score.score([bust, safe], [info], judged={})
    assert result.missed == [bust] and not result.violated and not result.findings
    # ... but a missed bust they point at is listed as seen at info, apart from the recall.
    assert result.seen_at_info == {bust.id: [info]}
    assert score.summary(result, lines=100)["seen_at_info"] == 1
    assert score.summary(result, lines=100)["found"] == 0


@pytest.mark.parametrize(("change", "complaint"), [
    ({"verdict": "maybe"}, "verdict 'maybe'"),
    ({"volatile": [12, 11]}, "volatile"),
    ({"reach": "telepathy"}, "reach"),
    ({"reason": None}, None),
])
def test_bad_labels_are_named(change: dict[str, object], complaint: str | None) -> None:
    raw = label(**change)
    if raw["reason"] is None:
        del raw["reason"]
        complaint = "missing 'reason'"
    with pytest.raises(score.LabelError, match=complaint):
        score.parse_label(raw, "acme+shop.jsonl:3")


def test_labels_of_an_unknown_repository_or_duplicate_ids_are_refused(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text(json.dumps(label()) + "\n" + json.dumps(label()) + "\n")
    with pytest.raises(score.LabelError, match="duplicate label ids: shop-01"):
        score.load_labels(tmp_path)
    with pytest.raises(score.LabelError, match="not in manifest"):
        score.check_repos([score.parse_label(label(), "t")], [{"repo": "acme/other"}])


def test_committed_labels_and_judgements_parse() -> None:
    assert score.main(["--check-labels"]) == 0


def test_judgements_are_merged_and_a_later_one_replaces_an_earlier(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    judged = tmp_path / "judged.jsonl"
    first = {"repo": "acme/shop", "path": "shop/app.py", "line": 12, "rule": "PC001", "message_start": "per-request",
             "verdict": False, "reason": "first look"}
    judged.write_text(json.dumps(first) + "\n")
    new = tmp_path / "new.jsonl"
    new.write_text(json.dumps(dict(first, verdict=True, reason="read again")) + "\n"
                   + json.dumps(dict(first, line=3, reason="another")) + "\n")
    assert score.add_judged(judged, [new]) == 0
    records = [json.loads(line) for line in judged.read_text().splitlines()]
    assert [(r["line"], r["verdict"], r["reason"]) for r in records] == [(3, False, "another"), (12, True, "read again")]

    new.write_text(json.dumps(dict(first, verdict=None)) + "\n")
    assert score.add_judged(judged, [new]) == 2
    assert "needs a verdict" in capsys.readouterr().err


def test_a_true_findings_path_through_a_missed_bust_is_listed_but_not_counted() -> None:
    """A finding located at a template placeholder, born at a loop header, whose path passes the
    labelled `.format(...)` line: listed apart, only when judged true, never counted as found."""
    bust = score.parse_label(label(volatile=[30, 30], lands=[28, 32], rule="PC001"), "t")
    through = score.Finding("acme/shop", "shop/prompts.py", 5, "PC001", "error", "counter `cycle` ...",
                            source=("shop/app.py", 20), steps=(("shop/app.py", 20), ("shop/app.py", 28)))
    beside = score.Finding("acme/shop", "shop/prompts.py", 9, "PC001", "error", "clock ...",
                           steps=(("shop/app.py", 29),))
    judged = {through.key: [{"verdict": True, "message_start": "counter"}],
              beside.key: [{"verdict": False, "message_start": "clock"}]}
    result = score.score([bust], [through, beside], judged)
    assert result.missed == [bust] and result.seen_on_path == {bust.id: [through]}
    data = score.summary(result, lines=100)
    assert (data["found"], data["seen_on_path"]) == (0, 1)


def test_a_reports_related_locations_become_the_findings_steps() -> None:
    report = {"findings": [{"path": "p.py", "line": 3, "rule": "PC001", "severity": "error", "message": "m",
                            "related": [{"path": "a.py", "line": 7, "message": "x"}, {"path": None, "line": 1}]}]}
    [finding] = score.findings_from_report("acme/shop", report, prefix="sub/")
    assert finding.steps == (("sub/a.py", 7),)


def test_a_bust_is_not_found_by_a_finding_judged_false_at_its_place() -> None:
    """Only a finding not judged false finds a bust: a timestamp judged harmless on the line where
    the retrieved knowledge busts the prompt does not count for the knowledge label."""
    bust = score.parse_label(label(volatile=[11, 11], lands=[12, 13], rule="PC001"), "t")
    wrong = score.Finding("acme/shop", "shop/app.py", 12, "PC001", "error", "clock ...")
    result = score.score([bust], [wrong], {wrong.key: [{"verdict": False, "message_start": "clock"}]})
    assert result.missed == [bust] and not result.found
    right = score.Finding("acme/shop", "shop/app.py", 13, "PC001", "error", "retrieval ...")
    judged = {wrong.key: [{"verdict": False, "message_start": "clock"}]}
    assert score.score([bust], [wrong, right], judged).found == {bust.id: [wrong, right]}


def test_a_safe_label_sharing_a_busts_origin_is_flagged_only_where_it_lands() -> None:
    """MetaGPT: one clock is written per step into one prompt (a bust) and copied once into a
    frozen system prompt elsewhere (a look-alike). A finding on the bust's prompt names the shared
    origin; it finds the bust and does not flag the look-alike. One where the copy lands does."""
    bust = score.parse_label(label(id="b", volatile=[30, 31], lands=[12, 12], path="shop/prompts.py",
                                   volatile_path="shop/app.py"), "t")
    safe = score.parse_label(label(id="s", verdict="safe", volatile=[30, 31], lands=[50, 50], path="shop/role.py",
                                   volatile_path="shop/app.py"), "t")
    at_bust = score.Finding("acme/shop", "shop/prompts.py", 12, "PC001", "error", "m", source=("shop/app.py", 30))
    result = score.score([bust, safe], [at_bust], judged={})
    assert set(result.found) == {"b"} and not result.violated
    at_copy = score.Finding("acme/shop", "shop/role.py", 50, "PC001", "error", "m", source=("shop/app.py", 30))
    assert set(score.score([bust, safe], [at_copy], judged={}).violated) == {"s"}
    # Without a bust at the same origin, a finding there still flags the safe label.
    assert set(score.score([safe], [at_bust], judged={}).violated) == {"s"}


def test_issue_18s_rule_counts_short_tail_busts_apart() -> None:
    """The second figure: busts whose audited tail is short are look-alikes by issue 18's rule,
    left out of its recall and counted as flagged when a finding reports them."""
    long_bust = score.parse_label(label(id="long", volatile=[11, 11], lands=[12, 13], tail="history"), "t")
    short_found = score.parse_label(label(id="short", volatile=[20, 20], lands=[20, 22], tail="short"), "t")
    short_quiet = score.parse_label(label(id="quiet", volatile=[40, 40], lands=[40, 41], tail="short",
                                          kind="retrieval"), "t")
    retrieved = score.parse_label(label(id="docs", volatile=[60, 60], lands=[60, 61], kind="retrieval"), "t")
    findings = [score.Finding("acme/shop", "shop/app.py", 21, "PC001", "warning", "m"),
                score.Finding("acme/shop", "shop/app.py", 60, "PC001", "error", "m")]
    labels = [long_bust, short_found, short_quiet, retrieved]
    rule = score.summary(score.score(labels, findings, {}), lines=100)["issue18_rule"]
    own = rule.pop("own_kinds")
    assert rule == {"busts": 2, "found": 1, "recall": 0.5, "short_tails": 2, "short_tails_flagged": 1}
    # Its own kinds leave the clocks out: one retrieval bust found, one quiet retrieval short tail.
    assert own == {"busts": 1, "found": 1, "recall": 1.0, "short_tails": 1, "short_tails_flagged": 0}
    with pytest.raises(score.LabelError, match="tail 'tiny'"):
        score.parse_label(label(tail="tiny"), "t")


def test_held_out_repositories_are_scored_apart_from_the_tuned_ones() -> None:
    """Repositories marked `held_out` in the manifest get their own recall and precision next to
    those the analyzer was tuned on; with none held out there are no groups."""
    tuned = score.parse_label(label(id="tuned-01"), "t")
    held = score.parse_label(label(id="held-01", repo="acme/new", volatile=[5, 5], lands=[5, 6]), "t")
    findings = [score.Finding("acme/shop", "shop/app.py", 11, "PC001", "error", "m"),
                score.Finding("acme/new", "shop/app.py", 30, "PC001", "warning", "m")]
    judged = {("acme/new", "shop/app.py", 30, "PC001"): [{"verdict": False, "reason": "r", "message_start": ""}]}
    manifest = [{"repo": "acme/shop"}, {"repo": "acme/new", "held_out": "2026-12-04"}]
    per_repo = {"acme/shop": {"lines": 100}, "acme/new": {"lines": 50}}
    groups = score.group_summaries(manifest, [tuned, held], findings, judged, per_repo)
    assert (groups["tuned"]["repos"], groups["tuned"]["found"], groups["tuned"]["unjudged"]) == (1, 1, 1)
    assert (groups["held_out"]["repos"], groups["held_out"]["found"], groups["held_out"]["judged"],
            groups["held_out"]["precision"]) == (1, 0, 1, 0.0)
    assert score.group_summaries([{"repo": "acme/shop"}], [tuned], findings, {}, per_repo) == {}


def test_each_held_out_batch_is_scored_on_its_own_when_there_are_several() -> None:
    """Batches held out on different dates get a group each, next to all held out together: the
    latest batch is the only one no change has been made for."""
    first = score.parse_label(label(id="first-01", repo="acme/first"), "t")
    second = score.parse_label(label(id="second-01", repo="acme/second"), "t")
    findings = [score.Finding("acme/first", "shop/app.py", 11, "PC001", "error", "m")]
    manifest = [{"repo": "acme/shop"}, {"repo": "acme/first", "held_out": "2026-12-04"},
                {"repo": "acme/second", "held_out": "2026-12-05"}]
    per_repo = {"acme/shop": {"lines": 100}, "acme/first": {"lines": 50}, "acme/second": {"lines": 50}}
    groups = score.group_summaries(manifest, [first, second], findings, {}, per_repo)
    assert set(groups) == {"tuned", "held_out", "held_out 2026-12-04", "held_out 2026-12-05"}
    assert (groups["held_out"]["found"], groups["held_out"]["labels"]["bust"]) == (1, 2)
    assert (groups["held_out 2026-12-04"]["found"], groups["held_out 2026-12-05"]["found"]) == (1, 0)
    one_date = [entry for entry in manifest if entry.get("held_out") != "2026-12-05"]
    assert set(score.group_summaries(one_date, [first], findings, {}, per_repo)) == {"tuned", "held_out"}
