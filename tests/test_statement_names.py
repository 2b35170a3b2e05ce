"""The index of a file's statements by name (provenance.statement_names) is made with the
file's facts, in the worker that parsed it, and kept in the facts cache; a header's macros
expanded into their calls carry it over for the statements they keep.  Whichever way it was
made, it must say what reading the statements says, and the findings must not depend on
where it came from."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from mmaplint.analyzer.engine import Settings, _check, parse_file, select_rules
from mmaplint.analyzer.facts import EVERY_CALL, FileFacts
from mmaplint.analyzer.findings import Report
from mmaplint.analyzer.header_macros import expanded
from mmaplint.analyzer.provenance import statement_names
from mmaplint.analyzer.registry import load_rules

FIXTURES = Path(__file__).resolve().parent / "fixtures"
PROGRAMS = sorted(p for p in (FIXTURES / "programs").iterdir() if p.is_dir())
SOURCES = (".c", ".h", ".cc", ".cpp", ".hpp")


def _parsed(root: Path) -> list[FileFacts]:
    files = sorted(str(p) for p in root.rglob("*") if p.suffix in SOURCES)
    settings = Settings(frontend="tree-sitter", jobs=1)
    found = [parse_file(path, settings, frozenset({EVERY_CALL})) for path in files]
    assert all(isinstance(facts, FileFacts) for facts in found)
    return found


def _unindexed(files: list[FileFacts]) -> list[FileFacts]:
    return [replace(facts, names=None) for facts in files]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_a_parsed_file_comes_with_its_index(program: Path) -> None:
    for facts in _parsed(program):
        assert facts.names is not None
        assert facts.names == statement_names(replace(facts, names=None))


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_expanded_macros_carry_the_index_over(program: Path) -> None:
    """What expansion carries over is what reading the expanded statements gives (the
    variables whose address is taken are left to be found again, or are those)."""
    for facts in expanded(_parsed(program)):
        fresh = statement_names(replace(facts, names=None))
        assert (facts.names.readers, facts.names.writers) == (fresh.readers, fresh.writers)
        assert facts.names.addressed in (None, fresh.addressed)


def test_expansion_changes_what_some_statements_name() -> None:
    """The fixture the test above leans on does make calls others: a one-call macro's
    invocation names the macro, its expansion the function it calls."""
    program = FIXTURES / "programs" / "MML005_header_macros_and_process_enders"
    before = _parsed(program)
    after = expanded(before)
    assert any(a.names != b.names for a, b in zip(before, after))


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_findings_are_the_same_without_the_index(program: Path) -> None:
    rules = select_rules(load_rules(), ("ALL",), ())

    def findings(files: list[FileFacts]) -> list:
        report = _check(files, rules, Settings(select=("ALL",)), Report(), frozenset({EVERY_CALL}))
        assert not report.errors
        return [(f.rule, f.span, f.message, f.related) for f in report.findings]
    parsed = _parsed(program)
    assert findings(parsed) == findings(_unindexed(parsed))
