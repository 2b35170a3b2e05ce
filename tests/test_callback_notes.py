"""A finding reached through a call of a variable (a callback parameter, a function pointer)
says which function that call ran: `cb() runs print_name() here`, or, deeper in the chain,
`..., running print_name()`.  A call named like the function it runs gets no such note."""
from __future__ import annotations

from pathlib import Path

import pytest

from mmaplint.analyzer.engine import Settings, analyze

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "MML005_callback_passed_as_parameter.c"


@pytest.mark.parametrize("frontend", ["tree-sitter", "clang"])
def test_the_call_of_a_parameter_names_the_function_it_ran(frontend: str) -> None:
    report = analyze([str(FIXTURE)], Settings(frontend=frontend, jobs=1))
    finding = next(f for f in report.findings if f.span.line == 15)
    assert [r.message for r in finding.related] == [
        "this while loop repeats it",
        "cb() runs print_name() here",
        "fflush() is made here",
    ]


@pytest.mark.parametrize("frontend", ["tree-sitter", "clang"])
def test_a_callback_deeper_in_the_chain_is_named_and_a_plain_call_is_not(tmp_path: Path, frontend: str) -> None:
    source = tmp_path / "walk.c"
    source.write_text("""\
#include <stdio.h>
static void show(const char *s)
{
    fputs(s, stdout);
    fflush(stdout);
}
static void step(const char *s, void (*visit)(const char *))
{
    visit(s);
}
void walk(const char *const *v, int n)
{
    for (int i = 0; i < n; i++)
        step(v[i], show);
}
""")
    report = analyze([str(source)], Settings(frontend=frontend, jobs=1))
    [finding] = report.findings
    assert [r.message for r in finding.related] == [
        "this for loop repeats it",
        "visit() which calls it here, running show()",
        "fflush() is made here",
    ]
