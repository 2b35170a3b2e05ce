"""libclang expression cursors as frontend-neutral :class:`Expr` trees.

Clang sees the program after preprocessing, so `O_RDWR | O_DSYNC` arrives as
two integer literals.  The spelling comes back from the file: a cursor whose
file-location range is one identifier was written as that (object-like) macro
name.  A literal written inside a function-like macro's body has the whole
invocation as its range; it keeps only its evaluated value.
"""
from __future__ import annotations

from dataclasses import dataclass

from clang.cindex import Cursor, CursorKind

from ..facts import (BINARY, BRACES, CALL, CAST, CONTENTS, CONTENTS_CLASSES, COND, INT, MEMBER, IDENTIFIER, OTHER, STRING, SUBSCRIPT, UNARY, Expr,
                     TemplateUse, spelled)
from . import clang_native as native

_K = CursorKind
_LOOK_THROUGH = {_K.PAREN_EXPR.value, _K.UNEXPOSED_EXPR.value}
_NAME_KINDS = {_K.DECL_REF_EXPR.value, _K.OVERLOADED_DECL_REF.value}
_LITERALS = {_K.INTEGER_LITERAL.value, _K.CHARACTER_LITERAL.value}
_CASTS = {kind.value for kind in (
    _K.CSTYLE_CAST_EXPR, _K.CXX_STATIC_CAST_EXPR, _K.CXX_REINTERPRET_CAST_EXPR, _K.CXX_CONST_CAST_EXPR,
    _K.CXX_DYNAMIC_CAST_EXPR, _K.CXX_FUNCTIONAL_CAST_EXPR)}
# Keyword expressions whose text is an identifier but never a macro name.
_KEYWORDS = {_K.CXX_BOOL_LITERAL_EXPR.value, _K.CXX_NULL_PTR_LITERAL_EXPR.value, _K.CXX_THIS_EXPR.value}
_UNARY_OPS = {"-", "+", "~", "!", "*", "&", "++", "--"}
# Binary operators a class may overload, read as written (not `=`, an assignment, nor `<<` and
# `>>`, which the walk reads as a stream's insertions and extractions)
_OVERLOADED_BINARY = {"+", "-", "*", "/", "%", "<", ">", "<=", ">=", "==", "!=", "&", "|", "^", "&&", "||"}
_COMPARISONS = {"<", ">", "<=", ">="}     # C++20 rewrites them through `<=>`
_FOLDABLE = {"-", "+", "~", "!"}
_NOT_ASSIGNMENT = {"==", "!=", "<=", ">="}
_MAX_DEPTH = 120    # deeper expressions become OTHER instead of recursing (as in the tree-sitter frontend)
_RECORDS = {kind.value for kind in (_K.STRUCT_DECL, _K.UNION_DECL, _K.CLASS_DECL, _K.CLASS_TEMPLATE)}


def is_assignment_operator(op: str) -> bool:
    return op.endswith("=") and op not in _NOT_ASSIGNMENT


def _enumerator(cursor: Cursor, kind: int) -> bool:
    """Whether a name refers to an enumerator (`enum { UNIT = 10 << 20 };`): a constant, known
    by its value as a macro's is (the tree-sitter frontend records the enumerator's value as a
    file-scope assignment)."""
    return kind == _K.DECL_REF_EXPR.value and native.referenced(cursor)._kind_id == _K.ENUM_CONSTANT_DECL.value


def look_through(cursor: Cursor) -> Cursor:
    """The cursor under parentheses and implicit conversions."""
    while cursor._kind_id in _LOOK_THROUGH:
        kids = native.children(cursor)
        if len(kids) != 1:
            break
        cursor = kids[0]
    return cursor


def call_under(cursor: Cursor) -> Cursor | None:
    """The call an initialiser or right-hand side is, looking through parentheses and casts."""
    while cursor._kind_id != _K.CALL_EXPR.value:
        if cursor._kind_id not in _LOOK_THROUGH and cursor._kind_id not in _CASTS:
            return None
        kids = native.children(cursor)
        if not kids or (cursor._kind_id in _LOOK_THROUGH and len(kids) != 1):
            return None
        cursor = kids[-1]
    return cursor


def _is_operator_overload(name: str) -> bool:
    return name.startswith("operator") and len(name) > 8 and not (name[8].isalnum() or name[8] == "_")


@dataclass
class CallShape:
    """What a call expression calls and with which argument cursors."""

    callee: str
    via_field: bool
    name_cursor: Cursor | None    # the callee's identifier, None for computed callees
    arguments: list[Cursor]
    receiver: Cursor | None = None    # the object of `obj.f()` / `obj->f()`


def added_by_compiler(construction: Cursor, arguments: list[Cursor], file) -> bool:
    """Whether a construction is a conversion or copy the compiler adds, not one written: its
    one argument is all of its text."""
    return len(arguments) == 1 and file.extent(arguments[0]) == file.extent(construction)


def call_shape(call: Cursor, tu) -> CallShape | None:
    """None for constructions and for overloaded operators other than `()`: the source has no call there."""
    if native.referenced(call)._kind_id == _K.CONSTRUCTOR.value:
        return None
    kids = native.children(call)
    name = native.spelling(call)
    if _is_operator_overload(name):
        if name != "operator()" or len(kids) < 2:
            return None
        callee, arguments = kids[0], kids[2:]
    elif kids:
        callee, arguments = kids[0], kids[1:]
    else:
        return CallShape(name, False, None, [])
    callee = look_through(callee)
    while callee._kind_id == _K.UNARY_OPERATOR.value and native.unary_operator(callee) == "*":
        callee = look_through(native.children(callee)[0])
    kind = callee._kind_id
    if kind in _NAME_KINDS:
        return CallShape(native.spelling(callee), False, callee, arguments)
    if kind == _K.MEMBER_REF_EXPR.value:
        objects = native.children(callee)    # none for a method called on the implicit this
        # a field called on the implicit this (a std::function or a function pointer member)
        # goes through the field all the same
        through = bool(objects) or native.referenced(callee)._kind_id == _K.FIELD_DECL.value
        return CallShape(native.spelling(callee) or dependent_member(tu, callee), through, callee, arguments,
                         look_through(objects[0]) if objects else None)
    return CallShape(name, False, None, arguments)


def _standard_contents(method: Cursor) -> bool:
    """Whether a method is one of a standard string's, path's, vector's or span's (facts.CONTENTS):
    its class is in namespace std, as the library's inline namespaces (`std::__cxx11`) are."""
    owner = native.semantic_parent(method)
    if owner is None or struct_name(owner) not in CONTENTS_CLASSES:
        return False
    scope = native.semantic_parent(owner)
    while scope is not None and scope._kind_id == _K.NAMESPACE.value:
        if native.spelling(scope) == "std" and (outer := native.semantic_parent(scope)) is not None \
                and outer._kind_id == _K.TRANSLATION_UNIT.value:
            return True
        scope = native.semantic_parent(scope)
    return False


def dependent_member(tu, member: Cursor) -> str:
    """The member a template calls on an object of a parameter's type (`inner_.commit()`
    with `INNER inner_`), which libclang leaves unnamed: the member expression's last token."""
    with native.Tokens(tu, native.extent_range(member)) as tokens:
        names = [tokens.spelling(token) for token in tokens]
    return names[-1] if names and names[-1].isidentifier() else ""


def template_use(kind) -> TemplateUse | None:
    """A type that is a class template with arguments (`PlantDB<CacheDB, TYPEGRASS>`, through
    typedefs): the template's name and each argument's class name ("" for a value)."""
    found = native.template_arguments(kind)
    if found is None or (template := struct_name(found[0])) is None:
        return None
    return TemplateUse(template, tuple(struct_name(argument) or "" for argument in found[1]))


def owner_of(member: Cursor) -> str | None:
    """The struct or class that declares a field."""
    if member._kind_id != _K.FIELD_DECL.value:
        return None
    return struct_name(native.semantic_parent(member))


def struct_name(declaration: Cursor | None) -> str | None:
    """A struct's name as the source spells it: its tag, or for an anonymous one the typedef
    name it is known by (`typedef struct { ... } ops_t;`)."""
    if declaration is None or declaration._kind_id not in _RECORDS:
        return None
    name = native.spelling(declaration)
    if not name or "(" in name:     # anonymous: "struct (unnamed at x.c:3:9)" in some versions
        name = native.type_spelling(declaration)
    name = name.split("::")[-1].removeprefix("const ").split(" ")[-1]
    return name if name.isidentifier() else None


def class_path(declaration: Cursor | None) -> str | None:
    """A class's name with the classes it is nested in, without namespaces (`CacheDB::Cursor`),
    as FileFacts.classes names it."""
    parts = [struct_name(declaration)]
    parent = native.semantic_parent(declaration) if parts[0] is not None else None
    while parent is not None and parent._kind_id in _RECORDS and (outer := struct_name(parent)) is not None:
        parts.append(outer)
        parent = native.semantic_parent(parent)
    return "::".join(reversed(parts)) if parts[0] is not None else None


class ExprBuilder:
    """Converts expression cursors of one file; `source` is the file's bytes.  Each cursor is
    converted once, and its tree shared by every fact that reaches it (the nested `--` of
    `-- -- x`, or calls, or operators, share their operands'), which keeps a file's facts
    linear in its size; a tree built at depth d serves requests at depth d or less, so that
    no fact's tree grows deeper than _MAX_DEPTH (as in ts_expr.Converter)."""

    def __init__(self, main_file: native.MainFile, source: bytes, tu) -> None:
        self._file = main_file
        self._source = source
        self._tu = tu
        self._built: dict[tuple, tuple[Expr, int]] = {}   # the AST node: its tree, the depth it was built at

    def text(self, start: native.Position, end: native.Position) -> str:
        return self._source[start[2]:end[2]].decode("utf-8", "replace")

    def cursor_text(self, cursor: Cursor) -> str:
        return self.text(*self._file.extent(cursor))

    def build(self, cursor: Cursor, depth: int = 0) -> Expr:
        cursor = look_through(cursor)
        key = (cursor._kind_id, cursor.xdata, cursor.data[0], cursor.data[1])   # the AST node
        built = self._built.get(key)
        if built is not None and depth <= built[1]:
            return built[0]
        expr = self._build(cursor, depth)
        self._built.setdefault(key, (expr, depth))
        return expr

    def _build(self, cursor: Cursor, depth: int) -> Expr:
        start, end = self._file.extent(cursor)
        text = spelled(self._source, start[2], end[2])
        kind = cursor._kind_id
        if not text and (value := native.evaluate_int(cursor)) is not None:
            # what the compiler adds, unwritten: a default argument (`update()` of
            # `update(int fd = -1)`), by its value
            return Expr(INT, str(value), value=value)
        if kind not in _KEYWORDS and text.isidentifier():
            # A name as written: the variable's, or the macro's that expanded to this cursor.
            macro = kind not in _NAME_KINDS and kind != _K.MEMBER_REF_EXPR.value
            known = macro or _enumerator(cursor, kind)
            return Expr(IDENTIFIER, text, text, value=native.evaluate_int(cursor) if known else None)
        if depth > _MAX_DEPTH:
            return Expr(OTHER, text)
        return self._convert(cursor, kind, text, depth + 1)

    def _convert(self, cursor: Cursor, kind: int, text: str, depth: int) -> Expr:
        if kind in _NAME_KINDS:
            return Expr(IDENTIFIER, text, native.spelling(cursor))
        if kind == _K.MEMBER_REF_EXPR.value:
            kids = native.children(cursor)
            if not kids:   # implicit `this->`: written as a plain name
                return Expr(IDENTIFIER, text, native.spelling(cursor))
            name, base = native.spelling(cursor), self.build(kids[0], depth)
            if not "".join(text.split()).endswith(("->" + name, "." + name)):
                # a member named through a macro (lmdb's `#define mp_pgno mp_p.p_pgno`): spell
                # it out, so that `np->mp_pgno` still reads as a store through np
                text = f"{base.text}{'->' if native.is_pointer(kids[0]) else '.'}{name}"
            return Expr(MEMBER, text, name, (base,), field_of=owner_of(native.referenced(cursor)))
        if kind == _K.CXX_THIS_EXPR.value:
            return Expr(IDENTIFIER, text, "this")
        if kind in _KEYWORDS:     # true, false, nullptr: names, as tree-sitter and C's macros spell them
            return Expr(IDENTIFIER, text, text)
        if kind in _LITERALS:
            return self._literal(cursor, kind, text)
        if kind == _K.STRING_LITERAL.value:
            return Expr(STRING, text)
        if kind == _K.BINARY_OPERATOR.value or kind == _K.COMPOUND_ASSIGNMENT_OPERATOR.value:
            op = native.binary_operator(cursor)
            if is_assignment_operator(op):      # used as a value: what it reads is read there too
                return Expr(OTHER, text, op, self._kids(cursor, depth))
            return self._folded(cursor, Expr(BINARY, text, op, self._kids(cursor, depth)))
        if kind == _K.UNARY_OPERATOR.value:
            op = native.unary_operator(cursor)
            if op in _UNARY_OPS:
                expr = Expr(UNARY, text, op, self._kids(cursor, depth))
                return self._folded(cursor, expr) if op in _FOLDABLE else expr
        if kind == _K.ARRAY_SUBSCRIPT_EXPR.value:
            return Expr(SUBSCRIPT, text, "", self._kids(cursor, depth))
        if kind == _K.CONDITIONAL_OPERATOR.value:
            kids = self._kids(cursor, depth)
            if len(kids) == 3:
                return self._folded(cursor, Expr(COND, text, "", kids))
        if kind in _CASTS:
            operand = native.children(cursor)[-1]
            if operand._kind_id == _K.INIT_LIST_EXPR.value:
                items = native.children(operand)
                if len(items) != 1:     # `Region{fd, p, n}`: a brace list, as tree-sitter reads it
                    return self._brace_list(operand, text, depth)
                operand = items[0]      # `std::size_t{16}`: the braced value is what is cast
            return self._folded(cursor, Expr(CAST, text, native.type_spelling(cursor), (self.build(operand, depth),)))
        if kind == _K.INIT_LIST_EXPR.value:     # a brace list
            return self._brace_list(cursor, text, depth)
        if kind == _K.COMPOUND_LITERAL_EXPR.value:     # `(struct region){p, n}`: its list, as written
            lists = [kid for kid in native.children(cursor) if kid._kind_id == _K.INIT_LIST_EXPR.value]
            if len(lists) == 1:
                return self._brace_list(lists[0], text, depth)
        if kind == _K.CXX_UNARY_EXPR.value:     # sizeof (alignof), spelled as written or from a macro
            # one size however spelled: `sizeof h` of a `struct hdr h` is `sizeof(hdr)`, as the
            # tree-sitter frontend names it (Converter.size_label)
            measured = native.measured_declaration(cursor) if text.startswith("sizeof") else None
            name = native.spelling(measured) if measured is not None else ""
            return Expr(OTHER, f"sizeof({name})" if name else text, "sizeof")
        if kind == _K.CXX_NEW_EXPR.value:       # an allocation (pointer provenance)
            return Expr(OTHER, text, "new")
        if kind == _K.CALL_EXPR.value:
            kids = native.children(cursor)
            if native.referenced(cursor)._kind_id == _K.CONSTRUCTOR.value and added_by_compiler(cursor, kids, self._file):
                # an implicit conversion (a std::optional<Region> returned from a Region, a
                # std::string parameter handed a char *): the value converted, as written
                return self.build(kids[0], depth)
            if len(kids) == 2 and native.spelling(cursor) == "operator->":
                # `out->commit()` of a smart pointer (or an iterator): what `->` goes through
                # is the object itself, as of a plain pointer (as tree-sitter reads it)
                pointer = [kid for kid in kids if native.spelling(kid) != "operator->"]
                if len(pointer) == 1:
                    return self.build(pointer[0], depth)
            spelled = native.spelling(cursor) if len(kids) == 3 else ""
            if spelled == "operator[]":    # v[i] on a class: (v, operator[], i)
                return Expr(SUBSCRIPT, text, "", (self.build(kids[0]), self.build(kids[2])))
            op = spelled.removeprefix("operator")
            if op in _COMPARISONS and (compared := self._rewritten_comparison(kids, op, depth)) is not None:
                return compared
            if op in _OVERLOADED_BINARY:
                # `now >= next` of two std::chrono time points: (a, operator>=, b), read as the
                # operator it is written as, as tree-sitter reads it
                return Expr(BINARY, text, op, (self.build(kids[0], depth), self.build(kids[2], depth)))
            shape = call_shape(cursor, self._tu)
            if shape is not None and shape.callee in CONTENTS and shape.receiver is not None and not shape.arguments \
                    and _standard_contents(native.referenced(shape.name_cursor)):
                return Expr(CAST, text, shape.callee, (self.build(shape.receiver, depth),))     # facts.CONTENTS
            if shape is not None:
                return Expr(CALL, text, shape.callee, tuple(self.build(arg, depth) for arg in shape.arguments))
        return Expr(OTHER, text)

    def _rewritten_comparison(self, kids: list[Cursor], op: str, depth: int) -> Expr | None:
        """C++20's `now >= next` of two std::chrono time points, which clang rewrites as
        `(now <=> next) >= 0` (kids: that call of operator>=): the comparison as written."""
        inner = look_through(kids[0])
        if inner._kind_id != _K.CALL_EXPR.value or native.spelling(inner) != "operator<=>":
            return None
        parts = native.children(inner)
        if len(parts) != 3:
            return None
        text = self.text(self._file.extent(parts[0])[0], self._file.extent(parts[2])[1])
        return Expr(BINARY, text, op, (self.build(parts[0], depth), self.build(parts[2], depth)))

    def _brace_list(self, braces: Cursor, text: str, depth: int) -> Expr:
        """A brace list as the values of its items: a designated item's (`.base = p`: the
        designator's field references, then the value) is its last part."""
        values = []
        for item in native.children(braces):
            parts = native.children(item) if item._kind_id == _K.UNEXPOSED_EXPR.value else []
            designated = bool(parts) and parts[0]._kind_id == _K.MEMBER_REF.value
            values.append(self.build(parts[-1] if designated else item, depth))
        return Expr(OTHER, text, BRACES, tuple(values))

    def _kids(self, cursor: Cursor, depth: int) -> tuple[Expr, ...]:
        return tuple(self.build(kid, depth) for kid in native.children(cursor))

    def _literal(self, cursor: Cursor, kind: int, text: str) -> Expr:
        if text.isdigit() and (text[0] != "0" or text == "0"):   # plain decimal: no need to ask clang
            return Expr(INT, text, "", value=int(text))
        value = native.evaluate_int(cursor)
        written = text[:1].isdigit() if kind == _K.INTEGER_LITERAL.value else text.endswith("'")
        if not written:
            # Spelled inside a function-like macro's body: the range is the whole invocation.
            text = str(value)
        return Expr(INT, text, "", value=value)

    def _folded(self, cursor: Cursor, expr: Expr) -> Expr:
        """A constant operation gets clang's value, so flags combined from macros keep theirs."""
        if all(kid.value is not None for kid in expr.children):
            value = native.evaluate_int(cursor)
            if value is not None:
                return Expr(expr.kind, expr.text, expr.op, expr.children, value)
        return expr
