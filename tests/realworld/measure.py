"""Precision and recall of mmaplint on real code bases (Debian source packages).

    python tests/realworld/measure.py [--set dev|heldout|all] [--packages fio,lmdb,...]
        [--frontend both|tree-sitter|clang] [--cache DIR] [--jobs N] [--no-build]

Needs the network (Debian's mirror) and is not part of the test suite.  A package is
measured when it is labelled: in labels.toml (the development set) or in
heldout/<package>.toml (the held-out set, labelled before mmaplint ever ran on it).
Every package is analyzed with the tree-sitter frontend and with the clang frontend as
a user gets it: a package with a build recipe is built once under `bear` and analyzed
with its compilation database (-p), the others without one (clang where a file parses,
tree-sitter where it cannot).  The two sets are scored apart, per frontend; see
README.md beside this file."""
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
# The development packages, measured in this order (some have no labels, or are not served).
PACKAGES = ("fio", "lmdb", "stress-ng", "sqlite3", "varnish", "tokyocabinet", "bonnie++", "gdbm", "rrdtool", "redis", "tdb",
            "bemenu", "vmtouch", "liburing", "blktrace", "numactl")
SETS = {labelled.DEVELOPMENT: "development", labelled.HELDOUT: "held-out"}
FRONTENDS = ("tree-sitter", "clang")
# Builds that take a minute or less here: the commands to run, the last one under bear,
# whose compile_commands.json is the database.  bonnie++'s C++ predates C++17's std::data.
BUILDS = {
    "fio": (["./configure"], ["make"]),
    "lmdb": (["make", "-C", "libraries/liblmdb"],),
    "gdbm": (["./configure"], ["make"]),
    "bonnie++": (["./configure"], ["make", "CFLAGS=-O2 -std=c++14"]),
    # benchmark.py's tree the size of git (a few minutes): its C programs, none of the optional
    # libraries a machine may lack
    "git": (["make", "NO_CURL=1", "NO_EXPAT=1", "NO_GETTEXT=1", "NO_TCLTK=1", "NO_PERL=1", "NO_PYTHON=1"],),
}


@dataclass
class Run:
    package: str
    set: str                   # labelled.DEVELOPMENT or labelled.HELDOUT
    frontend: str              # "tree-sitter" or "clang"
    mode: str                  # how it ran: "tree-sitter", "clang -p" or "clang"
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


def clang_settings(package: str, root: Path, args: argparse.Namespace) -> tuple[str, Settings]:
    """The clang run of a package: with its compilation database when it has a build
    recipe that succeeds here, else as `mmaplint check --frontend auto` without one."""
    database = None
    if package in BUILDS and not args.no_build:
        try:
            database = str(build(root, BUILDS[package], args.jobs))
        except FetchError as exc:
            print(f"{package}: no compilation database ({exc}): clang without one", file=sys.stderr)
    return ("clang -p" if database else "clang",
            Settings(frontend="auto", jobs=args.jobs, select=("ALL",), compile_commands=database))


def measure(package: str, labelled_set: str, root: Path, frontend: str, mode: str, settings: Settings,
            labels: list, rules: set[str]) -> Run:
    started = time.perf_counter()
    report = analyze([str(root)], settings)
    seconds = time.perf_counter() - started
    frontends: dict[str, int] = defaultdict(int)
    for reason in report.frontends.values():
        frontends[reason.split(":")[0]] += 1
    mine = [label for label in labels if label.package == package]
    return Run(package, labelled_set, frontend, mode, seconds, len(report.analyzed),
               count_lines(report.analyzed), dict(frontends), len(report.errors), len(report.findings),
               score(keyed(report.findings, root), mine, rules))


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _figures(tally: Tally) -> str:
    """labels, TP, FP, FN, TN, precision, recall: the columns of every table."""
    return (f"{tally.labels:>6}{tally.tp:>4}{tally.fp:>4}{tally.fn:>4}{tally.tn:>4}"
            f"{_ratio(tally.precision):>11}{_ratio(tally.recall):>8}")


def print_runs(runs: list[Run]) -> None:
    print(f"{'package':<14}{'set':<9}{'mode':<13}{'files':>6}{'lines':>9}{'seconds':>9}{'lines/s':>9}"
          f"{'findings':>9}{'errors':>7}  frontends")
    for run in runs:
        rate = run.lines / run.seconds if run.seconds else 0
        used = ", ".join(f"{name} {n}" for name, n in sorted(run.frontends.items()))
        print(f"{run.package:<14}{run.set:<9}{run.mode:<13}{run.files:>6}{run.lines:>9}{run.seconds:>9.1f}"
              f"{rate:>9.0f}{run.findings:>9}{run.errors:>7}  {used}")


def total(runs: list[Run]) -> tuple[dict[str, Tally], Tally]:
    """Per rule and over all rules, summed over the runs (only rules that ran are scored)."""
    by_rule: dict[str, Tally] = defaultdict(Tally)
    everything = Tally()
    for run in runs:
        for rule, tally in run.score.by_rule.items():
            by_rule[rule].add(tally)
            everything.add(tally)
    return by_rule, everything


def print_scores(title: str, runs: list[Run], labels: list, rules: set[str]) -> None:
    packages = {run.package for run in runs}
    by_rule, everything = total(runs)
    print(f"\n{title}: {', '.join(sorted(packages))}")
    print("rule      labels  TP  FP  FN  TN  precision  recall")
    for rule in sorted({label.rule for label in labels if label.package in packages}):
        if rule not in rules:
            waiting = sum(1 for label in labels if label.rule == rule and label.package in packages)
            print(f"{rule:<10}{waiting:>6}  (rule not registered yet: not run)")
            continue
        print(f"{rule:<10}{_figures(by_rule[rule])}")
    print(f"{'all':<10}{_figures(everything)}")
    for run in runs:
        for label, hits in run.score.false_positives:
            print(f"  FP {run.package}/{label.path}:{hits[0].span.line} {label.function} {label.rule}: {label.reason}")
        for label in run.score.false_negatives:
            print(f"  FN {run.package}/{label.path} {label.function} {label.rule}: {label.reason}")
    for run in runs:
        for (path, function, rule), finding in run.score.unlabelled:
            print(f"  unlabelled {run.package}/{path}:{finding.span.line} {function or '<file scope>'} "
                  f"{rule}: {finding.message}")


def print_summary(runs: list[Run]) -> None:
    """One line per set and frontend: the figures to compare, held-out beside development."""
    print(f"\n{'set':<13}{'frontend':<13}{'labels':>6}{'TP':>4}{'FP':>4}{'FN':>4}{'TN':>4}"
          f"{'precision':>11}{'recall':>8}{'seconds':>9}")
    for labelled_set, name in SETS.items():
        for frontend in FRONTENDS:
            mine = [run for run in runs if run.set == labelled_set and run.frontend == frontend]
            if not mine:
                continue
            _, tally = total(mine)
            print(f"{name:<13}{frontend:<13}{_figures(tally)}{sum(r.seconds for r in mine):>9.1f}")


def packages_to_measure(args: argparse.Namespace, sets: dict[str, str]) -> list[str]:
    """--packages as given, else every labelled package (development first); then only
    those of --set.  A package with no labels counts as development data."""
    if args.packages:
        names = [p.strip() for p in args.packages.split(",") if p.strip()]
    else:
        names = list(dict.fromkeys([*PACKAGES, *(p for p, s in sets.items() if s == labelled.DEVELOPMENT),
                                    *sorted(p for p, s in sets.items() if s == labelled.HELDOUT)]))
    chosen = [p for p in names if args.set == "all" or sets.get(p, labelled.DEVELOPMENT) == args.set]
    for package in names:
        if package not in chosen:
            print(f"{package}: {SETS[sets.get(package, labelled.DEVELOPMENT)]}, not in --set {args.set}: skipped",
                  file=sys.stderr)
    return chosen


def fetched(packages: list[str], sets: dict[str, str], cache: Path):
    """(package, its set, its unpacked source) for each package that can be fetched, saying
    so on stderr; one that cannot is skipped with the reason."""
    apt = Apt(cache)
    for package in packages:
        labelled_set = sets.get(package, labelled.DEVELOPMENT)
        try:
            source = fetch(package, cache, apt)
        except FetchError as exc:
            print(f"{package}: unavailable: {exc}", file=sys.stderr)
            continue
        print(f"{package} {source.version} ({source.suite}, {SETS[labelled_set]}): {source.root}", file=sys.stderr)
        yield package, labelled_set, source


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=(*SETS, "all"), default="all",
                        help="development (labels.toml), held-out (heldout/*.toml) or all packages")
    parser.add_argument("--packages", help="comma-separated Debian source packages (default: every labelled one)")
    parser.add_argument("--frontend", choices=(*FRONTENDS, "both"), default="both")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help=f"download and unpack here ({DEFAULT_CACHE})")
    parser.add_argument("--labels", type=Path, default=HERE / "labels.toml", help="the development labels")
    parser.add_argument("--heldout", type=Path, default=HERE / "heldout", help="the held-out labels, a file per package")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-build", action="store_true", help="run clang without compilation databases")
    args = parser.parse_args(argv)
    try:
        labels, sets = labelled.load_sets(args.labels, args.heldout)
        rules = {rule.id for rule in select_rules(load_rules(), ("ALL",), ())}
    except (labelled.LabelError, UsageError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    frontends = FRONTENDS if args.frontend == "both" else (args.frontend,)
    packages = packages_to_measure(args, sets)
    if not packages:
        print(f"error: no package to measure in --set {args.set}", file=sys.stderr)
        return 2
    runs: list[Run] = []
    for package, labelled_set, source in fetched(packages, sets, args.cache):
        for frontend in frontends:
            if frontend == "tree-sitter":
                mode, settings = "tree-sitter", Settings(frontend="tree-sitter", jobs=args.jobs, select=("ALL",))
            else:
                mode, settings = clang_settings(package, source.root, args)
            runs.append(measure(package, labelled_set, source.root, frontend, mode, settings, labels, rules))
    if not runs:
        print("error: no package could be fetched", file=sys.stderr)
        return 2
    print_runs(runs)
    for labelled_set, name in SETS.items():
        for frontend in frontends:
            mine = [run for run in runs if run.set == labelled_set and run.frontend == frontend]
            if mine:
                print_scores(f"{name}, {frontend}", mine, labels, rules)
    print_summary(runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
