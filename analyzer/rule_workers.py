"""The rules of one run spread over worker processes, each forked from the process that holds
the program, so that a large program's rules take about the time of the costliest rather
than of all of them.

A worker inherits the program as the parent built it, the analysis every rule asks first
included (Program.prepare: built once here, not once per worker), and sends back the hits
of each rule it is given; the parent takes them in the rules' order, so a run's findings do
not depend on which worker ran which rule.  The rules that ask one of the program's other
costly analyses (a rule's ANALYSES: where mapped addresses flow) go to one worker together,
first, which builds it once while the others run the rest: built in the parent before the
fork, it kept every worker waiting (git: 2.1 s of a 5.2 s rules phase on two workers).
What the workers touch of the program is copied as they touch it, and a worker costs a
fork: a small program's rules, which take well under a second, stay in the parent.
"""
from __future__ import annotations

import gc
from typing import Callable, Iterator

from . import workers
from .program import Program
from .registry import Hit, Rule

# Below this many calls (written in the source) in the program the rules run in the parent.
# Two workers took a warm run of sqlite's tree (64,000 calls) and of git's (81,000) from 1 to
# 0.81 of its time, and gained nothing measurable on fio (18,000), dpkg (14,000) or lmdb (2,000):
# there the mapping analysis, built before the workers start, is most of the rules' time, or
# the rules take less than a fork and the copies it makes.
PARALLEL_CALLS = 20_000
# The rules have no time or memory budget: what a file may cost is the parse's limit.
_UNBOUNDED = workers.Budget(float("inf"), 2**62)


def rule_results(program: Program, rules: list[Rule], jobs: int,
                 checked: Callable[[], None]) -> Iterator[tuple[Rule, list[Hit] | str]]:
    """Each rule's hits, or the one line saying what stopped it, in the rules' order; in
    `jobs` workers when there are more than one and the program is large enough."""
    if jobs < 2 or len(rules) < 2 or sum(len(f.calls) for f in program.files.values()) < PARALLEL_CALLS:
        yield from in_process(program, rules, checked)
        return
    program.prepare()
    tasks = _tasks(rules)

    def run(task: int) -> list[list[Hit] | str]:
        # Collection stays off while rules run, as in the parent (engine.uncollected): the
        # analyses a rule builds live to its end and hold no cycles, and each collection
        # would walk them again (what the worker inherits is already out of its reach).
        gc.disable()
        return [rule_hits(rules[index], program) for index in tasks[task]]
    results: dict[int, list[Hit] | str] = {}
    with workers.Pool(run, min(jobs, len(tasks)), _UNBOUNDED) as pool:
        for task in range(len(tasks)):
            pool.submit(task, (task,))
        for task, outcome in pool.completed():
            for position, index in enumerate(tasks[task]):
                checked()
                results[index] = _failure(outcome) if isinstance(outcome, workers.Failure) else outcome[position]
    for index, rule in enumerate(rules):
        yield rule, results[index]


def _tasks(rules: list[Rule]) -> list[list[int]]:
    """The rules (by index) each worker task runs: those asking a costly analysis together
    with every other rule that asks one they share, these groups first (the longest tasks,
    begun first, end with the rest); every other rule alone."""
    groups: list[tuple[set[str], list[int]]] = []
    alone: list[list[int]] = []
    for index, rule in enumerate(rules):
        if not rule.analyses:
            alone.append([index])
            continue
        joined = [g for g in groups if g[0] & rule.analyses]
        analyses, members = set(rule.analyses), [index]
        for group in joined:
            groups.remove(group)
            analyses |= group[0]
            members += group[1]
        groups.append((analyses, sorted(members)))
    return [members for _, members in groups] + alone


def in_process(program: Program, rules: list[Rule], checked: Callable[[], None],
               **context) -> Iterator[tuple[Rule, list[Hit] | str]]:
    """Each rule's hits (or what stopped it), run here in turn; `context`: what else their
    checks take."""
    for rule in rules:
        checked()
        yield rule, rule_hits(rule, program, **context)


def rule_hits(rule: Rule, program: Program, **context) -> list[Hit] | str:
    """A rule's hits, or what stopped it in one line (a rule's bug, a plugin's too, must not
    end the run); `context`: what else its check takes (the run, for a rule about it)."""
    try:
        return list(rule.check(program, **context))
    except Exception as exc:   # noqa: BLE001 - see above
        return f"{type(exc).__name__}: {exc}"


def _failure(failure: workers.Failure) -> str:
    """What ended a worker before it sent a rule's hits (killed by the system when out of
    memory, hits a plugin made that cannot be sent)."""
    if isinstance(failure, workers.Died):
        return f"its worker process ended ({failure.how()})"
    if isinstance(failure, workers.OutOfMemory):
        return "its worker process ran out of memory"
    return str(getattr(failure, "error", failure))
