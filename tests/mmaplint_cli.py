"""Shared by the output, CI and plugin tests: run the real `mmaplint` command in a
subprocess (a fresh process re-reads sources and entry points), and a C source with a
known finding."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from types import SimpleNamespace

SCHEMA = Path(__file__).resolve().parent / "data" / "sarif-schema-2.1.0.json"

# One MML001 finding (line 7), with the for loop of line 5 as its related location.
MSYNC_LOOP = """\
#include <string.h>
#include <sys/mman.h>

void copy_pages(char *map, const char *src, unsigned long len) {
    for (unsigned long off = 0; off < len; off += 4096) {
        memcpy(map + off, src + off, 4096);
        msync(map + off, 4096, MS_SYNC);
    }
}
"""

CLEAN = """\
#include <sys/mman.h>

void copy_once(char *map, unsigned long len) {
    msync(map, len, MS_SYNC);
}
"""

# A program whose msync runs per iteration only across files: HELPER with its `(void)page;`
# replaced by an msync, called by CALLER's loop (the finding: CALLER's line 5).
HELPER = """\
#include <sys/mman.h>

void flush_page(char *page) {
    (void)page;
}
"""
CALLER = """\
void flush_page(char *page);

void write_pages(char *map, long pages) {
    for (long i = 0; i < pages; i++)
        flush_page(map + i * 4096);
}
"""


def mmaplint(*args: str, cwd: str | os.PathLike, env: dict | None = None,
             python: str = sys.executable) -> subprocess.CompletedProcess:
    return subprocess.run([python, "-m", "mmaplint", *args], cwd=cwd, capture_output=True,
                          text=True, env=env, timeout=300)


def in_process(*args: str, cwd: str | os.PathLike) -> SimpleNamespace:
    """`mmaplint ARGS` run from `cwd` by this process's own main(), with no interpreter to
    start: the exit code and the output, as from a subprocess."""
    from mmaplint.analyzer.cli import main
    out, err, previous = io.StringIO(), io.StringIO(), os.getcwd()
    os.chdir(cwd)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(list(args))
    finally:
        os.chdir(previous)
    return SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())


def sarif(*args: str, cwd: str | os.PathLike) -> dict:
    """The SARIF log of `mmaplint check --format sarif` (tree-sitter: the frontend that
    needs no compiler flags) on the given paths."""
    done = mmaplint("check", "--frontend", "tree-sitter", "--format", "sarif", *args, cwd=cwd)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)
