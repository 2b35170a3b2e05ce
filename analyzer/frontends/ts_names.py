"""Names and nesting for the tree-sitter frontend: which interval encloses a
byte, what a declarator declares, and the qualified name clang would give a
function definition."""
from __future__ import annotations

from bisect import bisect_right
from tree_sitter import Node

# Declarator wrappers whose `declarator` field leads to the declared name.
_WRAPPERS = frozenset({
    "init_declarator", "pointer_declarator", "array_declarator", "attributed_declarator",
    "function_declarator",
})
# Wrappers whose declarator is their only named child rather than a field.
_PLAIN_WRAPPERS = frozenset({"reference_declarator", "parenthesized_declarator"})
_SCOPE_PARTS = frozenset({"namespace_identifier", "type_identifier", "identifier"})


class Nest:
    """Properly nested byte intervals [start, end), answering "which of them
    contain this byte" by bisection instead of parent chains (tree-sitter's
    Node.parent walks down from the root, which is slow on big files).
    Intervals are reported by their index in the list given."""

    def __init__(self, intervals: list[tuple[int, int]]) -> None:
        order = sorted(range(len(intervals)), key=lambda i: (intervals[i][0], -intervals[i][1]))
        self.ids = order
        self.starts = [intervals[i][0] for i in order]
        self.ends = [intervals[i][1] for i in order]
        self.parents: list[int] = []
        open_: list[int] = []
        for rank, start in enumerate(self.starts):
            while open_ and self.ends[open_[-1]] <= start:
                open_.pop()
            self.parents.append(open_[-1] if open_ else -1)
            open_.append(rank)

    def _innermost_rank(self, pos: int) -> int:
        i = bisect_right(self.starts, pos) - 1
        ends, parents = self.ends, self.parents
        while i >= 0 and ends[i] <= pos:
            i = parents[i]
        return i

    def innermost(self, pos: int) -> int:
        """Index of the innermost interval containing pos, or -1."""
        rank = self._innermost_rank(pos)
        return self.ids[rank] if rank >= 0 else -1

    def chain(self, pos: int) -> list[int]:
        """Indices of every interval containing pos, outermost first."""
        out: list[int] = []
        rank = self._innermost_rank(pos)
        while rank >= 0:
            out.append(self.ids[rank])
            rank = self.parents[rank]
        out.reverse()
        return out


def text(source: bytes, node: Node) -> str:
    return source[node.start_byte:node.end_byte].decode("utf-8", "replace")


def declared_identifier(node: Node, prototypes: bool = False) -> Node | None:
    """The name node a declarator declares; None for declarators without a
    plain name (structured bindings, errors) and, unless asked for, function
    prototypes (in a function body, C++'s `std::ifstream in(path)` reads as one)."""
    while True:
        kind = node.type
        if kind in ("identifier", "field_identifier"):
            return node
        if kind == "function_declarator":
            inner = node.child_by_field_name("declarator")
            if inner is None or not (prototypes or inner.type == "parenthesized_declarator"):
                return None                 # a prototype, not a function pointer variable
            node = inner
        elif kind in _WRAPPERS:
            inner = node.child_by_field_name("declarator")
            if inner is None:
                return None
            node = inner
        elif kind in _PLAIN_WRAPPERS and node.named_child_count:
            node = node.named_children[-1]
        else:
            return None


def declared_name(source: bytes, node: Node, prototypes: bool = False) -> str | None:
    name = declared_identifier(node, prototypes)
    return text(source, name) if name is not None else None


def function_declarator(node: Node) -> Node | None:
    """The function_declarator of a function_definition: the innermost one, as
    in `int *(*get_handler(int sig))(int)` the outer ones are the return type; a
    lambda's own (its parameters), when it has one."""
    if node.type == "lambda_expression":
        return node.child_by_field_name("declarator")
    found = None
    decl = node.child_by_field_name("declarator")
    while decl is not None:
        if decl.type in _WRAPPERS:
            found = decl if decl.type == "function_declarator" else found
            decl = decl.child_by_field_name("declarator")
        elif decl.type in _PLAIN_WRAPPERS and decl.named_child_count:
            decl = decl.named_children[-1]
        else:
            break
    return found


def parameter_names(source: bytes, declarator: Node) -> list[str]:
    params = declarator.child_by_field_name("parameters")
    if params is None:
        return []
    names = []
    for param in params.named_children:
        if param.type == "identifier":      # K&R: `int f(fd, n) int fd; int n; { ... }`
            names.append(text(source, param))
            continue
        if param.type not in ("parameter_declaration", "optional_parameter_declaration"):
            continue        # `...`, comments
        inner = param.child_by_field_name("declarator")
        if inner is None and text(source, param) == "void":
            continue        # f(void): no parameter
        names.append((declared_name(source, inner) if inner is not None else None) or "")
    return names


def definition_name(source: bytes, declarator: Node | None) -> list[str]:
    """Name components of a function definition's declarator: `Cls::m` -> [Cls, m]."""
    node = declarator.child_by_field_name("declarator") if declarator is not None else None
    parts: list[str] = []
    while node is not None and node.type == "qualified_identifier":
        scope = node.child_by_field_name("scope")
        if scope is not None:
            parts.append(scope_name(source, scope))
        node = node.child_by_field_name("name")
    if node is None:
        return parts + ["<anonymous>"]
    if node.type == "template_function":
        node = node.child_by_field_name("name") or node
    parts.append(text(source, node))
    return parts


def scope_name(source: bytes, node: Node) -> str:
    """Spelling of a namespace or class name as a qualifier: `Tmpl<T>` -> `Tmpl`."""
    if node.type == "template_type":
        name = node.child_by_field_name("name")
        if name is not None:
            return text(source, name)
    if node.type == "nested_namespace_specifier":
        return "::".join(text(source, part) for part in node.named_children
                         if part.type in _SCOPE_PARTS)
    return text(source, node)
