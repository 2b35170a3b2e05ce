"""Only regular files are read, and no more of one than --max-file-size, whatever stat() says:
a FIFO, a device or a socket named like a source (given, behind a symlink, found by walking a
directory, or named as the compile_commands.json) is one line, and the rest of the run goes
on.  (An `#include` of a FIFO, which libclang opens itself, is bounded by the parse timeout:
test_budgets.py.)"""
from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest

from mmaplint_cli import MSYNC_LOOP, mmaplint


def check(directory: Path, *args: str) -> tuple[int, dict]:
    done = mmaplint("check", "--format", "json", *args, cwd=directory)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout)


@pytest.mark.parametrize("frontend", ["auto", "clang", "tree-sitter"])
def test_special_files_are_refused_and_the_run_goes_on(tmp_path, frontend):
    os.mkfifo(tmp_path / "fifo.c")
    (tmp_path / "zero.c").symlink_to("/dev/zero")
    (tmp_path / "fifo_link.cpp").symlink_to(tmp_path / "fifo.c")
    (tmp_path / "tree").mkdir()
    os.mkfifo(tmp_path / "tree" / "walked.h")
    (tmp_path / "good.c").write_text(MSYNC_LOOP)
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(tmp_path / "socket.c"))
        code, report = check(tmp_path, "--frontend", frontend, "fifo.c", "zero.c", "fifo_link.cpp", "socket.c",
                             "tree", "good.c")
    assert code == 1 and [f["path"] for f in report["findings"]] == ["good.c"]
    assert sorted((e["path"], e["message"]) for e in report["errors"]) == [
        ("fifo.c", "is a FIFO, not a regular file; skipped"),          # fifo_link.cpp is the same file
        ("socket.c", "is a socket, not a regular file; skipped"),
        (os.path.join("tree", "walked.h"), "is a FIFO, not a regular file; skipped"),
        ("zero.c", "is a character device, not a regular file; skipped")]


def test_reads_are_bounded_whatever_stat_says(tmp_path):
    (tmp_path / "maps.c").symlink_to("/proc/self/maps")       # a regular file stat() says is empty
    code, report = check(tmp_path, "--frontend", "tree-sitter", "--max-file-size", "64", "maps.c")
    assert code == 2 and report["errors"] == [
        {"path": "maps.c", "message": "file holds more, over the 64 bytes limit (max-file-size); skipped"}]


def test_a_compile_commands_fifo_is_one_line(tmp_path):
    os.mkfifo(tmp_path / "compile_commands.json")
    (tmp_path / "good.c").write_text(MSYNC_LOOP)
    code, report = check(tmp_path, "--frontend", "clang", "-p", ".", "good.c")
    assert code == 1 and len(report["findings"]) == 1
    assert report["errors"] == [{"path": "compile_commands.json", "message":
                                 "malformed compile_commands.json: cannot read it: is a FIFO, not a regular file"}]


@pytest.mark.skipif(os.geteuid() == 0, reason="root lists directories whatever their mode")
def test_a_directory_that_cannot_be_listed_is_one_line(tmp_path):
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "x.c").write_text(MSYNC_LOOP)
    (tmp_path / "good.c").write_text(MSYNC_LOOP)
    (tmp_path / "locked").chmod(0)
    try:
        code, report = check(tmp_path, "--frontend", "tree-sitter", ".")
    finally:
        (tmp_path / "locked").chmod(0o755)
    assert code == 2 and [f["path"] for f in report["findings"]] == ["good.c"]      # 2: as a missing path
    assert report["errors"] == [{"path": "./locked", "message": "cannot list the directory: permission denied"}]
