"""Both frontends: a lambda given to a field (a std::function member) is a function of its own,
named by the field within the function it is written in, and the assignment gives the field
that function; a method's call of a field on the implicit this goes through the field."""
from pathlib import Path

import pytest

from mmaplint.analyzer.facts import IDENTIFIER, FrontendOptions
from mmaplint.analyzer.frontends import clang, treesitter

SOURCE = """\
#include <functional>
struct Bus {
    std::function<void(int)> on_event;
    int (*check)(int);
    void publish(int e) { on_event(e); check(e); }
};
void run(Bus &bus, int fd) {
    bus.on_event = [fd](int e) { (void)e; (void)fd; };
}
"""


@pytest.mark.parametrize("frontend", [treesitter, clang], ids=["tree-sitter", "clang"])
def test_a_lambda_a_field_holds_and_the_calls_of_the_field(tmp_path: Path, frontend) -> None:
    path = tmp_path / "t.cpp"
    path.write_text(SOURCE)
    facts = frontend.parse(str(path), SOURCE.encode(), FrontendOptions(argument_callees=frozenset(), language="c++"))
    assert "run.on_event" in {fn.qualified for fn in facts.functions}
    given = next(a for a in facts.assignments if a.target.text == "bus.on_event")
    assert (given.value.kind, given.value.op) == (IDENTIFIER, "run.on_event")
    calls = {c.callee: (c.via_field, c.field_of) for c in facts.calls if c.function and c.function.endswith("publish")}
    assert calls == {"on_event": (True, "Bus"), "check": (True, "Bus")}
