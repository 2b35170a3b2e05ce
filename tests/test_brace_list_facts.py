"""Both frontends: each field a brace list sets is an assignment of that field (facts.py,
Assignment), in a function; a nested list (clang) sets the fields of its field."""
from pathlib import Path

import pytest

from mmaplint.analyzer.facts import BRACES, MEMBER, FrontendOptions
from mmaplint.analyzer.frontends import clang, treesitter

SOURCE = """\
struct region { char *base; long len; };
struct outer { struct region r; int n; };
struct region kept = { .base = 0 };
void f(char *p, long n, struct region r) {
  struct region a = { .len = n, .base = p };
  struct region b = { p, n };
  r = (struct region){ .base = p };
  struct outer o = { .r = { .base = p } };
}
"""
SET = [("a.len", "len", "region", "n", 5), ("a.base", "base", "region", "p", 5),
       ("b.base", "base", "region", "p", 6), ("b.len", "len", "region", "n", 6),
       ("r.base", "base", "region", "p", 7)]


@pytest.mark.parametrize("frontend, nested", [(treesitter, []), (clang, [("o.r.base", "base", "region", "p", 8)])],
                         ids=["tree-sitter", "clang"])
def test_fields_a_brace_list_sets(tmp_path: Path, frontend, nested) -> None:
    path = tmp_path / "t.c"
    path.write_text(SOURCE)
    facts = frontend.parse(str(path), SOURCE.encode(), FrontendOptions(argument_callees=frozenset(), language="c"))
    assert [(a.target.text, a.target.op, a.target.field_of, a.value.text, a.span.line)
            for a in facts.assignments if a.target.kind == MEMBER] == SET + nested


BRACE_VALUES = """\
struct region { char *base; long len; };
struct region f(char *p, long n) {
  if (n < 0)
    return (struct region){ .base = p, .len = n };
  struct region r = { p, { 0 } };
  return (struct region){ p, n };
}
"""


@pytest.mark.parametrize("frontend", [treesitter, clang], ids=["tree-sitter", "clang"])
def test_a_brace_list_is_the_values_of_its_items(tmp_path: Path, frontend) -> None:
    """As an expression, a brace list (facts.BRACES) holds its items' values in order: a
    designated item's value, a nested list as a brace list of its own."""
    path = tmp_path / "t.c"
    path.write_text(BRACE_VALUES)
    facts = frontend.parse(str(path), BRACE_VALUES.encode(), FrontendOptions(argument_callees=frozenset(), language="c"))
    returned = [(r.value.op, [item.text for item in r.value.children]) for r in facts.returns]
    assert returned == [(BRACES, ["p", "n"]), (BRACES, ["p", "n"])]
    declared = next(a.value for a in facts.assignments if a.target.text == "r")
    assert declared.op == BRACES and declared.children[0].text == "p"
    assert declared.children[1].op == BRACES and [item.value for item in declared.children[1].children] == [0]
