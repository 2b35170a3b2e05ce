"""Function-like macros defined in the file being analysed.  A body is parsed
once (wrapped as a function body) the first time an invocation is seen; each
invocation then replays the body's facts with the parameters bound to the
invocation's argument expressions."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Callable

from tree_sitter import Node

from .ts_expr import unwrap
from .ts_grammar import Grammar
from .ts_names import text
from .ts_sites import Sites

_PREFIX = b"void __mmaplint_macro_body__(void) {\n"
_SUFFIX = b"\n;}\n"
_VA_ARGS = "__VA_ARGS__"


@dataclass
class Macro:
    name: str
    params: tuple[str, ...]
    variadic: bool                        # the last parameter takes the remaining arguments
    source: bytes                         # the body, wrapped so that it parses as statements
    sites: Sites
    holes: list[tuple[int, int, str]]     # parameter uses in the body: (start, end, name)
    top_call: tuple[int, int] | None      # byte range of the call the whole body is, if so
    value: Node | None                    # the expression the whole body is, if so (under parentheses)
    branches: bool                        # whether the body has a branch (if, case, `?:`, `&&`, `||`)

    @cached_property
    def hole_at(self) -> dict[int, tuple[int, str]]:
        return {start: (end, name) for start, end, name in self.holes}

    @property
    def has_facts(self) -> bool:
        return bool(self.sites.calls or self.sites.assignments or self.sites.loops)


class Macros:
    """The file's function-like macro definitions by name.  When `#if` branches define a
    macro twice, the first wins, except that a definition for a debug, trace or test build
    (`#ifdef RAX_DEBUG_MSG`, sysstat's `#ifdef TEST` `__pause()`) gives way to one for the
    ordinary build."""

    def __init__(self, grammar: Grammar, source: bytes, definitions: list[Node],
                 for_tracing: Callable[[Node], bool] = lambda node: False) -> None:
        self._grammar = grammar
        self._source = source
        self._definitions: dict[str, Node] = {}
        for node in definitions:
            name = node.child_by_field_name("name")
            if name is None:
                continue
            spelled = text(source, name)
            kept = self._definitions.get(spelled)
            if kept is None or (for_tracing(kept) and not for_tracing(node)):
                self._definitions[spelled] = node
        self._parsed: dict[str, Macro] = {}

    def __contains__(self, name: str) -> bool:
        return name in self._definitions

    def definitions(self) -> list[tuple[str, Node]]:
        """Each macro's name and the definition kept for it, in the file's order."""
        return sorted(self._definitions.items(), key=lambda item: item[1].start_byte)

    def __getitem__(self, name: str) -> Macro:
        macro = self._parsed.get(name)
        if macro is None:
            macro = self._parsed[name] = self._parse(name, self._definitions[name])
        return macro

    def _parse(self, name: str, node: Node) -> Macro:
        params, variadic = _parameters(self._source, node.child_by_field_name("parameters"))
        body = node.child_by_field_name("value")
        source = _PREFIX + (self._source[body.start_byte:body.end_byte] if body else b"") + _SUFFIX
        root = self._grammar.parser.parse(source).root_node
        wanted = set(params)
        names = self._grammar.captures(self._grammar.macro_names, root).get("name", ())
        uses = [use for use in names if text(source, use) in wanted]
        holes = [(use.start_byte, use.end_byte, text(source, use)) for use in uses]
        misread = [use for use in uses if _read_as_cast_type(use)]
        if misread:
            source = _as_numbers(source, misread)
            root = self._grammar.parser.parse(source).root_node
        captures = self._grammar.captures(self._grammar.facts, root)
        value = _body_value(root)
        return Macro(name, params, variadic, source, Sites.read(captures), holes,
                     (value.start_byte, value.end_byte) if value is not None and value.type == "call_expression" else None,
                     value, bool(captures.get("branch")))


def _parameters(source: bytes, params: Node | None) -> tuple[tuple[str, ...], bool]:
    """Parameter names; `...` binds __VA_ARGS__, GNU `args...` (an ERROR to
    tree-sitter) makes `args` the variadic parameter."""
    names: list[str] = []
    variadic = False
    for child in params.children if params is not None else ():
        if child.type == "identifier":
            names.append(text(source, child))
        elif child.type == "...":
            names.append(_VA_ARGS)
            variadic = True
        elif child.type == "ERROR" and text(source, child).strip() == "..." and names:
            variadic = True
    return tuple(names), variadic


def _read_as_cast_type(node: Node) -> bool:
    """True for the `p` of `(p) + x`, which tree-sitter reads as a cast of `+x`
    to type `p` (the ambiguity needs to know p is not a type; a parameter
    followed by a sign is almost always a value)."""
    descriptor = node.parent
    if node.type != "type_identifier" or descriptor is None or descriptor.type != "type_descriptor":
        return False
    if descriptor.named_child_count != 1 or descriptor.parent is None:
        return False
    value = descriptor.parent.child_by_field_name("value")
    sign = value.child_by_field_name("operator") if value is not None else None
    return (descriptor.parent.type == "cast_expression" and sign is not None
            and value.type == "unary_expression" and sign.type in ("+", "-"))


def _as_numbers(source: bytes, uses: list[Node]) -> bytes:
    """The body with these parameter uses spelled as same-width number literals
    (`000`), which cannot be types; the converter substitutes them by position."""
    out = bytearray(source)
    for node in uses:
        out[node.start_byte:node.end_byte] = b"0" * (node.end_byte - node.start_byte)
    return bytes(out)


def _body_value(root: Node) -> Node | None:
    """The expression a body consists of, under parentheses and casts: a call (`msync((x),
    4096, MS_SYNC)`: an invocation's assignment target becomes that call's result) or a value
    (`((i) % GROUP == GROUP - 1)`: what a condition spelled as the invocation tests)."""
    function = root.named_children[0] if root.named_child_count else None
    body = function.child_by_field_name("body") if function is not None else None
    if body is None:
        return None
    statements = [node for node in body.named_children
                  if node.type != "comment" and node.named_child_count]
    if len(statements) != 1 or statements[0].type != "expression_statement":
        return None
    return unwrap(statements[0].named_children[0])
