"""Progress on stderr: shown when stderr is a terminal (files parsed of the total, then the
whole-program phase), never on a pipe unless asked (--progress), never with -q."""
from __future__ import annotations

import os
import pty
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from mmaplint.analyzer.engine import Settings, analyze
from mmaplint.analyzer.facts_cache import FactsCache
from mmaplint.analyzer.progress import Progress, wanted

from mmaplint_cli import MSYNC_LOOP


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for n in range(3):
        (tmp_path / f"f{n}.c").write_text(MSYNC_LOOP.replace("copy_pages", f"copy_{n}"))
    return tmp_path


def on_a_terminal(*args: str, cwd: Path) -> tuple[int, str, bytes]:
    """Run mmaplint with stderr on a pseudo-terminal: (exit code, stdout, what the terminal got)."""
    controller, terminal = pty.openpty()
    done = subprocess.Popen([sys.executable, "-m", "mmaplint", *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=terminal, text=True, env={**os.environ, "TERM": "xterm", "COLUMNS": "120"})
    os.close(terminal)
    shown = b""
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:          # the terminal's other end closed
            break
        if not chunk:
            break
        shown += chunk
    out = done.stdout.read()
    os.close(controller)
    return done.wait(timeout=120), out, shown


def test_a_terminal_shows_files_parsed_of_the_total_and_the_whole_program(tree: Path):
    code, out, shown = on_a_terminal("check", "--frontend", "tree-sitter", "--no-cache", ".", cwd=tree)
    assert code == 1 and "Found 3 findings" in out
    assert b"mmaplint: parsing" in shown and b"3/3" in shown
    assert b"mmaplint: checking the whole program" in shown


class _Counted:
    """A Progress that counts each step's advances."""

    def __init__(self) -> None:
        self.advanced: dict[str, int] = {}

    @contextmanager
    def step(self, description: str, total: int | None = None):
        counted = self

        class Step:
            def advance(self, amount: int = 1) -> None:
                counted.advanced[description] = counted.advanced.get(description, 0) + amount
        yield Step()


@pytest.mark.parametrize("changed", [0, 1])
def test_every_file_counts_once_as_parsed_from_the_cache_or_not(tree: Path, changed: int):
    cache = str(tree / "cache")
    analyze([str(tree)], Settings(frontend="tree-sitter", jobs=1), cache=FactsCache(cache))
    for n in range(changed):
        (tree / f"f{n}.c").write_text(MSYNC_LOOP.replace("copy_pages", f"changed_{n}"))
    progress = _Counted()
    analyze([str(tree)], Settings(frontend="tree-sitter", jobs=1), cache=FactsCache(cache), progress=progress)
    assert progress.advanced["parsing"] == 3


def test_quiet_shows_none(tree: Path):
    code, _, shown = on_a_terminal("check", "-q", "--frontend", "tree-sitter", ".", cwd=tree)
    assert code == 1 and shown == b""


def test_a_pipe_gets_none_unless_asked(tree: Path):
    quiet = subprocess.run([sys.executable, "-m", "mmaplint", "--frontend", "tree-sitter", "."],
                           cwd=tree, capture_output=True, text=True)
    assert quiet.returncode == 1 and quiet.stderr == ""
    asked = subprocess.run([sys.executable, "-m", "mmaplint", "--progress", "--frontend", "tree-sitter", "."],
                           cwd=tree, capture_output=True, text=True)
    assert asked.returncode == 1 and "mmaplint: parsing" in asked.stderr
    assert asked.stdout == quiet.stdout


def test_the_api_for_other_commands(tmp_path: Path):
    """What `confirm` can reuse: steps with or without a total, described as they go."""
    with open(tmp_path / "err", "w") as stream:
        assert not wanted(None, stream) and wanted(True, stream) and not wanted(False, stream)
        with Progress(enabled=True, stream=stream) as progress:
            with progress.step("reproducers", total=2) as step:
                step.describe("MML001: pair 1, bad")
                step.advance()
                step.advance()
    assert "MML001: pair 1, bad" in (tmp_path / "err").read_text()
    with Progress(enabled=False) as progress, progress.step("nothing", total=1) as step:
        step.advance()         # a disabled progress takes the same calls and draws nothing
