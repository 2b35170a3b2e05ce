"""Shared by the output, CI and plugin tests: run the real `mmaplint` command in a
subprocess (a fresh process re-reads sources and entry points), and a C source with a
known finding."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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


def mmaplint(*args: str, cwd: str | os.PathLike, env: dict | None = None,
             python: str = sys.executable) -> subprocess.CompletedProcess:
    return subprocess.run([python, "-m", "mmaplint", *args], cwd=cwd, capture_output=True,
                          text=True, env=env, timeout=300)


def sarif(*args: str, cwd: str | os.PathLike) -> dict:
    """The SARIF log of `mmaplint check --format sarif` (tree-sitter: the frontend that
    needs no compiler flags) on the given paths."""
    done = mmaplint("check", "--frontend", "tree-sitter", "--format", "sarif", *args, cwd=cwd)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)
