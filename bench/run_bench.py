#!/usr/bin/env python3
"""Benchmark promptlint against the other prompt-cache linters on PyPI, on real code.

The corpus is pinned releases of large LLM application frameworks, fetched once from the package
index into ``bench/cache/`` (git-ignored). Each corpus is analyzed by:

  * promptlint, cold (no cache), warm (second run, nothing changed), after touching one file
    (its modification time, as `touch`, a checkout or an editor's save do) and after editing it
    (a comment and a small function appended; restored afterwards). The file is one of the
    modules that import an LLM SDK: the middle one by path;
  * pcdlint and cachedrift, installed into their own virtual environment (``bench/cache/peers-venv``)
    so they never touch promptlint's environment. They keep no cache: one figure each.

Memory is the peak of the summed proportional set size (PSS) of the whole process tree (workers
included; pages a forked worker shares with its parent count once), sampled every 250 ms (a sample of three processes costs ~14 ms of CPU). Times are wall-clock medians of ``--repeat`` runs (peers: ``--peer-repeat``).

    python bench/run_bench.py            # all corpora (about 2.3 million lines; ~15 minutes)
    python bench/run_bench.py --quick    # three small corpora (about 160k lines; ~2 minutes)

This is a script, not a test: it prints a Markdown table (and writes it with ``--markdown``).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
import zipfile
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
CACHE = BENCH / "cache"
DOWNLOADS = CACHE / "dl"
SOURCES = CACHE / "src"
PEERS_VENV = CACHE / "peers-venv"

# name, pinned requirement (wheels: they carry the .py sources)
CORPORA: list[tuple[str, str]] = [
    ("agno", "agno==3.1.10"),
    ("crewai", "crewai==1.15.30"),
    ("langchain-core", "langchain-core==1.8.4"),
    ("langchain", "langchain==1.5.2"),
    ("llama-index-core", "llama-index-core==0.14.25"),
    ("dspy", "dspy==3.4.1"),
    ("litellm", "litellm==1.110.2"),
    ("pydantic-ai-slim", "pydantic-ai-slim==2.68.0"),
    ("openai-agents", "openai-agents==0.24.0"),
]
QUICK = ("langchain-core", "langchain", "dspy")
PEERS = {"pcdlint": "pcdlint==0.3.0", "cachedrift": "cachedrift==0.1.0"}
SDK_IMPORT = re.compile(r"^\s*(?:from|import)\s+(?:openai|anthropic|litellm|google\.genai)\b", re.MULTILINE)
SKIP_DIRS = {"__pycache__", ".promptlint_cache"}
SAMPLE_EVERY_S = 0.25
EDIT = b"\n\n# edited by the benchmark\ndef _edited_by_the_benchmark():\n    return 1\n"


# --- corpus ----------------------------------------------------------------------------------


def fetch_corpus(name: str, requirement: str) -> Path:
    """Download the pinned wheel once and unpack it under bench/cache/src/<name>."""
    target = SOURCES / name
    if (target / ".complete").is_file():
        return target
    DOWNLOADS.mkdir(parents=True, exist_ok=True)
    distribution = requirement.split("==")[0].replace("-", "_").lower()
    wheel = _find_wheel(distribution, requirement.split("==")[1])
    if wheel is None:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary",
                        ":all:", "--python-version", "3.11", requirement, "-d", str(DOWNLOADS)], check=True)
        wheel = _find_wheel(distribution, requirement.split("==")[1])
    assert wheel is not None, f"no wheel for {requirement}"
    shutil.rmtree(target, ignore_errors=True)
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(target)
    (target / ".complete").write_text(requirement + "\n")
    return target


def _find_wheel(distribution: str, version: str) -> Path | None:
    for wheel in DOWNLOADS.glob("*.whl"):
        name, wheel_version = wheel.name.split("-")[:2]
        if name.lower() == distribution and wheel_version == version:
            return wheel
    return None


def ensure_peers() -> dict[str, Path]:
    python = PEERS_VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(PEERS_VENV)], check=True)
    missing = [spec for name, spec in PEERS.items() if not (PEERS_VENV / "bin" / name).exists()]
    if missing:
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", *missing], check=True)
    return {name: PEERS_VENV / "bin" / name for name in PEERS}


def python_files(root: Path) -> list[Path]:
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        found += [Path(folder, f) for f in sorted(files) if f.endswith(".py")]
    return found


def count_lines(files: list[Path]) -> int:
    return sum(path.read_bytes().count(b"\n") for path in files)


def file_to_touch(files: list[Path]) -> Path:
    """The middle one (by path) of the modules that import an LLM SDK: a file a developer of an
    LLM application would edit."""
    candidates = [p for p in files if SDK_IMPORT.search(p.read_text(encoding="utf-8", errors="replace"))]
    return (candidates or files)[len(candidates or files) // 2]


# --- measuring -------------------------------------------------------------------------------


@dataclass
class Run:
    seconds: float
    peak_mib: float
    exit_code: int


def _tree_memory_kib(root_pid: int) -> int:
    """Memory of a process and all its descendants, from /proc: the proportional set size (a page
    shared by a forked worker and its parent counts once), or the resident size where the
    kernel does not report it. Descendants are found through each thread's ``children`` list,
    not a scan of all of /proc: the sampler must not take a core away from what it measures."""
    total, stack, seen = 0, [root_pid], set()
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += _process_memory_kib(pid)
        stack += _children(pid)
    return total


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for thread in threads:
        try:
            with open(f"/proc/{pid}/task/{thread}/children", encoding="ascii") as handle:
                found += [int(child) for child in handle.read().split()]
        except (OSError, ValueError):
            continue
    return found


def _process_memory_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    try:
        with open(f"/proc/{pid}/statm", encoding="ascii") as handle:
            return int(handle.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
    except OSError:
        return 0


def measure(command: list[str], cwd: Path, env: dict[str, str] | None = None, ok: tuple[int, ...] = (0, 1)) -> Run:
    """Wall time and peak memory of one run; ``ok``: the exit codes that mean it did its job
    (cachedrift exits 2 for findings of its "fail" severity, pcdlint for a file it cannot parse)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env={**os.environ, **(env or {})},
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _tree_memory_kib(process.pid))
            done.wait(SAMPLE_EVERY_S)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, stderr = process.communicate()
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    if process.returncode not in ok or b"Traceback" in stderr:
        raise RuntimeError(f"{' '.join(command)} exited {process.returncode}:\n{stderr.decode()[-2000:]}")
    return Run(seconds, peak[0] / 1024, process.returncode)


def promptlint_command(corpus: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "promptlint", "check", str(corpus), "--format", "json", *extra]


PROMPTLINT_ENV = {"PYTHONPATH": str(REPO)}


def snapshot(revision: str) -> Path:
    """promptlint as committed at ``revision``, unpacked under bench/cache: what is measured
    is a commit, untouched by edits made while the benchmark runs."""
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", revision], capture_output=True,
                            text=True, check=True).stdout.strip()
    target = CACHE / f"promptlint-{commit}"
    if not (target / "promptlint" / "__init__.py").is_file():
        target.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(REPO), "archive", commit, "promptlint", "rules"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
        # Bytecode compiled once, as pip does when it installs a wheel (and did for the peers):
        # where PYTHONDONTWRITEBYTECODE is set, every run would otherwise compile ~50 modules.
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(target / "promptlint")], check=True)
    return target


@dataclass
class Figures:
    name: str
    files: int
    lines: int
    touched: str = ""
    cold: list[Run] = field(default_factory=list)
    warm: list[Run] = field(default_factory=list)
    touch: list[Run] = field(default_factory=list)
    edit: list[Run] = field(default_factory=list)
    peers: dict[str, list[Run]] = field(default_factory=dict)


def bench_corpus(name: str, corpus: Path, peers: dict[str, Path], repeat: int, peer_repeat: int) -> Figures:
    files = python_files(corpus)
    figures = Figures(name, len(files), count_lines(files))
    cache_dir = corpus / ".promptlint_cache"
    touched = file_to_touch(files)
    figures.touched = str(touched.relative_to(corpus))
    original = touched.read_bytes()
    for _ in range(repeat):
        shutil.rmtree(cache_dir, ignore_errors=True)
        figures.cold.append(measure(promptlint_command(corpus), corpus, PROMPTLINT_ENV))
        figures.warm.append(measure(promptlint_command(corpus), corpus, PROMPTLINT_ENV))
        os.utime(touched)
        figures.touch.append(measure(promptlint_command(corpus), corpus, PROMPTLINT_ENV))
        try:
            touched.write_bytes(original + EDIT)
            figures.edit.append(measure(promptlint_command(corpus), corpus, PROMPTLINT_ENV))
        finally:
            touched.write_bytes(original)
    shutil.rmtree(cache_dir, ignore_errors=True)
    for peer, executable in peers.items():
        figures.peers[peer] = [measure([str(executable), str(corpus)], corpus, ok=(0, 1, 2))
                               for _ in range(peer_repeat)]
    return figures


# --- reporting -------------------------------------------------------------------------------


def median_time(runs: list[Run]) -> float:
    return statistics.median(r.seconds for r in runs)


def peak(runs: list[Run]) -> float:
    return max(r.peak_mib for r in runs)


def table(all_figures: list[Figures]) -> str:
    peer_names = [p for p in PEERS if all(p in f.peers for f in all_figures)]
    head = ["corpus", "files", "lines", "cold s", "warm s", "touch 1 file s", "edit 1 file s", "peak MiB"]
    for peer in peer_names:
        head += [f"{peer} s", f"{peer} MiB", f"cold ÷ {peer}"]
    rows = [head, ["---"] * len(head)]
    for figures in [*all_figures, _total(all_figures)]:
        cold = median_time(figures.cold)
        row = [figures.name, f"{figures.files:,}", f"{figures.lines:,}", f"{cold:.2f}",
               f"{median_time(figures.warm):.2f}", f"{median_time(figures.touch):.2f}",
               f"{median_time(figures.edit):.2f}", f"{peak([*figures.cold, *figures.warm, *figures.touch, *figures.edit]):.0f}"]
        for peer in peer_names:
            runs = figures.peers[peer]
            row += [f"{median_time(runs):.2f}", f"{peak(runs):.0f}", f"{cold / median_time(runs):.2f}"]
        rows.append(row)
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)


def _total(all_figures: list[Figures]) -> Figures:
    """Sums of the per-corpus medians (a run per corpus, as a user with these repositories would)."""
    def summed(get) -> list[Run]:  # type: ignore[no-untyped-def]
        runs = [get(f) for f in all_figures]
        return [Run(sum(median_time(r) for r in runs), max(peak(r) for r in runs), 0)]

    total = Figures("**total**", sum(f.files for f in all_figures), sum(f.lines for f in all_figures))
    total.cold, total.warm = summed(lambda f: f.cold), summed(lambda f: f.warm)
    total.touch, total.edit = summed(lambda f: f.touch), summed(lambda f: f.edit)
    total.peers = {peer: summed(lambda f, p=peer: f.peers[p]) for peer in PEERS
                   if all(peer in f.peers for f in all_figures)}
    return total


def targets(all_figures: list[Figures]) -> str:
    total = _total(all_figures)
    cold, warm = median_time(total.cold), median_time(total.warm)
    fastest_peer = min((median_time(runs) for runs in total.peers.values()), default=float("nan"))
    # "Under one second per million lines" is read on the largest corpus: on a small one the
    # interpreter's start alone is more than a second per million lines.
    largest = max(all_figures, key=lambda f: f.lines)
    millions = largest.lines / 1e6
    per_million = median_time(largest.touch) / millions
    edit_per_million = median_time(largest.edit) / millions
    memory = peak([r for f in all_figures for r in (*f.cold, *f.warm, *f.touch, *f.edit)])
    checks = [
        (f"cold ≤ fastest peer ({fastest_peer:.1f} s; aim: half)", f"{cold:.1f} s = {cold / fastest_peer:.2f}×",
         cold <= fastest_peer),
        ("warm < 10 % of cold", f"{warm:.2f} s = {100 * warm / cold:.1f} %", warm < 0.1 * cold),
        (f"touch one file < 1 s per million lines ({largest.name}, {millions:.2f} M lines)",
         f"{median_time(largest.touch):.2f} s = {per_million:.2f} s per million lines", per_million < 1.0),
        # Issue 14's own wording is "a one-file edit": a changed file, whose dependents are evaluated again.
        (f"edit one file < 1 s per million lines ({largest.name})",
         f"{median_time(largest.edit):.2f} s = {edit_per_million:.2f} s per million lines", edit_per_million < 1.0),
        ("peak memory < 1 GiB (all processes)", f"{memory:.0f} MiB", memory < 1024),
    ]
    lines = ["| target | measured | met |", "| --- | --- | --- |"]
    lines += [f"| {what} | {value} | {'yes' if ok else 'NO'} |" for what, value, ok in checks]
    return "\n".join(lines)


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    mem_kib = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                   if line.startswith("MemTotal"))
    return f"{os.cpu_count()} CPUs (nproc {len(os.sched_getaffinity(0))}), {cpu}, {mem_kib / 1024 ** 2:.1f} GiB RAM"


def versions(source: str) -> str:
    sys.path.insert(0, str(REPO))
    from promptlint import __version__

    from importlib.metadata import version  # the CLI's start depends on these (typer: see pyproject)

    dependencies = ", ".join(f"{name} {version(name)}" for name in ("typer", "rich", "pyyaml"))
    return (f"promptlint {__version__} ({source}; {dependencies}), Python {platform.python_version()}, "
            + ", ".join(PEERS.values()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK)}")
    parser.add_argument("--corpus", action="append", help="only this corpus (repeatable)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of promptlint per corpus (median)")
    parser.add_argument("--peer-repeat", type=int, default=1, help="runs of each peer per corpus (median)")
    parser.add_argument("--markdown", type=Path, help="also write the report to this file")
    parser.add_argument("--revision", default="HEAD", help="the commit of promptlint to measure (default HEAD)")
    parser.add_argument("--worktree", action="store_true", help="measure the working tree instead of a commit")
    parser.add_argument("--no-peers", action="store_true", help="promptlint only (a quick look while working)")
    args = parser.parse_args()
    chosen = [(n, r) for n, r in CORPORA if (not args.quick or n in QUICK) and (not args.corpus or n in args.corpus)]
    if not args.worktree:
        PROMPTLINT_ENV["PYTHONPATH"] = str(snapshot(args.revision))
    peers = {} if args.no_peers else ensure_peers()
    all_figures = []
    started = time.perf_counter()
    for name, requirement in chosen:
        corpus = fetch_corpus(name, requirement)
        figures = bench_corpus(name, corpus, peers, args.repeat, args.peer_repeat)
        all_figures.append(figures)
        peers_line = ", ".join(f"{p} {median_time(r):.2f} s" for p, r in figures.peers.items())
        print(f"{name}: {figures.lines:,} lines, cold {median_time(figures.cold):.2f} s, warm "
              f"{median_time(figures.warm):.2f} s, touch {median_time(figures.touch):.2f} s, edit "
              f"{median_time(figures.edit):.2f} s ({figures.touched}); "
              f"{peers_line}", file=sys.stderr, flush=True)
    source = "working tree" if args.worktree else "commit " + Path(PROMPTLINT_ENV["PYTHONPATH"]).name.split("-")[-1]
    report = "\n".join([
        f"Date: {date.today().isoformat()}; machine: {machine()}",
        f"Versions: {versions(source)}",
        (f"Corpora: {', '.join(r for n, r in chosen)}; promptlint runs per figure: {args.repeat} (median), "
         f"peers: {args.peer_repeat}; bench wall time {time.perf_counter() - started:.0f} s"),
        "",
        table(all_figures),
        "",
        targets(all_figures),
        "",
        "Touched and edited files: " + "; ".join(f"{f.name}: `{f.touched}`" for f in all_figures),
    ])
    print(report)
    if args.markdown:
        args.markdown.write_text(report + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
