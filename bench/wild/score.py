"""Score promptlint on bench/wild: pinned public repositories with hand labels and judged findings.

Exports each pinned tree from a local snapshot folder (`git cat-file`, so snapshots that lack
their largest blobs still export), runs `promptlint check --format json` on it, and prints recall
over the bust labels, false alarms on the safe labels, precision over the judged findings, and
findings per 100k lines, per rule, per reach and per kind, plus every miss and false alarm.

Usage: python bench/wild/score.py --snapshots DIR [--trees DIR] [--only owner/name ...]
       [--json] [--write-unjudged FILE] [--promptlint CMD]
This is a benchmark, not a test: CI has no snapshots. The matching logic is tested in
tests/test_wild_scorer.py on a synthetic tree.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shlex
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import yaml

HERE = Path(__file__).resolve().parent
COUNTED_SEVERITIES = ("error", "warning")
VERDICTS = ("bust", "safe")
CLASSES = ("per-request", "per-step", "per-conversation", "per-day", "per-process", "per-deploy", "constant")
# What follows a bust's volatile value, as measured by tail_audit.md (optional): "short" is less
# than the provider minimum of fixed text and no history, a look-alike by issue 18's own rule.
TAILS = ("short", "long", "history")
REACHES = ("direct", "wrapper", "provider-class", "subclass", "builder", "framework", "legacy-api", "http", "template")
KINDS = (
    "clock", "id", "request-derived", "retrieval", "memory", "loop-state", "observation",
    "tool-order", "set-order", "env", "other",
)
# The kinds of bust issue 18 is about (volatility without a clock).
ISSUE18_KINDS = ("request-derived", "retrieval", "memory", "loop-state", "observation")
MESSAGE_KEY_CHARS = 60


class LabelError(ValueError):
    """A label file line that does not follow bench/wild/README.md."""


@dataclass(frozen=True)
class Label:
    id: str
    repo: str
    path: str
    volatile: tuple[int, int]
    lands: tuple[int, int]
    verdict: str
    cls: str
    kind: str
    reach: str
    reason: str
    volatile_path: str
    lands_path: str
    rule: str | None = None
    tail: str | None = None

    def spans(self) -> list[tuple[str, int, int]]:
        return [(self.volatile_path, *self.volatile), (self.lands_path, *self.lands)]


@dataclass(frozen=True)
class Finding:
    repo: str
    path: str
    line: int
    rule: str
    severity: str
    message: str
    source: tuple[str, int] | None = None
    steps: tuple[tuple[str, int], ...] = ()  # the finding's related locations (its value's path)

    @property
    def key(self) -> tuple[str, str, int, str]:
        return (self.repo, self.path, self.line, self.rule)


@dataclass
class Score:
    labels: list[Label]
    findings: list[Finding]
    found: dict[str, list[Finding]] = field(default_factory=dict)
    missed: list[Label] = field(default_factory=list)
    violated: dict[str, list[Finding]] = field(default_factory=dict)
    judged_true: list[Finding] = field(default_factory=list)
    judged_false: list[tuple[Finding, str]] = field(default_factory=list)
    unjudged: list[Finding] = field(default_factory=list)
    # Busts an info finding points at while no warning or error does: seen by the analysis, but
    # judged too small or too uncertain to report by default (never counted as found).
    seen_at_info: dict[str, list[Finding]] = field(default_factory=dict)
    # Busts no finding is located at, while the path of a finding judged true passes through the
    # label's lines (another location convention: the value born at a loop header and placed in a
    # template, where the label names the `.format(...)` call). Never counted as found.
    seen_on_path: dict[str, list[Finding]] = field(default_factory=dict)


def _span(value: Any, where: str) -> tuple[int, int]:
    if isinstance(value, int):
        return (value, value)
    if (
        isinstance(value, list) and len(value) == 2
        and all(isinstance(v, int) and v > 0 for v in value) and value[0] <= value[1]
    ):
        return (value[0], value[1])
    raise LabelError(f"{where}: expected a line or [first, last], got {value!r}")


def parse_label(raw: dict[str, Any], where: str) -> Label:
    """One label from its JSON object; raises LabelError naming the field that is wrong."""
    for key in ("id", "repo", "path", "volatile", "lands", "verdict", "class", "kind", "reach", "reason"):
        if key not in raw:
            raise LabelError(f"{where}: missing {key!r}")
    if raw.get("tail") is not None and raw["tail"] not in TAILS:
        raise LabelError(f"{where}: tail {raw['tail']!r} is not one of {', '.join(TAILS)}")
    for key, allowed in (("verdict", VERDICTS), ("class", CLASSES), ("kind", KINDS), ("reach", REACHES)):
        if raw[key] not in allowed:
            raise LabelError(f"{where}: {key} {raw[key]!r} is not one of {', '.join(allowed)}")
    path = raw["path"]
    return Label(
        id=raw["id"], repo=raw["repo"], path=path,
        volatile=_span(raw["volatile"], f"{where} volatile"), lands=_span(raw["lands"], f"{where} lands"),
        verdict=raw["verdict"], cls=raw["class"], kind=raw["kind"], reach=raw["reach"],
        reason=raw["reason"], volatile_path=raw.get("volatile_path", path),
        lands_path=raw.get("lands_path", path), rule=raw.get("rule"), tail=raw.get("tail"),
    )


def read_jsonl(path: Path) -> Iterable[tuple[str, dict[str, Any]]]:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            where = f"{path.name}:{number}"
            try:
                yield where, json.loads(line)
            except json.JSONDecodeError as exc:
                raise LabelError(f"{where}: not JSON ({exc.msg})") from None


def load_labels(folder: Path) -> list[Label]:
    labels = [parse_label(raw, where) for file in sorted(folder.glob("*.jsonl")) for where, raw in read_jsonl(file)]
    seen = Counter(label.id for label in labels)
    duplicated = sorted(i for i, n in seen.items() if n > 1)
    if duplicated:
        raise LabelError(f"duplicate label ids: {', '.join(duplicated)}")
    return labels


def check_repos(labels: list[Label], manifest: list[dict[str, Any]]) -> None:
    known = {entry["repo"] for entry in manifest}
    for label in labels:
        if label.repo not in known:
            raise LabelError(f"label {label.id}: repository {label.repo} is not in manifest.yaml")


def load_judged(path: Path) -> dict[tuple[str, str, int, str], list[dict[str, Any]]]:
    judged: dict[tuple[str, str, int, str], list[dict[str, Any]]] = defaultdict(list)
    if path.exists():
        for where, raw in read_jsonl(path):
            if raw.get("verdict") not in (True, False):
                raise LabelError(f"{where}: verdict must be true or false")
            judged[(raw["repo"], raw["path"], int(raw["line"]), raw["rule"])].append(raw)
    return judged


def findings_from_report(repo: str, report: dict[str, Any], prefix: str = "") -> list[Finding]:
    """Findings of one `check --format json` report, paths made relative to the repository root."""
    found = []
    for item in report["findings"]:
        source = item.get("volatile_source") or {}
        source_at = (prefix + source["path"], int(source["line"])) if source.get("path") and source.get("line") else None
        steps = tuple((prefix + step["path"], int(step["line"])) for step in item.get("related") or ()
                      if step.get("path") and step.get("line"))
        found.append(Finding(
            repo=repo, path=prefix + item["path"], line=int(item["line"]), rule=item["rule"],
            severity=item["severity"], message=item["message"], source=source_at, steps=steps,
        ))
    return found


def _touches(finding: Finding, path: str, first: int, last: int) -> bool:
    places = [(finding.path, finding.line)] + ([finding.source] if finding.source else [])
    return any(p == path and first <= line <= last for p, line in places)


def matches(finding: Finding, label: Label, spans: list[tuple[str, int, int]] | None = None) -> bool:
    if finding.repo != label.repo or (label.rule and finding.rule != label.rule):
        return False
    return any(_touches(finding, path, first, last) for path, first, last in spans or label.spans())


def _look_alike_spans(label: Label, labels: list[Label]) -> list[tuple[str, int, int]]:
    """Where a finding flags a safe label. A safe label whose origin is also a bust's (one clock
    copied into a frozen system prompt here, written per step into another prompt there) is flagged
    only where it lands: a finding at the shared origin is the bust's."""
    shared = any(other.verdict == "bust" and other.repo == label.repo and other.volatile_path == label.volatile_path
                 and other.volatile[0] <= label.volatile[1] and label.volatile[0] <= other.volatile[1]
                 for other in labels)
    return [(label.lands_path, *label.lands)] if shared else label.spans()


def _judgement(finding: Finding, judged: dict[tuple[str, str, int, str], list[dict[str, Any]]]) -> dict[str, Any] | None:
    candidates = judged.get(finding.key, [])
    for record in candidates:
        if finding.message.startswith(record.get("message_start", "")):
            return record
    return candidates[0] if len(candidates) == 1 and "message_start" not in candidates[0] else None


def score(labels: list[Label], findings: list[Finding], judged: dict[tuple[str, str, int, str], list[dict[str, Any]]]) -> Score:
    counted = [f for f in findings if f.severity in COUNTED_SEVERITIES]
    result = Score(labels=labels, findings=counted)
    for label in labels:
        spans = _look_alike_spans(label, labels) if label.verdict == "safe" else None
        hits = [f for f in counted if matches(f, label, spans)]
        if label.verdict == "bust":
            # A finding judged false at the bust's place is not that bust found (ragflow: a
            # timestamp judged no loss sits on the line where the retrieved knowledge busts it).
            if any((_judgement(f, judged) or {}).get("verdict", True) is not False for f in hits):
                result.found[label.id] = hits
            else:
                result.missed.append(label)
                infos = [f for f in findings if f.severity == "info" and matches(f, label)]
                if infos:
                    result.seen_at_info[label.id] = infos
        elif hits:
            result.violated[label.id] = hits
    for finding in counted:
        record = _judgement(finding, judged)
        if record is None:
            result.unjudged.append(finding)
        elif record["verdict"]:
            result.judged_true.append(finding)
        else:
            result.judged_false.append((finding, record.get("reason", "")))
    for label in result.missed:
        on_path = [f for f in result.judged_true if f.repo == label.repo and any(
            p == path and first <= line <= last for p, line in f.steps for path, first, last in label.spans())]
        if on_path:
            result.seen_on_path[label.id] = on_path
    return result


def ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def summary(result: Score, lines: int) -> dict[str, Any]:
    busts = [label for label in result.labels if label.verdict == "bust"]
    safes = [label for label in result.labels if label.verdict == "safe"]
    judged = len(result.judged_true) + len(result.judged_false)
    short_tails = [label for label in busts if label.tail == "short"]
    long_busts = [label for label in busts if label.tail != "short"]
    own_kinds = [label for label in long_busts if label.kind in ISSUE18_KINDS]
    own_short = [label for label in short_tails if label.kind in ISSUE18_KINDS]

    def recall_by(attribute: str) -> dict[str, dict[str, Any]]:
        groups: dict[str, list[Label]] = defaultdict(list)
        for label in busts:
            groups[getattr(label, attribute)].append(label)
        return {
            name: {"busts": len(group), "found": sum(label.id in result.found for label in group),
                   "recall": ratio(sum(label.id in result.found for label in group), len(group))}
            for name, group in sorted(groups.items())
        }

    by_rule: dict[str, Counter[str]] = defaultdict(Counter)
    for finding in result.judged_true:
        by_rule[finding.rule]["true"] += 1
    for finding, _ in result.judged_false:
        by_rule[finding.rule]["false"] += 1
    for finding in result.unjudged:
        by_rule[finding.rule]["unjudged"] += 1
    return {
        "repos": len({label.repo for label in result.labels}),
        "labels": {"bust": len(busts), "safe": len(safes)},
        "recall": ratio(len(result.found), len(busts)),
        "found": len(result.found),
        "seen_at_info": len(result.seen_at_info),
        "seen_on_path": len(result.seen_on_path),
        "safe_violated": len(result.violated),
        "label_precision": ratio(len(result.found), len(result.found) + len(result.violated)),
        "findings": len(result.findings),
        "judged": judged,
        "judged_true": len(result.judged_true),
        "unjudged": len(result.unjudged),
        "precision": ratio(len(result.judged_true), judged),
        "lines": lines,
        "findings_per_100k_lines": round(len(result.findings) * 100_000 / lines, 2) if lines else None,
        # Issue 18's rule: a bust with only a short tail after it is a look-alike to keep quiet.
        "issue18_rule": {"busts": len(long_busts), "found": sum(label.id in result.found for label in long_busts),
                         "recall": ratio(sum(label.id in result.found for label in long_busts), len(long_busts)),
                         "short_tails": len(short_tails),
                         "short_tails_flagged": sum(label.id in result.found for label in short_tails),
                         # The kinds issue 18 names (no clock, no ordering): its done-when counts these.
                         "own_kinds": {"busts": len(own_kinds), "found": sum(label.id in result.found for label in own_kinds),
                                       "recall": ratio(sum(label.id in result.found for label in own_kinds), len(own_kinds)),
                                       "short_tails": len(own_short),
                                       "short_tails_flagged": sum(label.id in result.found for label in own_short)}},
        "recall_by_reach": recall_by("reach"),
        "recall_by_kind": recall_by("kind"),
        "findings_by_rule": {rule: dict(counts) for rule, counts in sorted(by_rule.items())},
    }


def group_summaries(manifest: list[dict[str, Any]], labels: list[Label], findings: list[Finding],
                    judged: dict[tuple[str, str, int, str], list[dict[str, Any]]],
                    per_repo: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The same figures for the repositories the analyzer was tuned on and for those held out
    (`held_out: <date>` in manifest.yaml: added after the analyzer was written, first scored as
    found), and, when batches were added on several dates, for each batch (`held_out <date>`):
    the latest batch is the one no change has seen yet. Empty when nothing is held out."""
    held = {entry["repo"] for entry in manifest if entry.get("held_out")}
    if not held:
        return {}
    batches: dict[str, set[str]] = defaultdict(set)
    for entry in manifest:
        if entry.get("held_out"):
            batches[f"held_out {entry['held_out']}"].add(entry["repo"])
    groups = {}
    parts = [("tuned", {e["repo"] for e in manifest} - held), ("held_out", held)]
    if len(batches) > 1:
        parts += sorted(batches.items())
    for name, repos in parts:
        result = score([label for label in labels if label.repo in repos],
                       [finding for finding in findings if finding.repo in repos], judged)
        data = summary(result, sum(row["lines"] for repo, row in per_repo.items() if repo in repos))
        groups[name] = {**data, "repos": len(repos & set(per_repo))}
    return groups


# --- exporting and running -------------------------------------------------------------------

def git_dir(snapshots: Path, repo: str) -> Path:
    slug = repo.replace("/", "+")
    for candidate in (snapshots / slug / "repo", snapshots / slug):
        if (candidate / "HEAD").exists() or (candidate / ".git").exists():
            return candidate
    raise FileNotFoundError(f"no snapshot of {repo} under {snapshots} (looked for {slug}/repo and {slug})")


def export_tree(git: Path, commit: str, subtree: str | None, dest: Path) -> int:
    """Write the pinned tree into dest; returns how many files the snapshot lacks (skipped)."""
    marker = dest / ".bench-wild-commit"
    if marker.exists() and marker.read_text().strip() == f"{commit}:{subtree or ''}":
        return int((dest / ".bench-wild-missing").read_text() or 0)
    listing = subprocess.run(
        ["git", "-C", str(git), "ls-tree", "-r", "-z", commit, *([subtree] if subtree else [])],
        check=True, capture_output=True,
    ).stdout.split(b"\0")
    entries = []
    for entry in filter(None, listing):
        meta, name = entry.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind == b"blob" and mode != b"120000":
            entries.append((sha.decode(), name.decode("utf-8", "surrogateescape")))
    batch = subprocess.Popen(
        ["git", "-C", str(git), "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
    )
    missing = 0
    assert batch.stdin and batch.stdout
    for sha, name in entries:
        batch.stdin.write(sha.encode() + b"\n")
        batch.stdin.flush()
        header = batch.stdout.readline().split()
        if header[-1] == b"missing":
            missing += 1
            continue
        body = batch.stdout.read(int(header[2]))
        batch.stdout.read(1)
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)
    batch.stdin.close()
    batch.wait()
    (dest / ".bench-wild-missing").write_text(str(missing))
    marker.write_text(f"{commit}:{subtree or ''}")
    return missing


def count_python_lines(root: Path) -> int:
    total = 0
    for path in root.rglob("*.py"):
        try:
            total += path.read_bytes().count(b"\n")
        except OSError:
            pass
    return total


def run_promptlint(command: list[str], tree: Path, *extra: str) -> tuple[dict[str, Any], float]:
    """`check --format json` run inside the tree, so reported paths are relative to it."""
    started = time.perf_counter()
    done = subprocess.run(
        [*command, "check", "--format", "json", "--no-cache", "--fail-on", "error", *extra, "."],
        capture_output=True, text=True, cwd=tree,
    )
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise RuntimeError(f"promptlint exited {done.returncode} on {tree}: {done.stderr[-2000:]}")
    return json.loads(done.stdout), elapsed


# --- printing --------------------------------------------------------------------------------

def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def print_text(result: Score, data: dict[str, Any], per_repo: dict[str, dict[str, Any]]) -> None:
    print(f"bench/wild: {data['repos']} repositories with labels, {data['labels']['bust']} bust labels, "
          f"{data['labels']['safe']} safe labels, {data['lines']:,} Python lines analyzed")
    print(f"recall   {_pct(data['recall'])}  ({data['found']} of {data['labels']['bust']} busts found)")
    print(f"missed busts an info finding points at: {data['seen_at_info']} (not counted as found)")
    print(f"missed busts the path of a true finding passes through: {data['seen_on_path']} (not counted as found)")
    print(f"safe look-alikes flagged: {data['safe_violated']} of {data['labels']['safe']}")
    print(f"precision over judged findings {_pct(data['precision'])}  ({data['judged_true']} true of "
          f"{data['judged']} judged; {data['unjudged']} of {data['findings']} findings not judged yet)")
    print(f"findings (error+warning) per 100k lines: {data['findings_per_100k_lines']}")
    for name, group in data.get("groups", {}).items():
        title = "the repositories it was tuned on" if name == "tuned" else \
            "held out (added after the analyzer)" if name == "held_out" else f"  batch {name.split()[-1]}"
        print(f"  {title}: {group['repos']} repositories, recall {_pct(group['recall'])} ({group['found']} of "
              f"{group['labels']['bust']}), precision {_pct(group['precision'])} ({group['judged_true']} of "
              f"{group['judged']} judged, {group['unjudged']} not judged), safe flagged {group['safe_violated']} "
              f"of {group['labels']['safe']}")
    rule = data["issue18_rule"]
    print(f"by issue 18's rule (the short tails of tail_audit.md as look-alikes): recall {_pct(rule['recall'])} "
          f"({rule['found']} of {rule['busts']}); short tails flagged: {rule['short_tails_flagged']} of "
          f"{rule['short_tails']}")
    own = rule["own_kinds"]
    print(f"  of its own kinds ({', '.join(ISSUE18_KINDS)}): recall {_pct(own['recall'])} ({own['found']} of "
          f"{own['busts']}); short tails flagged: {own['short_tails_flagged']} of {own['short_tails']}")
    for title, key in (("reach", "recall_by_reach"), ("kind", "recall_by_kind")):
        print(f"\nrecall by {title}:")
        for name, row in data[key].items():
            print(f"  {name:16} {row['found']:3}/{row['busts']:<3} {_pct(row['recall'])}")
    print("\nfindings by rule (judged true / false / unjudged):")
    for rule, counts in data["findings_by_rule"].items():
        print(f"  {rule}: {counts.get('true', 0)} / {counts.get('false', 0)} / {counts.get('unjudged', 0)}")
    peer_names = sorted({key[:-8] for row in per_repo.values() for key in row if key.endswith("_seconds")})
    print("\nper repository: files, lines, seconds, findings, errors" + "".join(f", {p} s" for p in peer_names))
    for repo, row in per_repo.items():
        peers = "".join(f" {row.get(p + '_seconds', 0):8.2f}" for p in peer_names)
        print(f"  {repo:36} {row['files']:6} {row['lines']:9,} {row['seconds']:7.2f} {row['findings']:4} {row['errors']:4}{peers}")
    total = sum(row["seconds"] for row in per_repo.values())
    for peer in peer_names:
        other = sum(row.get(peer + "_seconds", 0) for row in per_repo.values())
        print(f"  total: promptlint {total:.1f} s, {peer} {other:.1f} s ({total / other:.2f}x)" if other else "")
    if result.missed:
        print("\nmissed busts:")
        for label in result.missed:
            info = result.seen_at_info.get(label.id)
            seen = f" (info at {info[0].path}:{info[0].line})" if info else ""
            on_path = result.seen_on_path.get(label.id)
            seen += f" (on the path of {on_path[0].path}:{on_path[0].line})" if on_path else ""
            print(f"  {label.id:24} {label.repo} {label.lands_path}:{label.lands[0]} [{label.reach}/{label.kind}]{seen} "
                  f"{label.reason}")
    if result.violated:
        print("\nsafe look-alikes flagged:")
        for label_id, hits in result.violated.items():
            print(f"  {label_id:24} " + ", ".join(f"{f.rule} {f.path}:{f.line}" for f in hits))
    if result.judged_false:
        print("\nfalse alarms (judged):")
        for finding, reason in result.judged_false:
            print(f"  {finding.rule} {finding.repo} {finding.path}:{finding.line}  {reason}")
    if result.unjudged:
        print("\nnot judged yet:")
        for finding in result.unjudged:
            print(f"  {finding.rule} {finding.severity} {finding.repo} {finding.path}:{finding.line}  {finding.message[:100]}")


def _peer_executables(names: list[str]) -> dict[str, Path]:
    if not names:
        return {}
    spec = importlib.util.spec_from_file_location("run_bench", HERE.parent / "run_bench.py")
    assert spec and spec.loader
    run_bench = importlib.util.module_from_spec(spec)
    sys.modules["run_bench"] = run_bench  # its dataclasses look their module up
    spec.loader.exec_module(run_bench)
    installed = run_bench.ensure_peers()
    return {name: installed[name] for name in names}


def _time_peer(executable: Path, tree: Path) -> float:
    started = time.perf_counter()
    subprocess.run([str(executable), str(tree)], capture_output=True, cwd=tree)
    return time.perf_counter() - started


JUDGED_KEYS = ("repo", "path", "line", "rule", "message_start", "verdict", "reason")


def add_judged(judged: Path, files: list[Path]) -> int:
    """Merge judgements into judged.jsonl: a record replaces an earlier one for the same finding."""
    records: dict[tuple[Any, ...], dict[str, Any]] = {}
    for source in [judged, *files]:
        if source.exists():
            for where, raw in read_jsonl(source):
                if raw.get("verdict") not in (True, False) or not raw.get("reason"):
                    print(f"score.py: {where}: needs a verdict (true/false) and a reason", file=sys.stderr)
                    return 2
                record = {key: raw[key] for key in JUDGED_KEYS if key in raw}
                records[(record["repo"], record["path"], int(record["line"]), record["rule"],
                         record.get("message_start", ""))] = record
    ordered = sorted(records.values(), key=lambda r: (r["repo"], r["path"], int(r["line"]), r["rule"]))
    judged.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ordered), encoding="utf-8")
    print(f"{len(ordered)} judged findings in {judged}")
    return 0


def unjudged_stub(finding: Finding) -> dict[str, Any]:
    return {"repo": finding.repo, "path": finding.path, "line": finding.line, "rule": finding.rule,
            "severity": finding.severity, "message_start": finding.message[:MESSAGE_KEY_CHARS],
            "verdict": None, "reason": ""}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snapshots", type=Path, help="folder of git snapshots (owner+name[/repo])")
    parser.add_argument("--add-judged", type=Path, nargs="+", help="merge judged records (JSONL) into judged.jsonl and stop")
    parser.add_argument("--check-labels", action="store_true", help="only parse labels and judged findings, check line ranges")
    parser.add_argument("--trees", type=Path, help="where to export the pinned trees (default: a temporary folder)")
    parser.add_argument("--manifest", type=Path, default=HERE / "manifest.yaml", help=argparse.SUPPRESS)
    parser.add_argument("--labels", type=Path, default=HERE / "labels", help=argparse.SUPPRESS)
    parser.add_argument("--judged", type=Path, default=HERE / "judged.jsonl", help=argparse.SUPPRESS)
    parser.add_argument("--only", action="append", default=[], help="owner/name; repeatable")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--write-unjudged", type=Path, help="write stubs for unjudged findings (JSONL)")
    parser.add_argument("--reports", type=Path, help="save each repository's JSON report in this folder")
    parser.add_argument("--from-reports", type=Path, help="score the JSON reports saved by --reports instead of running")
    parser.add_argument("--peer", action="append", default=[], choices=["cachedrift", "pcdlint"],
                        help="also time this peer linter on each tree, in the same run (bench/run_bench.py installs it)")
    parser.add_argument("--with-info", action="store_true",
                        help="also run with --show-info (untimed) to list missed busts an info finding points at")
    parser.add_argument("--promptlint", default=f"{shlex.quote(sys.executable)} -m promptlint", help="command to run")
    args = parser.parse_args(argv)

    manifest = yaml.safe_load(args.manifest.read_text())["repos"]
    if args.add_judged:
        return add_judged(args.judged, args.add_judged)
    try:
        labels = load_labels(args.labels)
        judged = load_judged(args.judged)
        check_repos(labels, manifest)
    except LabelError as exc:
        print(f"score.py: {exc}", file=sys.stderr)
        return 2
    if args.check_labels:
        busts = sum(label.verdict == "bust" for label in labels)
        print(f"{len(labels)} labels ({busts} bust, {len(labels) - busts} safe) in "
              f"{len({label.repo for label in labels})} repositories; {sum(map(len, judged.values()))} judged findings")
        return 0
    if args.snapshots is None:
        parser.error("--snapshots is required")
    chosen = [entry for entry in manifest if not args.only or entry["repo"] in args.only]
    if args.only:
        labels = [label for label in labels if label.repo in args.only]
    trees = args.trees or Path(tempfile.mkdtemp(prefix="bench-wild-"))
    command = shlex.split(args.promptlint)
    findings: list[Finding] = []
    per_repo: dict[str, dict[str, Any]] = {}
    peers = _peer_executables(args.peer)
    for entry in chosen:
        repo, subtree = entry["repo"], entry.get("subtree")
        slug = repo.replace("/", "+")
        dest = trees / slug
        missing = export_tree(git_dir(args.snapshots, repo), entry["commit"], subtree, dest)
        analyzed = dest / subtree if subtree else dest
        if args.from_reports:
            saved = json.loads((args.from_reports / f"{slug}.json").read_text())
            report, seconds = saved["report"], saved["seconds"]
        else:
            report, seconds = run_promptlint(command, analyzed)  # timed as a user runs it
            if args.with_info:  # a second, untimed run: what the analysis saw below the default level
                shown, _ = run_promptlint(command, analyzed, "--show-info")
                report = {**report, "findings": report["findings"] + [
                    f for f in shown["findings"] if f["severity"] not in COUNTED_SEVERITIES]}
        if args.reports:
            args.reports.mkdir(parents=True, exist_ok=True)
            (args.reports / f"{slug}.json").write_text(json.dumps({"report": report, "seconds": seconds}))
        prefix = f"{subtree}/" if subtree else ""
        findings += findings_from_report(repo, report, prefix)
        per_repo[repo] = {
            "files": report["summary"]["files_analyzed"], "lines": count_python_lines(analyzed),
            "seconds": round(seconds, 2), "errors": len(report["errors"]),
            "findings": sum(f["severity"] in COUNTED_SEVERITIES for f in report["findings"]),
            "call_sites": report["summary"].get("call_sites"), "snapshot_missing_files": missing,
            **{f"{name}_seconds": round(_time_peer(executable, analyzed), 2) for name, executable in peers.items()},
        }
        print(f"  {repo}: {per_repo[repo]['findings']} findings in {seconds:.1f} s", file=sys.stderr)
    result = score(labels, findings, judged)
    data = summary(result, sum(row["lines"] for row in per_repo.values()))
    data["per_repo"] = per_repo
    data["groups"] = group_summaries(chosen, labels, findings, judged, per_repo)
    if args.write_unjudged:
        with args.write_unjudged.open("w", encoding="utf-8") as out:
            for finding in result.unjudged:
                out.write(json.dumps(unjudged_stub(finding)) + "\n")
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print_text(result, data, per_repo)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
