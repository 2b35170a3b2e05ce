"""Preprocessor groups, without a preprocessor: which ones no Linux compiler sees,
and under which condition the others are compiled.

clang runs the preprocessor and never sees `#if 0` code, Windows-only code, or
`#ifdef NAME` code after `#undef NAME`; tree-sitter reads every group.  Where the
answer is known on Linux (mmaplint's target: its rules are about Linux kernels), the
group is dropped here as clang drops it.  The other groups become guards: code that
runs only when their condition holds.
"""
from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from ..facts import BINARY, IDENTIFIER, INT, UNARY, Expr
from .ts_expr import Converter
from .ts_names import text

# Predefined by compilers for other systems: never defined when compiling for Linux.
OTHER_SYSTEMS = frozenset({
    "_WIN32", "_WIN64", "_MSC_VER", "__CYGWIN__", "__MINGW32__", "__MINGW64__", "__APPLE__",
    "__MACH__", "__FreeBSD__", "__OpenBSD__", "__NetBSD__", "__DragonFly__", "__sun", "_AIX",
    "__hpux", "__HAIKU__", "__QNX__", "__VXWORKS__", "__EMSCRIPTEN__",
})
# Predefined by GCC and clang when compiling for Linux.
LINUX = frozenset({"__linux__", "__linux", "linux", "__gnu_linux__", "__unix__", "__unix", "unix"})
# Predefined by a C++ compiler only.
_LANGUAGE = {"c++": frozenset({"__cplusplus"})}
_OTHER_LANGUAGE = {"c": frozenset({"__cplusplus"})}
_BY_NAME = ("preproc_ifdef", "preproc_elifdef")     # #ifdef X, #ifndef X: a name, no expression


@dataclass(frozen=True)
class Group:
    """One group of a conditional: the bytes it spans and the condition that selects it."""

    start: int
    end: int
    condition: Expr


def groups(source: bytes, conditionals: list[Node], directives: list[Node],
           language: str = "c") -> tuple[list[Group], list[Group]]:
    """(disabled, conditional): groups known never to compile on Linux, and groups compiled
    only when their condition holds (the first group of each `#if`/`#ifdef`/`#elif`).  The
    file's language decides `__cplusplus`: a C file's `#if defined(__cplusplus)` code (lua's
    `#define LUAI_THROW(L,c) throw(c)`) is another compiler's."""
    undefs = _undefs(source, directives)
    convert = Converter(source)
    disabled, conditional = [], []
    for node in conditionals:
        condition = _condition(node, convert)
        if condition is None:
            continue
        alternative = node.child_by_field_name("alternative")
        first = Group(_body_start(node), alternative.start_byte if alternative else node.end_byte,
                      condition)
        undefined = frozenset(name for name, at in undefs.items() if at < node.start_byte)
        value = evaluate(condition, undefined)
        if value is None and not node.has_error:
            # the language decides a group that parses as this language's code: a C
            # header's `#ifdef __cplusplus` / `extern "C" {` does not, and its error can
            # stretch the group over the whole header
            value = evaluate(condition, undefined | _OTHER_LANGUAGE.get(language, frozenset()),
                             _LANGUAGE.get(language, frozenset()))
        if value is False:
            disabled.append(first)
        elif value is True and alternative is not None:
            disabled.append(Group(alternative.start_byte, node.end_byte, condition))
        elif value is None:
            conditional.append(first)
    return disabled, conditional


def evaluate(condition: Expr, undefined: frozenset[str] = frozenset(),
             defined: frozenset[str] = frozenset()) -> bool | None:
    """The condition's truth when compiling for Linux, None when it depends on the build."""
    if condition.kind == INT:
        return condition.value != 0
    if condition.kind == IDENTIFIER:
        if condition.op in OTHER_SYSTEMS or condition.op in undefined:
            return False
        return True if condition.op in LINUX or condition.op in defined else None
    if condition.kind == UNARY and condition.op == "!":
        inner = evaluate(condition.children[0], undefined, defined)
        return None if inner is None else not inner
    if condition.kind == BINARY and condition.op in ("&&", "||"):
        left, right = (evaluate(part, undefined, defined) for part in condition.children)
        decisive = condition.op == "||"        # the value that decides alone
        if decisive in (left, right):
            return decisive
        return None if None in (left, right) else not decisive
    return None


def _condition(node: Node, convert: Converter) -> Expr | None:
    """`#ifdef X` as the name X, `#ifndef X` as !X, `#if`/`#elif` as their expression."""
    if node.type in _BY_NAME:
        name = node.child_by_field_name("name")
        if name is None:
            return None
        spelled = text(convert.source, name)
        expr = Expr(IDENTIFIER, spelled, spelled)
        negated = node.children[0].type in ("#ifndef", "#elifndef")
        return Expr(UNARY, "!" + spelled, "!", (expr,)) if negated else expr
    condition = node.child_by_field_name("condition")
    return convert.expr(condition) if condition is not None else None


def _body_start(node: Node) -> int:
    """Where the group's code starts: after the directive's line."""
    field = "name" if node.type in _BY_NAME else "condition"
    head = node.child_by_field_name(field)
    return head.end_byte if head is not None else node.start_byte


def _undefs(source: bytes, directives: list[Node]) -> dict[str, int]:
    """Names the file `#undef`s and never `#define`s, with where: `#ifdef` of them is false
    after the `#undef` (a file that turns a debug switch off that way, as varnish's vev.c does)."""
    undefined: dict[str, int] = {}
    defined = set()
    for node in directives:
        if node.type == "preproc_def" or node.type == "preproc_function_def":
            name = node.child_by_field_name("name")
            if name is not None:
                defined.add(text(source, name))
        else:
            directive, argument = node.child_by_field_name("directive"), node.child_by_field_name("argument")
            if directive is not None and text(source, directive) == "#undef" and argument is not None:
                undefined.setdefault(text(source, argument).strip(), node.start_byte)
    return {name: at for name, at in undefined.items() if name not in defined}
