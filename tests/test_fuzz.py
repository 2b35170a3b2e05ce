"""A bounded fuzz run (tests/fuzz/fuzz.py is the long one): a few hundred seeded mutants of the
fixtures, analyzed in one `mmaplint` process per frontend, end in a JSON report that accounts
for every mutant (analyzed, or one line saying why not), with no traceback, no internal error
and no file over the parse timeout.  Among auto's mutants is one on which libclang never
returns (`( :: while (1)` in C): tree-sitter stands in for it after the timeout."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from fuzz.mutants import mutants

SEED = 16
MUTANTS = {"tree-sitter": 300, "auto": 40}     # clang's headers make auto's runs slower
# seconds; shorter for auto, where tree-sitter stands in for clang over it
PARSE_TIMEOUT = {"tree-sitter": 20, "auto": 3}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    directory = tmp_path_factory.mktemp("mutants")
    names = []
    for name, data in mutants(SEED, max(MUTANTS.values())):
        (directory / name).write_bytes(data)
        names.append(name)
    return directory, names


@pytest.mark.parametrize("frontend", sorted(MUTANTS))
def test_mutants_end_in_a_report(corpus, frontend):
    directory, names = corpus
    chosen = names[:MUTANTS[frontend]]
    done = subprocess.run([sys.executable, "-m", "mmaplint", "check", "-v", "--frontend", frontend, "--format",
                           "json", "--parse-timeout", str(PARSE_TIMEOUT[frontend]), "-j", "2", *chosen], cwd=directory, capture_output=True,
                          text=True, timeout=240)
    assert "Traceback" not in done.stderr and done.returncode in (0, 1), done.stderr[-2000:]
    report = json.loads(done.stdout)
    analyzed = [line.split(": ", 1)[0] for line in done.stderr.splitlines() if ": tree-sitter" in line
                or ": clang" in line]       # -v: "path: frontend and why"
    assert sorted(analyzed + [error["path"] for error in report["errors"]]) == sorted(chosen)
    for error in report["errors"]:
        assert "\n" not in error["message"]
        assert "took longer" not in error["message"] and "internal error" not in error["message"], error



NOT_UTF8_CALL = b'void f(FILE *o) {\n  for (;;) { g("\xe9")(1); std::fflush(o); }\n}\n'


@pytest.mark.parametrize("before", [b"", b"void a(int x) {\n  if (x) {\n}\n"],   # parsed whole; a piece
                         ids=["file", "recovered piece"])
def test_bytes_that_are_not_utf8_in_a_name_the_query_tests(tmp_path, before):
    """C++'s query tests a call's function with #match?, which decodes its text: a string that
    is not UTF-8 there was a SystemError, or a segmentation fault (mutants of seeds 16 and
    2026), in the file's parse and in the recovery's parse of the pieces after an unclosed `{`."""
    (tmp_path / "t.cpp").write_bytes(b"#include <cstdio>\n" + before + NOT_UTF8_CALL)
    done = subprocess.run([sys.executable, "-m", "mmaplint", "check", "--no-cache", "--frontend", "tree-sitter",
                           "--format", "json", "t.cpp"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    report = json.loads(done.stdout)
    assert report["errors"] == [] and [f["rule"] for f in report["findings"]] == ["MML005"], done.stderr
