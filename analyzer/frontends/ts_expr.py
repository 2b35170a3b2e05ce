"""Expressions for the tree-sitter frontend: syntax nodes to :class:`Expr`,
callee names, and (inside macro bodies) parameter substitution."""
from __future__ import annotations

import codecs
from bisect import bisect_left
from typing import TYPE_CHECKING, Callable

from tree_sitter import Node

from ..facts import (BINARY, BRACES, CALL, CAST, CONTENTS, CONTENTS_CLASSES, COND, INT, MEMBER, IDENTIFIER, OTHER, STRING, SUBSCRIPT,
                     UNARY, Expr, shortened, spelled)

from .ts_types import type_name

if TYPE_CHECKING:
    from .ts_types import DeclaredTypes

CXX_CASTS = frozenset({"static_cast", "reinterpret_cast", "const_cast", "dynamic_cast"})
_NAMES = frozenset({"identifier", "true", "false"})   # true/false: C's macros from stdbool.h
_STRINGS = frozenset({"string_literal", "concatenated_string", "raw_string_literal"})
_MAX_DEPTH = 120    # deeper expressions (generated tables) become OTHER instead of recursing

_FOLD2: dict[str, Callable[[int, int], int | None]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "|": lambda a, b: a | b, "&": lambda a, b: a & b, "^": lambda a, b: a ^ b,
    "<<": lambda a, b: a << b if 0 <= b < 128 else None,
    ">>": lambda a, b: a >> b if 0 <= b < 128 else None,
    "/": lambda a, b: (abs(a) // abs(b)) * (1 if (a < 0) == (b < 0) else -1) if b else None,
    "%": lambda a, b: a - b * ((abs(a) // abs(b)) * (1 if (a < 0) == (b < 0) else -1)) if b else None,
}
_FOLD1: dict[str, Callable[[int], int]] = {
    "-": lambda a: -a, "+": lambda a: a, "~": lambda a: ~a, "!": lambda a: int(not a),
}


def int_literal(spelling: str) -> int | None:
    """Value of a C/C++ integer literal (0x, 0b, octal, u/l/z suffixes, ' separators)."""
    digits = spelling.replace("'", "").lower().rstrip("ulz")
    try:
        if digits.startswith(("0x", "0b")):
            return int(digits, 0)
        if len(digits) > 1 and digits.startswith("0"):
            return int(digits, 8)
        return int(digits, 10)
    except ValueError:
        return None     # floating point or malformed


def char_literal(spelling: str) -> int | None:
    body = spelling[spelling.find("'") + 1:spelling.rfind("'")]
    try:
        chars = codecs.decode(body, "unicode_escape")
    except (UnicodeDecodeError, ValueError):
        return None
    return ord(chars) if len(chars) == 1 else None


def unwrap(node: Node) -> Node:
    """The node under any parentheses and casts."""
    while True:
        kind = node.type
        if kind == "parenthesized_expression":
            inner = node.named_children
            if len(inner) != 1:
                return node
            node = inner[0]
        elif kind == "cast_expression":
            inner = node.child_by_field_name("value")
            if inner is None:
                return node
            node = inner
        elif kind == "call_expression" and (cast := call_cast(node)) is not None:
            node = cast[1]
        else:
            return node


def call_cast(call: Node) -> tuple[str, Node] | None:
    """(type, operand) when a call_expression is really a cast: C++'s
    `static_cast<T>(x)` and friends, and `(off_t)(x)`, which tree-sitter reads
    as a call through `(off_t)` for want of knowing types (names ending in _t
    are reserved for types by POSIX)."""
    fn = call.child_by_field_name("function")
    if fn is None or fn.type not in ("template_function", "parenthesized_expression"):
        return None
    args = call.child_by_field_name("arguments")
    if args is None or args.named_child_count != 1:
        return None
    if fn.type == "template_function":
        name, type_args = fn.child_by_field_name("name"), fn.child_by_field_name("arguments")
        if name is None or type_args is None or name.text.decode("ascii", "replace") not in CXX_CASTS:
            return None
        return type_args.text.decode("utf-8", "replace")[1:-1].strip(), args.named_children[0]
    inner = fn.named_children
    if len(inner) != 1 or inner[0].type != "identifier":
        return None
    spelling = inner[0].text.decode("utf-8", "replace")
    return (spelling, args.named_children[0]) if spelling.endswith("_t") else None


class Bindings:
    """A macro invocation's arguments by parameter name.  Each argument is the
    node in its own text with the converter for that text (an argument may come
    from an outer macro body), and is converted only when a fact of the body
    uses it, which most never are."""

    def __init__(self, params: tuple[str, ...], variadic: bool,
                 items: list[tuple["Converter", Node]]) -> None:
        fixed = len(params) - 1 if variadic else len(params)
        self._single = {name: items[i] for i, name in enumerate(params[:fixed]) if i < len(items)}
        self._spread = {params[-1]: items[fixed:]} if variadic else {}
        self._converted: dict[str, Expr] = {}
        self._spellings: dict[str, str] = {}

    def get(self, name: str) -> Expr | None:
        expr = self._converted.get(name)
        if expr is None and name in self._single:
            conv, node = self._single[name]
            expr = self._converted[name] = conv.expr(node)
        return expr

    def spread(self, name: str) -> list[tuple["Converter", Node]] | None:
        return self._spread.get(name)

    def spelling(self, name: str) -> str:
        spelling = self._spellings.get(name)
        if spelling is None:
            items = self._spread.get(name)
            if items is None:
                items = [self._single[name]] if name in self._single else []
            spelling = self._spellings[name] = ", ".join(conv.text(node) for conv, node in items)
        return spelling


class Converter:
    """Converts the nodes of one source text.  Each node is converted once, and its tree is
    shared by every fact that reaches it (the calls of `q(q(q(a)))` share their arguments'),
    which keeps a file's facts linear in its size.  A tree is shared only where it fits under
    _MAX_DEPTH: one built at depth d serves a request at depth d or less (the calls of a
    nest, each converting its own arguments from depth 0, after the outermost), and a deeper
    request converts the node again.  `types` (the file's declared types, for the file's own
    text) names the struct of a field's object."""

    def __init__(self, source: bytes, types: DeclaredTypes | None = None) -> None:
        self.source = source
        self._built: dict[int, tuple[Expr, int]] = {}     # node id: its tree, the depth it was built at
        self.types = types

    def text(self, node: Node) -> str:
        return self.source[node.start_byte:node.end_byte].decode("utf-8", "replace")

    def label(self, node: Node) -> str:
        """The node's text as its Expr keeps it (facts.spelled)."""
        return spelled(self.source, node.start_byte, node.end_byte)

    def size_label(self, node: Node) -> str:
        """A sizeof's text, as `sizeof(T)` when it measures a struct, class or typedef T,
        whether written with the type or with an object of it (`sizeof h` of `struct hdr h`
        is `sizeof(hdr)`, as `sizeof(struct hdr)` is): the same size, however spelled (a
        record's parts added up, variation.py).  Else as written."""
        kind = node.child_by_field_name("type")
        if kind is not None:
            name = type_name(self.source, kind.child_by_field_name("type")) \
                if kind.child_by_field_name("declarator") is None else None
        else:
            value = node.child_by_field_name("value")
            value = unwrap(value) if value is not None else None
            name = self.types.object_type(self.text(value), value.start_byte) \
                if self.types is not None and value is not None and value.type == "identifier" else None
        return f"sizeof({name})" if name else self.label(node)

    def spread(self, arg: Node) -> list[tuple["Converter", Node]] | None:
        """The arguments a use of a variadic macro parameter stands for."""
        return None

    def substitute(self, node: Node) -> Expr | None:
        """The argument a parameter use (a leaf node) in a macro body stands for."""
        return None

    def argument_items(self, args: Node | None) -> list[tuple["Converter", Node]]:
        """A call's arguments with the converter of each; a use of the variadic
        parameter spreads into the arguments it stands for."""
        items: list[tuple[Converter, Node]] = []
        for arg in args.named_children if args is not None else ():
            if arg.type == "comment":
                continue
            spread = self.spread(arg)
            if spread is not None:
                items.extend(spread)
            else:
                items.append((self, arg))
        return items

    def arguments(self, args: Node | None, depth: int = 0) -> tuple[Expr, ...]:
        return tuple(conv.expr(node, depth) for conv, node in self.argument_items(args))

    def callee(self, fn: Node) -> tuple[str, bool]:
        """(unqualified callee name, called through a field) for a call's function node."""
        while True:
            kind = fn.type
            if kind == "identifier":
                bound = self.substitute(fn)
                if bound is not None:
                    return bound_callee(bound)
                return self.text(fn), False
            if kind == "field_expression":
                name = fn.child_by_field_name("field")
                while name is not None and name.type in ("dependent_name", "template_method"):
                    name = name.child_by_field_name("name") or name.named_children[0]
                return (self.member_name(name) if name is not None else self.label(fn)), True
            if kind in ("qualified_identifier", "template_function"):
                inner = fn.child_by_field_name("name")
            elif kind in ("pointer_expression", "subscript_expression", "cast_expression"):
                inner = fn.child_by_field_name("argument") or fn.child_by_field_name("value")
            elif kind == "call_expression":
                inner = fn.child_by_field_name("function")
            elif kind == "parenthesized_expression" and fn.named_child_count == 1:
                inner = fn.named_children[0]
            else:
                return self.label(fn), False
            if inner is None:
                return self.label(fn), False
            fn = inner

    def member_name(self, node: Node) -> str:
        bound = self.substitute(node)
        if bound is not None and bound.kind == IDENTIFIER:
            return bound.op
        return self.text(node)

    def expr(self, node: Node, depth: int = 0) -> Expr:
        built = self._built.get(node.id)
        if built is not None and depth <= built[1]:
            return built[0]
        expr = self._convert(node, depth)
        self._built.setdefault(node.id, (expr, depth))
        return expr

    def _convert(self, node: Node, depth: int) -> Expr:
        if depth > _MAX_DEPTH:
            return Expr(OTHER, self.label(node))
        convert = _CONVERTERS.get(node.type)
        if convert is None:
            return Expr(STRING if node.type in _STRINGS else OTHER, self.label(node))
        return convert(self, node, depth + 1)

    def _name(self, node: Node, depth: int) -> Expr:
        spelling = self.text(node)
        return Expr(IDENTIFIER, spelling, spelling)

    def _null(self, node: Node, depth: int) -> Expr:
        spelling = self.text(node)    # the NULL macro is a name; C++'s nullptr keyword is not
        return Expr(IDENTIFIER, spelling, spelling) if spelling == "NULL" else Expr(OTHER, spelling)

    def _qualified(self, node: Node, depth: int) -> Expr:
        name = node.child_by_field_name("name")
        while name is not None and name.type == "qualified_identifier":
            name = name.child_by_field_name("name")
        if name is None or name.type != "identifier":
            return Expr(OTHER, self.label(node))
        return Expr(IDENTIFIER, self.label(node), self.text(name))

    def _number(self, node: Node, depth: int) -> Expr:
        spelling = self.text(node)
        sign = spelling[0] if spelling[0] in "+-" else ""
        value = int_literal(spelling[1:].lstrip() if sign else spelling)
        literal = Expr(OTHER if value is None else INT, spelling.lstrip("+- "), value=value)
        if not sign:
            return literal
        # tree-sitter lexes `-1` as one literal, C as negation of 1.
        folded = None if value is None else (-value if sign == "-" else value)
        return Expr(UNARY, spelling, sign, (literal,), folded)

    def _char(self, node: Node, depth: int) -> Expr:
        spelling = self.text(node)
        value = char_literal(spelling)
        return Expr(OTHER if value is None else INT, spelling, value=value)

    def _paren(self, node: Node, depth: int) -> Expr:
        inner = [child for child in node.named_children if child.type != "comment"]
        if len(inner) != 1:
            return Expr(OTHER, self.label(node))
        return self.expr(inner[0], depth)

    def _cast(self, node: Node, depth: int) -> Expr:
        kind, value = node.child_by_field_name("type"), node.child_by_field_name("value")
        if kind is None or value is None:
            return Expr(OTHER, self.label(node))
        return Expr(CAST, self.label(node), self.text(kind), (self.expr(value, depth),))

    def _call(self, node: Node, depth: int) -> Expr:
        fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if fn is None:
            return Expr(OTHER, self.label(node))
        cast = call_cast(node)
        if cast is not None:
            return Expr(CAST, self.label(node), cast[0], (self.expr(cast[1], depth),))
        callee, via_field = self.callee(fn)
        if via_field and callee in CONTENTS and args is not None and args.named_child_count == 0 \
                and fn.type == "field_expression" and (obj := fn.child_by_field_name("argument")) is not None \
                and self._standard_contents(obj, node.start_byte):
            return Expr(CAST, self.label(node), callee, (self.expr(obj, depth),))     # facts.CONTENTS
        return Expr(CALL, self.label(node), callee, self.arguments(args, depth))

    def _standard_contents(self, obj: Node, pos: int) -> bool:
        """Whether an object is declared of a standard string, path, vector or span (as written:
        `std::string`, `fs::path`, a bare `string` under a using-directive)."""
        kind = self.types.class_of(obj, pos) if self.types is not None else None
        return kind is not None and "." not in kind and kind.rsplit("::", 1)[-1] in CONTENTS_CLASSES

    def _compound_literal(self, node: Node, depth: int) -> Expr:
        """C++'s `std::size_t{16}`, a braced cast of one value, is that value cast; a C compound
        literal (`(struct span){p, n}`) or an aggregate's list (`Span{p, n}`) is a brace list."""
        kind, items = node.child_by_field_name("type"), node.child_by_field_name("value")
        if items is None or items.type != "initializer_list":
            return Expr(OTHER, self.label(node))
        values = _items(items)
        if kind is None or node.children[0].type == "(" or len(values) != 1 or values[0].type == "initializer_list":
            return Expr(OTHER, self.label(node), BRACES, tuple(self.expr(value, depth) for value in values))
        return Expr(CAST, self.label(node), self.text(kind), (self.expr(values[0], depth),))

    def _brace_list(self, node: Node, depth: int) -> Expr:
        return Expr(OTHER, self.label(node), BRACES, tuple(self.expr(value, depth) for value in _items(node)))

    def _binary(self, node: Node, depth: int) -> Expr:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        op = node.child_by_field_name("operator")
        if left is None or right is None or op is None:
            return Expr(OTHER, self.label(node))
        a, b = self.expr(left, depth), self.expr(right, depth)
        fold = _FOLD2.get(op.type)
        value = fold(a.value, b.value) if fold and a.value is not None and b.value is not None else None
        return Expr(BINARY, self.label(node), op.type, (a, b), value)

    def _assignment(self, node: Node, depth: int) -> Expr:
        """An assignment used as a value (`while ((arg = *argv++) != NULL)`): its target and
        the value it gives are read there too (the Assignment fact records the store)."""
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        op = node.child_by_field_name("operator")
        if left is None or right is None or op is None:
            return Expr(OTHER, self.label(node))
        return Expr(OTHER, self.label(node), op.type, (self.expr(left, depth), self.expr(right, depth)))

    def _unary(self, node: Node, depth: int) -> Expr:
        operand, op = node.child_by_field_name("argument"), node.child_by_field_name("operator")
        if operand is None or op is None:
            return Expr(OTHER, self.label(node))
        a = self.expr(operand, depth)
        fold = _FOLD1.get(op.type) if node.type == "unary_expression" else None
        value = fold(a.value) if fold and a.value is not None else None
        return Expr(UNARY, self.label(node), op.type, (a,), value)

    def _subscript(self, node: Node, depth: int) -> Expr:
        base = node.child_by_field_name("argument")
        index = node.child_by_field_name("index") or node.child_by_field_name("indices")
        if index is not None and index.type == "subscript_argument_list":
            index = index.named_children[0] if index.named_child_count == 1 else None
        if base is None or index is None:
            return Expr(OTHER, self.label(node))
        return Expr(SUBSCRIPT, self.label(node), "", (self.expr(base, depth), self.expr(index, depth)))

    def _member(self, node: Node, depth: int) -> Expr:
        obj, name = node.child_by_field_name("argument"), node.child_by_field_name("field")
        if obj is None or name is None:
            return Expr(OTHER, self.label(node))
        struct = self.types.of(obj, node.start_byte) if self.types is not None else None
        return Expr(MEMBER, self.label(node), self.member_name(name), (self.expr(obj, depth),), field_of=struct)

    def _defined(self, node: Node, depth: int) -> Expr:
        """`defined(X)` in a preprocessor condition: the name, true when it is defined."""
        name = next((child for child in node.named_children if child.type == "identifier"), None)
        return self._name(name, depth) if name is not None else Expr(OTHER, self.label(node))

    def _clause(self, node: Node, depth: int) -> Expr:
        """C++'s `if (cond)` / `while (cond)` wrapper; `if (init; cond)` keeps the condition."""
        value = node.child_by_field_name("value")
        return self.expr(value, depth) if value is not None else Expr(OTHER, self.label(node))

    def _cond(self, node: Node, depth: int) -> Expr:
        parts = [node.child_by_field_name(f) for f in ("condition", "consequence", "alternative")]
        if any(part is None for part in parts):
            return Expr(OTHER, self.label(node))    # GNU `a ?: b`
        return Expr(COND, self.label(node), "", tuple(self.expr(part, depth) for part in parts))


class MacroConverter(Converter):
    """Converts a macro body for one invocation: `env` binds the parameters and
    `holes` lists (start, end, name) of their uses, sorted, so that they are
    substituted and texts read as they would after expansion."""

    def __init__(self, source: bytes, env: Bindings, holes: list[tuple[int, int, str]],
                 hole_at: dict[int, tuple[int, str]]) -> None:
        super().__init__(source)
        self.env, self.holes, self.hole_at = env, holes, hole_at

    def expr(self, node: Node, depth: int = 0) -> Expr:
        return self.substitute(node) or super().expr(node, depth)

    def text(self, node: Node) -> str:
        start, end = node.start_byte, node.end_byte
        parts, pos = [], start
        for i in range(bisect_left(self.holes, (start,)), len(self.holes)):
            hole_start, hole_end, name = self.holes[i]
            if hole_end > end:
                break
            parts.append(self.source[pos:hole_start].decode("utf-8", "replace"))
            parts.append(self.env.spelling(name))
            pos = hole_end
        parts.append(self.source[pos:end].decode("utf-8", "replace"))
        return "".join(parts)

    def label(self, node: Node) -> str:
        return shortened(self.text(node))

    def _parameter(self, node: Node) -> str | None:
        hole = self.hole_at.get(node.start_byte)
        return hole[1] if hole is not None and hole[0] == node.end_byte else None

    def spread(self, arg: Node) -> list[tuple[Converter, Node]] | None:
        name = self._parameter(arg)
        return self.env.spread(name) if name is not None else None

    def substitute(self, node: Node) -> Expr | None:
        name = self._parameter(node)
        return self.env.get(name) if name is not None else None


def _items(brace_list: Node) -> list[Node]:
    """The values of a brace list's items, in order: a designated item's value (`.base = p`)."""
    values = []
    for item in brace_list.named_children:
        if item.type == "initializer_pair":
            item = item.child_by_field_name("value")
        if item is not None and item.type != "comment":
            values.append(item)
    return values


def called_field(fn: Node) -> Node | None:
    """The field expression a call's function is, under parentheses and a dereference: `h->init`
    of `h->init(...)` and of `(*h->init)(...)`."""
    while fn is not None and fn.type in ("parenthesized_expression", "pointer_expression"):
        fn = fn.child_by_field_name("argument") if fn.type == "pointer_expression" else \
            (fn.named_children[0] if fn.named_child_count == 1 else None)
    return fn if fn is not None and fn.type == "field_expression" else None


def bound_callee(bound: Expr) -> tuple[str, bool]:
    """Callee name when a macro parameter names the function: `fn(x)` with fn := ops->queue."""
    if bound.kind in (IDENTIFIER, MEMBER, CALL):
        return bound.op, bound.kind == MEMBER
    return bound.text, False


_CONVERTERS: dict[str, Callable[[Converter, Node, int], Expr]] = {
    **{kind: Converter._name for kind in _NAMES},
    "field_identifier": Converter._name,    # the member a constructor's initialiser list sets
    "null": Converter._null,
    "qualified_identifier": Converter._qualified,
    "number_literal": Converter._number,
    "char_literal": Converter._char,
    "parenthesized_expression": Converter._paren,
    "cast_expression": Converter._cast,
    "call_expression": Converter._call,
    "compound_literal_expression": Converter._compound_literal,
    "initializer_list": Converter._brace_list,
    "binary_expression": Converter._binary,
    "assignment_expression": Converter._assignment,
    "unary_expression": Converter._unary,
    "pointer_expression": Converter._unary,
    "update_expression": Converter._unary,
    "subscript_expression": Converter._subscript,
    "field_expression": Converter._member,
    "conditional_expression": Converter._cond,
    "preproc_defined": Converter._defined,
    "condition_clause": Converter._clause,
    "sizeof_expression": lambda conv, node, depth: Expr(OTHER, conv.size_label(node), "sizeof"),
    "new_expression": lambda conv, node, depth: Expr(OTHER, conv.label(node), "new"),
}
