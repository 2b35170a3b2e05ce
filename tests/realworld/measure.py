"""Precision and recall of mmaplint on real code bases (Debian source packages).

    python tests/realworld/measure.py [--packages fio,lmdb,...] [--cache DIR] [--jobs N] [--no-build]

Needs the network (Debian's mirror) and is not part of the test suite.  Every
package is analyzed with the tree-sitter frontend; a package with a build recipe
is also built once under `bear` and analyzed with its compilation database
(clang frontend, tree-sitter where clang cannot parse a file).  Findings are
matched with labels.toml; see README.md beside this file."""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from mmaplint.analyzer.engine import Settings, UsageError, analyze, select_rules
from mmaplint.analyzer.registry import load_rules

import labels as labelled
from score import Score, Tally, keyed, score
from sources import Apt, FetchError, fetch

HERE = Path(__file__).resolve().parent
DEFAULT_CACHE = Path.home() / ".cache" / "mmaplint-realworld"
PACKAGES = ("fio", "lmdb", "stress-ng", "sqlite3", "varnish", "tokyocabinet", "bonnie++", "gdbm", "rrdtool", "redis", "tdb",
            "bemenu", "vmtouch", "liburing", "blktrace", "numactl")
# Builds that take a minute or less here: the commands to run, the last one under bear,
# whose compile_commands.json is the database.  bonnie++'s C++ predates C++17's std::data.
BUILDS = {
    "fio": (["./configure"], ["make"]),
    "lmdb": (["make", "-C", "libraries/liblmdb"],),
    "gdbm": (["./configure"], ["make"]),
    "bonnie++": (["./configure"], ["make", "CFLAGS=-O2 -std=c++14"]),
}


@dataclass
class Run:
    package: str
    mode: str                  # "tree-sitter" or "clang -p"
    seconds: float
    files: int
    lines: int
    frontends: dict[str, int]
    errors: int
    findings: int
    score: Score


def build(root: Path, steps: tuple[list[str], ...], jobs: int) -> Path:
    """compile_commands.json for the package, built once."""
    database = root / "compile_commands.json"
    if database.exists():
        return database
    if shutil.which("bear") is None:
        raise FetchError("bear is not installed (apt-get install bear)")
    *prepare, make = steps
    for command in (*prepare, ["bear", "--", *make, f"-j{jobs}"]):
        done = subprocess.run(command, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if done.returncode != 0:
            raise FetchError(f"{' '.join(command)} failed: {done.stdout.strip().splitlines()[-1:]}")
    return database


def count_lines(paths: list[str]) -> int:
    total = 0
    for path in paths:
        with open(path, "rb") as stream:
            total += stream.read().count(b"\n")
    return total


def measure(package: str, root: Path, mode: str, settings: Settings, labels: list, rules: set[str]) -> Run:
    started = time.perf_counter()
    report = analyze([str(root)], settings)
    seconds = time.perf_counter() - started
    frontends: dict[str, int] = defaultdict(int)
    for reason in report.frontends.values():
        frontends[reason.split(":")[0]] += 1
    mine = [label for label in labels if label.package == package]
    return Run(package, mode, seconds, len(report.analyzed), count_lines(report.analyzed), dict(frontends),
               len(report.errors), len(report.findings), score(keyed(report.findings, root), mine, rules))


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def print_runs(runs: list[Run]) -> None:
    print(f"{'package':<14}{'mode':<13}{'files':>6}{'lines':>9}{'seconds':>9}{'lines/s':>9}"
          f"{'findings':>9}{'errors':>7}  frontends")
    for run in runs:
        rate = run.lines / run.seconds if run.seconds else 0
        used = ", ".join(f"{name} {n}" for name, n in sorted(run.frontends.items()))
        print(f"{run.package:<14}{run.mode:<13}{run.files:>6}{run.lines:>9}{run.seconds:>9.1f}{rate:>9.0f}"
              f"{run.findings:>9}{run.errors:>7}  {used}")


def print_scores(mode: str, runs: list[Run], labels: list, rules: set[str]) -> None:
    packages = {run.package for run in runs}
    total: dict[str, Tally] = defaultdict(Tally)
    for run in runs:
        for rule, tally in run.score.by_rule.items():
            total[rule].add(tally)
    print(f"\nrule      labels  TP  FP  FN  TN  precision  recall   ({mode}: {', '.join(sorted(packages))})")
    everything = Tally()
    for rule in sorted({label.rule for label in labels if label.package in packages}):
        if rule not in rules:
            waiting = sum(1 for label in labels if label.rule == rule and label.package in packages)
            print(f"{rule:<10}{waiting:>6}  (rule not registered yet: not run)")
            continue
        tally = total[rule]
        everything.add(tally)
        print(f"{rule:<10}{tally.labels:>6}{tally.tp:>4}{tally.fp:>4}{tally.fn:>4}{tally.tn:>4}"
              f"{_ratio(tally.precision):>11}{_ratio(tally.recall):>8}")
    print(f"{'all':<10}{everything.labels:>6}{everything.tp:>4}{everything.fp:>4}{everything.fn:>4}"
          f"{everything.tn:>4}{_ratio(everything.precision):>11}{_ratio(everything.recall):>8}")
    for run in runs:
        for label, hits in run.score.false_positives:
            print(f"  FP {run.package}/{label.path}:{hits[0].span.line} {label.function} {label.rule}: {label.reason}")
        for label in run.score.false_negatives:
            print(f"  FN {run.package}/{label.path} {label.function} {label.rule}: {label.reason}")
    for run in runs:
        for (path, function, rule), finding in run.score.unlabelled:
            print(f"  unlabelled {run.package}/{path}:{finding.span.line} {function or '<file scope>'} "
                  f"{rule}: {finding.message}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", default=",".join(PACKAGES), help="comma-separated Debian source packages")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help=f"download and unpack here ({DEFAULT_CACHE})")
    parser.add_argument("--labels", type=Path, default=HERE / "labels.toml")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-build", action="store_true", help="skip the compilation-database runs")
    args = parser.parse_args(argv)
    try:
        labels = labelled.load(args.labels)
        rules = {rule.id for rule in select_rules(load_rules(), ("ALL",), ())}
    except (labelled.LabelError, UsageError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    apt = Apt(args.cache)
    runs: list[Run] = []
    for package in [p.strip() for p in args.packages.split(",") if p.strip()]:
        try:
            source = fetch(package, args.cache, apt)
        except FetchError as exc:
            print(f"{package}: unavailable: {exc}", file=sys.stderr)
            continue
        print(f"{package} {source.version} ({source.suite}): {source.root}", file=sys.stderr)
        runs.append(measure(package, source.root, "tree-sitter",
                            Settings(frontend="tree-sitter", jobs=args.jobs, select=("ALL",)), labels, rules))
        if package in BUILDS and not args.no_build:
            try:
                database = build(source.root, BUILDS[package], args.jobs)
            except FetchError as exc:
                print(f"{package}: no compilation database: {exc}", file=sys.stderr)
                continue
            runs.append(measure(package, source.root, "clang -p",
                                Settings(frontend="auto", jobs=args.jobs, select=("ALL",),
                                         compile_commands=str(database)), labels, rules))
    if not runs:
        print("error: no package could be fetched", file=sys.stderr)
        return 2
    print_runs(runs)
    for mode in dict.fromkeys(run.mode for run in runs):
        print_scores(mode, [run for run in runs if run.mode == mode], labels, rules)
    return 0


if __name__ == "__main__":
    sys.exit(main())
