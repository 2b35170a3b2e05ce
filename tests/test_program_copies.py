"""Two programs analyzed in one run are two programs: each program fixture copied twice
into one tree gives, in each copy, exactly the findings the fixture gives alone, chains
included.  A call resolves to the nearest definition of its name and a call through a
field runs only its own program's callbacks, so that no copy's loop reaches into the
other copy (which is also what keeps the whole-program phase linear in the code)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mmaplint.analyzer.engine import Settings, analyze

PROGRAMS = Path(__file__).resolve().parent / "fixtures" / "programs"


def _findings(root: Path, under: Path) -> list[tuple]:
    """The run's findings in `under`, with paths relative to it."""
    report = analyze([str(root)], Settings(frontend="tree-sitter", jobs=1, select=("ALL",)))
    assert not report.errors

    def where(span) -> tuple:
        return (Path(span.path).relative_to(under).as_posix(), span.line, span.column)
    return sorted((f.rule, where(f.span), f.message, tuple((where(r.span), r.message) for r in f.related))
                  for f in report.findings if under in Path(f.span.path).parents)


@pytest.mark.parametrize("program", sorted(p.name for p in PROGRAMS.iterdir() if p.is_dir()))
def test_two_copies_are_two_programs(tmp_path: Path, program: str) -> None:
    alone = tmp_path / "alone" / program
    shutil.copytree(PROGRAMS / program, alone)
    expected = _findings(alone, alone)
    assert expected, "a program fixture has findings"
    both = tmp_path / "both"
    for copy in ("first", "second"):
        shutil.copytree(PROGRAMS / program, both / copy / program)
    for copy in ("first", "second"):
        assert _findings(both, both / copy / program) == expected
