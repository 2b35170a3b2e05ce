"""Fixture tests: every C/C++ file under tests/fixtures/ runs through both frontends and
must produce exactly the findings its `// expect:` markers name (see expectations.py).

A frontend's known gaps are not part of its fixture test: each gap is its own strict
expected failure asserting the true expectation, so it fails loudly the day it closes.
"""
from __future__ import annotations

import functools
import shutil
import subprocess
from pathlib import Path

import pytest

from mmaplint.analyzer.registry import load_rules

from expectations import CPP_SUFFIXES, FRONTENDS, Expectations, Gap, MarkerError, load, parse

FIXTURES = Path(__file__).resolve().parent / "fixtures"
PROGRAMS = FIXTURES / "programs"
# Headers count where a program's files are analyzed together (a C++ class defined in a .h).
SOURCES = sorted(p for p in FIXTURES.rglob("*") if p.suffix in {".c"} | CPP_SUFFIXES
                 or p.suffix == ".h" and PROGRAMS in p.parents)
# Every built-in rule that runs by default owes fixtures.
RULES = tuple(sorted(rule.id for rule in load_rules().values()
                     if rule.default and rule.origin == "mmaplint"))
MIN_CASES = 6


def _name(path: Path) -> str:
    return path.relative_to(FIXTURES).as_posix()


@functools.cache
def expectations(path: Path) -> Expectations:
    return load(path)


def _unit(path: Path) -> Path:
    """What is analyzed together: a directory under fixtures/programs/ is one program (its
    files call each other, in subdirectories too), any other fixture is analyzed alone."""
    return PROGRAMS / path.relative_to(PROGRAMS).parts[0] if PROGRAMS in path.parents else path


@functools.cache
def _report(unit: Path, frontend: str):
    # Imported here so the marker-parser tests below run without the engine.
    from mmaplint.analyzer.engine import Settings, analyze

    return analyze([str(unit)], Settings(frontend=frontend, jobs=1))


def findings(path: Path, frontend: str) -> tuple[frozenset[tuple[int, str]], dict, list[str]]:
    """(line, rule) pairs found in the fixture, their messages, and the run's errors."""
    unit = _unit(path)
    report = _report(unit, frontend)
    errors = [f"{e.path}: {e.message}" for e in report.errors]
    found, messages = set(), {}
    for finding in report.findings:
        where = Path(finding.span.path).resolve()
        if where != path:
            if where == unit or unit not in where.parents:
                errors.append(f"finding outside the fixture: {finding.span.path}:{finding.span.line} "
                              f"{finding.rule} {finding.message}")
            continue
        key = (finding.span.line, finding.rule)
        found.add(key)
        messages[key] = f"{finding.message} [{finding.frontend}]"
    return frozenset(found), messages, errors


def _describe(path: Path, pairs, messages=None) -> list[str]:
    lines = path.read_text().splitlines()
    return [f"    {line:4}: {rule}  {lines[line - 1].strip()}"
            + (f"\n          -> {messages[line, rule]}" if messages else "")
            for line, rule in sorted(pairs)]


@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize("path", SOURCES, ids=_name)
def test_fixture(path: Path, frontend: str) -> None:
    expect = expectations(path)
    found, messages, errors = findings(path, frontend)
    assert not errors, f"{_name(path)} with {frontend}: errors\n  " + "\n  ".join(errors)
    owned_by_gaps = expect.gap_pairs(frontend)
    missing = expect.expected - found - owned_by_gaps
    unexpected = found - expect.expected - owned_by_gaps
    report = [f"{_name(path)} with {frontend}:"]
    if missing:
        report += ["  missing (expected, not reported):", *_describe(path, missing)]
    if unexpected:
        report += ["  unexpected (reported, not expected):", *_describe(path, unexpected, messages)]
    assert not (missing or unexpected), "\n".join(report)


@pytest.mark.parametrize("path", SOURCES, ids=_name)
def test_a_rule_alone_finds_what_it_finds_among_all(path: Path) -> None:
    """A rule's findings do not depend on which other rules run: a pre-commit hook that
    selects one rule must see what the full run reports (rules ask the frontends for different
    facts, and a rule must not lean on facts only another rule asked for)."""
    from mmaplint.analyzer.engine import Settings, analyze

    rule = _unit(path).name.split("_", 1)[0]
    full = {(f.span.path, f.span.line) for f in _report(_unit(path), "tree-sitter").findings if f.rule == rule}
    alone = analyze([str(_unit(path))], Settings(frontend="tree-sitter", jobs=1, select=(rule,))).findings
    assert {(f.span.path, f.span.line) for f in alone} == full


def _gap_cases() -> list:
    return [
        pytest.param(path, gap, id=f"{_name(path)}:{gap.line}-{gap.frontend}-{gap.rule}-{gap.reason}",
                     marks=pytest.mark.xfail(strict=True, raises=AssertionError, reason=gap.reason))
        for path in SOURCES for gap in expectations(path).gaps
    ]


@pytest.mark.parametrize(("path", "gap"), _gap_cases())
def test_known_gap(path: Path, gap: Gap) -> None:
    found, messages, errors = findings(path, gap.frontend)
    if errors:
        pytest.fail(f"{_name(path)} with {gap.frontend}: errors\n  " + "\n  ".join(errors))
    source = path.read_text().splitlines()[gap.line - 1].strip()
    if gap.expected:
        assert (gap.line, gap.rule) in found, f"{gap.frontend} misses {gap.rule} at {gap.line}: {source}"
    else:
        assert (gap.line, gap.rule) not in found, (
            f"{gap.frontend} wrongly reports {gap.rule} at {gap.line}: {source}\n"
            f"  -> {messages.get((gap.line, gap.rule))}")


def test_every_rule_has_enough_cases() -> None:
    positives = {rule: 0 for rule in RULES}
    negatives = {rule: 0 for rule in RULES}
    suffixes = {rule: set() for rule in RULES}
    for path in SOURCES:
        expect = expectations(path)
        for _, rule in expect.expected:
            positives[rule] = positives.get(rule, 0) + 1
        for negative in expect.negatives:
            negatives[negative.rule] = negatives.get(negative.rule, 0) + 1
        named = _unit(path).name.split("_", 1)[0]
        assert named in RULES, f"{_name(path)}: fixture names start with a rule id"
        if _unit(path) == path:
            assert any(rule == named for _, rule in expect.expected), f"{_name(path)}: no expect: {named}"
        suffixes[named].add(".c" if path.suffix == ".c" else "c++")
    short = {rule: (positives[rule], negatives[rule]) for rule in RULES
             if min(positives[rule], negatives[rule]) < MIN_CASES}
    assert not short, f"rules with fewer than {MIN_CASES} positive or negative cases: {short}"
    assert all(len(kinds) == 2 for kinds in suffixes.values()), f"C and C++ fixtures per rule: {suffixes}"


def _compiler(path: Path) -> list[str]:
    from mmaplint.analyzer.engine import language_of

    if path.suffix in CPP_SUFFIXES or language_of(str(path), path.read_bytes()) == "c++":
        return ["g++", "-fsyntax-only", "-std=gnu++20"]     # the clang frontend's default dialect
    return ["gcc", "-fsyntax-only", "-std=gnu11", "-Werror=implicit-function-declaration"]


@pytest.mark.parametrize("path", SOURCES, ids=_name)
def test_fixture_compiles(path: Path) -> None:
    command = _compiler(path)
    if shutil.which(command[0]) is None:
        pytest.skip(f"{command[0]} is not installed")
    result = subprocess.run([*command, str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


# The marker parser itself: the fixture tests are only as good as it is.

def _parse(*comments: tuple[int, str]) -> Expectations:
    return parse(Path("t.c"), comments)


def test_expect_marker_takes_a_comma_list() -> None:
    expect = _parse((3, "// expect: MML001, MML003"), (9, "/* expect: MML002 */"))
    assert expect.expected == {(3, "MML001"), (3, "MML003"), (9, "MML002")}
    assert expect.negatives == () and expect.gaps == ()


def test_ok_marker_is_a_counted_negative() -> None:
    expect = _parse((4, "// ok: MML002 MAP_PRIVATE look-alike"))
    assert expect.expected == frozenset()
    assert [(n.line, n.rule, n.look_alike) for n in expect.negatives] == [(4, "MML002", "MAP_PRIVATE look-alike")]


def test_gap_on_an_expect_line_is_a_miss_and_defaults_to_its_rules() -> None:
    expect = _parse((7, "// expect: MML001  gap[tree-sitter]: flags from a header macro"))
    assert expect.expected == {(7, "MML001")}
    assert expect.gaps == (Gap("tree-sitter", 7, "MML001", "flags from a header macro", True),)
    assert expect.gap_pairs("tree-sitter") == {(7, "MML001")}
    assert expect.gap_pairs("clang") == frozenset()


def test_gap_without_expect_is_a_known_false_positive() -> None:
    expect = _parse((5, "// ok: MML001 compiled out  gap[tree-sitter]: MML001 #ifdef not evaluated */"))
    assert expect.gaps == (Gap("tree-sitter", 5, "MML001", "#ifdef not evaluated", False),)
    assert [n.look_alike for n in expect.negatives] == ["compiled out"]


def test_block_comment_markers_sit_on_their_own_line() -> None:
    expect = _parse((10, "/* first line\n * expect: MML004\n */"))
    assert expect.expected == {(11, "MML004")}


def test_comments_come_from_the_parser_not_from_strings(tmp_path: Path) -> None:
    source = tmp_path / "s.cpp"
    source.write_text('const char *s = "// expect: MML001";\n'
                      "int x; // expect: MML002\n"
                      "/* a\n   ok: MML003 two-line comment */\n")
    expect = load(source)
    assert expect.expected == {(2, "MML002")}
    assert [(n.line, n.rule) for n in expect.negatives] == [(4, "MML003")]


@pytest.mark.parametrize("comment", [
    "// expect: MML01",
    "// expect:",
    "// ok: MML001",
    "// ok: describes nothing",
    "// expect: MML001 gap[gcc]: not a frontend",
    "// expect: MML001 gap[clang]:",
    "// gap[tree-sitter]: a false positive must name its rule",
    "// expect: MML001 ok: MML002 both on one line",
    "// expect: MML001 gap[clang]: one gap[clang]: MML001 twice",
])
def test_malformed_markers_are_errors(comment: str) -> None:
    with pytest.raises(MarkerError, match=r"^t\.c:1: "):
        _parse((1, comment))

