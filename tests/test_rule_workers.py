"""The rules spread over worker processes (rule_workers.py) find what they find in one
process, report a rule's failure the same way, and are used only for a program large
enough to pay for them."""
from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from mmaplint.analyzer import engine, rule_workers
from mmaplint.analyzer.engine import Settings, analyze, parse_file, select_rules
from mmaplint.analyzer.facts import EVERY_CALL
from mmaplint.analyzer.program import Program
from mmaplint.analyzer.registry import Hit, load_rules
from mmaplint.analyzer.rule_workers import rule_results

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def pools(monkeypatch) -> list:
    """The worker pools the rules start (each pool's job count; the parse has its own)."""
    started = []

    class Counted(rule_workers.workers.Pool):
        def __init__(self, function, jobs, budget):
            if function is not engine._parse_encoded:
                started.append(jobs)
            super().__init__(function, jobs, budget)
    monkeypatch.setattr(rule_workers.workers, "Pool", Counted)
    return started


def _run(paths: list[Path], jobs: int, rules=None):
    report = analyze([str(p) for p in paths], Settings(frontend="tree-sitter", jobs=jobs), rules)
    return ([(f.rule, f.span, f.message, f.related) for f in report.findings],
            [(e.path, e.message) for e in report.errors])


def test_the_findings_of_every_fixture_are_the_same_in_workers(monkeypatch, pools) -> None:
    alone = _run([FIXTURES], jobs=1)
    assert pools == [] and len(alone[0]) > 100
    monkeypatch.setattr(rule_workers, "PARALLEL_CALLS", 0)
    assert _run([FIXTURES], jobs=2) == alone
    assert pools == [2]


def _broken(rule_id: str, how):
    def check(program):
        how()
        yield
    return [replace(r, check=check) if r.id == rule_id else r
            for r in select_rules(load_rules(), ("MML001", "MML005"), ())]


def _raise() -> None:
    raise ValueError("simulated")


def test_a_rule_that_raises_in_a_worker_is_reported_as_in_one_process(monkeypatch, pools) -> None:
    monkeypatch.setattr(rule_workers, "PARALLEL_CALLS", 0)
    program = [FIXTURES / "MML001_msync_in_loop.c"]
    alone = _run(program, jobs=1, rules=_broken("MML005", _raise))
    assert alone[1] == [("<rule MML005>", "internal error in rule MML005 (ValueError: simulated); "
                                           "its findings are missing")]
    assert {f[0] for f in alone[0]} == {"MML001"}
    assert _run(program, jobs=2, rules=_broken("MML005", _raise)) == alone
    assert pools == [2]


def test_a_worker_that_dies_costs_its_rule_alone(monkeypatch, pools) -> None:
    monkeypatch.setattr(rule_workers, "PARALLEL_CALLS", 0)
    program = [FIXTURES / "MML001_msync_in_loop.c"]
    findings, errors = _run(program, jobs=2, rules=_broken("MML005", lambda: os._exit(3)))
    assert errors == [("<rule MML005>", "internal error in rule MML005 (its worker process ended "
                                        "(exit status 3)); its findings are missing")]
    assert findings == _run(program, jobs=1, rules=_broken("MML005", _raise))[0]
    assert pools == [2]


def test_a_small_program_keeps_its_rules_in_process(pools) -> None:
    assert _run([FIXTURES / "MML001_msync_in_loop.c"], jobs=2)[0]
    assert pools == []


def _named(rule_id: str, analyses: set[str]):
    rule = load_rules()["MML001"]
    return replace(rule, id=rule_id, analyses=frozenset(analyses))


def test_rules_sharing_a_costly_analysis_are_one_task_begun_first() -> None:
    rules = [_named("A", set()), _named("B", {"provenance"}), _named("C", {"x"}),
             _named("D", set()), _named("E", {"x", "provenance"}), _named("F", {"y"})]
    assert rule_workers._tasks(rules) == [[1, 2, 4], [5], [0], [3]]


def test_the_rules_asking_where_mapped_addresses_flow_run_in_one_worker(monkeypatch) -> None:
    """Each builds the analysis where it runs, unless built there already: together, it is
    built once, in a worker, not in the parent before the fork."""
    asking = sorted(r.id for r in load_rules().values() if "provenance" in r.analyses)
    assert set(asking) >= {"MML001", "MML003", "MML006"}

    def where(rule):
        def check(program):
            built = "provenance" in vars(program)
            yield from rule.check(program)
            yield Hit(program.files[path].calls[0].span, f"{os.getpid()} {built}")
        return replace(rule, check=check)
    path = str(FIXTURES / "MML003_cursor_parameter.c")
    program = Program([parse_file(path, Settings(frontend="tree-sitter"), frozenset({EVERY_CALL}))])
    assert program.mappings
    monkeypatch.setattr(rule_workers, "PARALLEL_CALLS", 0)
    rules = [where(r) for r in select_rules(load_rules(), None, ())]
    ran = {rule.id: hits[-1].message.split() for rule, hits in rule_results(program, rules, 2, lambda: None)}
    assert len({ran[rule][0] for rule in asking}) == 1
    assert [ran[rule][1] for rule in asking] == ["False"] + ["True"] * (len(asking) - 1)
    assert str(os.getpid()) not in {pid for pid, _ in ran.values()} and "provenance" not in vars(program)


def test_the_largest_files_are_parsed_first(monkeypatch, tmp_path) -> None:
    """A large file begun last would keep the run waiting on it alone at the end."""
    sizes = {"a.c": 10, "b.c": 300, "c.c": 20, "d.c": 4000}
    for name, size in sizes.items():
        (tmp_path / name).write_text("int x;\n" + "/* */\n" * (size // 6))
    order = []

    class Recorded(rule_workers.workers.Pool):
        def submit(self, key, args):
            order.append(Path(args[0]).name)
            super().submit(key, args)
    monkeypatch.setattr(rule_workers.workers, "Pool", Recorded)
    report = analyze([str(tmp_path)], Settings(frontend="tree-sitter", jobs=2))
    assert order == ["d.c", "b.c", "c.c", "a.c"]
    assert report.analyzed == sorted(str(tmp_path / name) for name in sizes)
