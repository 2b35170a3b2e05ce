"""What each exception of the frequency model pays: the real-code scores with it turned off.

The README's frequency model says which loops repeat with the workload and which guards
make code run less often; every exception to "a loop repeats with the workload" is a
general principle, and one earns its place only if it removes more wrong findings than
right ones.  This script reads each package's facts once (tree-sitter), runs the rules
with the whole model, then once more per exception with that exception turned off, and
prints, per set (development, held-out), the score of each run and what turning the
exception off changed: labelled places that turn reported (the exception had silenced
them) that the labels call wrong (its gain) or right (its cost).  Places no label covers
are not counted, and labels are per function, so a finding moving within one is not seen.

    python tests/realworld/ablation.py --set all --jobs 2
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from collections import defaultdict
from contextlib import ExitStack
from unittest import mock

from mmaplint.analyzer import frequency, iteration
from mmaplint.analyzer.discovery import discover
from mmaplint.analyzer.engine import Settings, analyze_facts, read_facts, select_rules
from mmaplint.analyzer.iteration import Iteration
from mmaplint.analyzer.registry import load_rules

import labels as labelled
from measure import DEFAULT_CACHE, HERE, SETS, fetched, packages_to_measure
from score import Tally, keyed, score


def _off(name: str, value=False):
    """Iteration's method `name` answering `value` (the exception never applies)."""
    return mock.patch.object(Iteration, name, lambda *args, **kwargs: value)


def _none(name: str, value):
    """Iteration's cached property `name` holding `value`."""
    return mock.patch.object(Iteration, name, property(lambda self: value))


# exception -> the patches that turn it off (README, "which loops repeat with the workload")
EXCEPTIONS = {
    "handful: a small constant bound": lambda: [mock.patch.object(frequency, "SMALL_TRIP_COUNT", 0)],
    "handful: a table in the source": lambda: [_off("_walks_table"),
                                               mock.patch.object(frequency, "_table_size", lambda expr: False)],
    "handful: the command line": lambda: [_off("_counts_arguments"), _off("_parses_options"),
                                          mock.patch.object(frequency, "over_arguments", lambda loop: False),
                                          mock.patch.object(iteration, "OPTION_PARSERS", frozenset())],
    "handful: files a pattern matched": lambda: [mock.patch.object(frequency, "PATTERN_MATCH_COUNTS", frozenset())],
    "handful: processors and NUMA nodes": lambda: [_off("_counts_machine"), _off("_visits_machine_directories")],
    "retry of a failed call": lambda: [_off("_retries")],
    "paced by time or a person": lambda: [_none("_paced_loops", frozenset()), _none("_prompt_wrappers", frozenset())],
    "batch guards": lambda: [_off("batched")],
    "batch worked through before the call": lambda: [_off("after_own_loop"), _off("after_batch_on_object")],
    "runs once (flags, tests of what it creates)": lambda: [_off("runs_once")],
    "on the way out of the loop": lambda: [_off("leaves_loop")],
    "a flag that ends the loop": lambda: [_off("_ends_loop")],
    "on a called function's error path": lambda: [_off("_gives_up"), _off("_on_way_out")],
    "before the process ends": lambda: [_off("ends_process")],
    "only while tracing": lambda: [_off("traced")],
    "values the calls pass rule it out": lambda: [_off("_ruled_out")],
    "MML005: flushes in error reporters": lambda: [
        mock.patch("mmaplint.rules.stdio_flush_per_iteration.ERROR_WORDS", frozenset())],
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=(*SETS, "all"), default="all")
    parser.add_argument("--packages", help="comma-separated Debian source packages (default: every labelled one)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--labels", type=Path, default=HERE / "labels.toml")
    parser.add_argument("--heldout", type=Path, default=HERE / "heldout")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    labels, sets = labelled.load_sets(args.labels, args.heldout)
    rules = select_rules(load_rules(), ("ALL",), ())
    rule_ids = {rule.id for rule in rules}
    settings = Settings(frontend="tree-sitter", jobs=args.jobs, select=("ALL",))
    # (set, variant) -> the labels' tally over the set's packages
    tallies: dict[tuple[str, str], Tally] = defaultdict(Tally)
    for package, labelled_set, source in fetched(packages_to_measure(args, sets), sets, args.cache):
        errors: list = []
        facts = read_facts(discover([str(source.root)]).files, settings, errors)
        mine = [label for label in labels if label.package == package]
        for variant in ("whole model", *EXCEPTIONS):
            with ExitStack() as patches:
                for patch in EXCEPTIONS[variant]() if variant in EXCEPTIONS else ():
                    patches.enter_context(patch)
                report = analyze_facts(lambda: facts, rules, settings, list(errors))
            for tally in score(keyed(report.findings, source.root), mine, rule_ids).by_rule.values():
                tallies[(labelled_set, variant)].add(tally)
    for labelled_set, name in SETS.items():
        whole = tallies.get((labelled_set, "whole model"))
        if whole is None:
            continue
        print(f"\n{name}, tree-sitter: the whole model TP {whole.tp} FP {whole.fp} FN {whole.fn} "
              f"precision {_figure(whole.precision)} recall {_figure(whole.recall)}")
        print(f"{'turned off':45} {'TP':>4} {'FP':>4} {'FN':>4} {'prec':>5} {'recall':>6}  "
              f"{'wrong it silences':>17} {'right it silences':>17}  pays")
        for variant in EXCEPTIONS:
            off = tallies[(labelled_set, variant)]
            gained, lost = off.fp - whole.fp, whole.fn - off.fn
            print(f"{variant:45} {off.tp:4} {off.fp:4} {off.fn:4} {_figure(off.precision):>5} "
                  f"{_figure(off.recall):>6}  {gained:17} {lost:17}  "
                  f"{'yes' if gained > lost else 'no' if gained < lost else 'even'}")
    return 0


def _figure(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


if __name__ == "__main__":
    sys.exit(main())
