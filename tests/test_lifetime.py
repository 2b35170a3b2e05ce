"""A run's program is kept to the end of the process only when the run ends the process
(the `mmaplint` command, lifetime.py): analyses run in a library's process are freed."""
from __future__ import annotations

import gc
import weakref
from pathlib import Path

from mmaplint.analyzer import engine, lifetime
from mmaplint.analyzer.engine import Settings, analyze

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "MML001_msync_in_loop.c"


def _programs_of_a_run(monkeypatch) -> list:
    """Weak references to the programs a run over the fixture built."""
    made, build = [], engine.Program

    def recorded(*args, **kwargs):
        program = build(*args, **kwargs)
        made.append(weakref.ref(program))
        return program
    monkeypatch.setattr(engine, "Program", recorded)
    report = analyze([str(FIXTURE)], Settings(frontend="tree-sitter", jobs=1))
    assert report.findings
    return made


def test_a_library_run_leaves_its_program_to_be_freed(monkeypatch) -> None:
    made = _programs_of_a_run(monkeypatch)
    gc.collect()
    assert len(made) == 1 and made[0]() is None


def test_a_run_that_ends_the_process_keeps_its_program(monkeypatch) -> None:
    monkeypatch.setattr(lifetime, "_kept", [])
    monkeypatch.setattr(lifetime, "_process_ends_with_run", True)
    made = _programs_of_a_run(monkeypatch)
    gc.collect()
    assert len(made) == 1 and made[0]() is not None
