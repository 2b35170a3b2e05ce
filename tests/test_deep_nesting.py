"""Facts stay linear in the source: deep nesting costs memory in proportion to the file, not to
its square (each node's text and tree used to be a copy of its subtree's)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mmaplint_cli import mmaplint

NESTED = {      # 10,000 deep each, a few tens of KB
    "calls.c": "int q(int);\nint f(int a) { return " + "q(" * 10_000 + "a" + ")" * 10_000 + "; }\n",
    "decrements.c": "void f(int a) { int x = " + "-- " * 10_000 + "a; (void)x; }\n",
    "parentheses.c": "int f(int a) { return " + "(" * 10_000 + "a" + ")" * 10_000 + "; }\n",
}
# C++ lets `--` nest as an lvalue; 2,000 is about as deep as libclang parses without overflowing its stack
CLANG_NESTED = {"decrements.cpp": "void f(int a) { int x = " + "-- " * 2_000 + "a; (void)x; }\n"}
# Runs a command and prints its exit code, the peak resident memory of its process tree (KiB)
# and its output; the tree may map 4 GiB at most, so that a regression fails instead of taking
# the machine with it (2,000 nested calls took 1.5 GB before facts were linear).
PEAK = """\
import resource, subprocess, sys
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, done.stdout, sep="\\n")
"""


@pytest.mark.parametrize("frontend, sources", [("tree-sitter", NESTED), ("auto", NESTED), ("clang", CLANG_NESTED)],
                         ids=["tree-sitter", "auto", "clang"])
def test_deep_nesting_costs_memory_in_proportion_to_the_file(tmp_path, frontend, sources):
    """Peak resident memory of a run (its workers included, measured in a process of its own)
    on each shape, analyzed in full: under 200 MB."""
    for name, text in sources.items():
        (tmp_path / name).write_text(text)
    done = subprocess.run([sys.executable, "-c", PEAK, sys.executable, "-m", "mmaplint", "check", "-j", "1",
                           "--frontend", frontend, "--format", "json", *sources],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    code, peak, output = done.stdout.split("\n", 2)
    assert (int(code), json.loads(output)["errors"]) == (0, [])
    assert int(peak) * 1024 < 200e6


def test_shared_trees_stay_within_the_depth_limit(tmp_path):
    """A node converted first deep inside a call's argument, then again as the target of its
    own `--`, is not shared where its tree would grow past the depth limit: the facts cache
    pickles each file's facts, and a tree 1,000 deep exceeded Python's recursion limit there."""
    (tmp_path / "nest.c").write_text(
        "void *mmap(void *, unsigned long, int, int, int, long);\n"
        "void f(int fd, int a, int b) { for (;;) mmap(0, 4096, a" + "-- " * 1_000 + "b, 1, fd, 0); }\n")
    done = mmaplint("check", "--frontend", "tree-sitter", "--format", "json", "nest.c", cwd=tmp_path)
    assert done.returncode == 1 and "internal error" not in done.stderr, done.stderr
    assert [f["rule"] for f in json.loads(done.stdout)["findings"]] == ["MML008"]


def test_a_long_chain_of_names_is_unknown_past_the_depth_limit(tmp_path):
    """`#define N0 N1`, ..., `#define N999 1`: a name is worked out through a bounded chain
    of the names defining it (program.MAX_DEFINITION_DEPTH), never down 1,000 of them, so a
    loop ending on `done = N0` is not known to end and its flush stays reported."""
    chain = "".join(f"#define N{i} N{i + 1}\n" for i in range(1_000)) + "#define N1000 1\n"
    (tmp_path / "chain.c").write_text(
        "#include <stdio.h>\n" + chain + "void f(int n, int stop) {\n"
        "    int done = 0;\n"
        "    for (int i = 0; !done && i < n; i++) {\n"
        "        if (i == stop) { fflush(stdout); done = N0; }\n"
        "    }\n"
        "}\n")
    done = mmaplint("check", "--frontend", "tree-sitter", "--format", "json", "chain.c", cwd=tmp_path)
    assert "internal error" not in done.stderr, done.stderr
    assert [(f["rule"], f["line"]) for f in json.loads(done.stdout)["findings"]] == [("MML005", 1006)]
