"""Questions about one expression on its own: its constant value, the pointer an lvalue
writes through."""
from __future__ import annotations

import operator
from dataclasses import replace
from typing import Callable

from . import constants
from .facts import BINARY, BRACES, COND, IDENTIFIER, INT, MEMBER, OTHER, SUBSCRIPT, UNARY, Expr, strip

_ARITHMETIC = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    # C leaves shifts by a negative count or by the width undefined: no value
    "<<": lambda a, b: a << b if 0 <= b < 64 else None,
    ">>": lambda a, b: a >> b if 0 <= b < 64 else None,
    "|": lambda a, b: a | b, "&": lambda a, b: a & b, "/": lambda a, b: a // b if b else None,
}
# Macros and literals both frontends spell as names: stdbool.h's, C++'s, the null pointer.
_NAMED_VALUES = {"false": 0, "true": 1, "NULL": 0, "nullptr": 0}


def constant(expr: Expr | None, lookup: Callable[[str], int | None] | None = None) -> int | None:
    """The integer value of a constant expression (`16 << 20`, `4096 * 4`), else None.
    `lookup(name)` may give the value of other names (a file's `#define SEG 4096`)."""
    expr = strip(expr)
    if expr is None:
        return None
    if expr.value is not None:
        return expr.value
    if expr.kind == IDENTIFIER:
        known = constants.ALL_CONSTANTS.get(expr.op, _NAMED_VALUES.get(expr.op))
        return known if known is not None or lookup is None else lookup(expr.op)
    if expr.kind == UNARY and expr.op == "-" and expr.children:
        inner = constant(expr.children[0], lookup)
        return -inner if inner is not None else None
    if expr.kind == BINARY and expr.op in _ARITHMETIC:
        left, right = (constant(k, lookup) for k in expr.children)
        if left is not None and right is not None:
            value = _ARITHMETIC[expr.op](left, right)
            # as a 64-bit machine computes it: `1 << 63 << 63` must not grow without bound
            return None if value is None else (value + (1 << 63)) % (1 << 64) - (1 << 63)
    return None


def alternatives(expr: Expr | None) -> list[Expr | None]:
    """The values an expression may have, seen through `?:` (`p == MAP_FAILED ? NULL : p`:
    NULL or p)."""
    expr = strip(expr)
    if expr is not None and expr.kind == COND:
        return [value for branch in expr.children[1:] for value in alternatives(branch)]
    return [expr]


def handed_back(expr: Expr | None) -> list[Expr | None]:
    """The values a returned expression hands the caller: its alternatives, and each item of
    a brace list among them (`return Region{fd, (char *)p, n};`: a struct that holds p)."""
    found = []
    for value in alternatives(expr):
        if value is not None and value.kind == OTHER and value.op == BRACES:
            found += [item for child in value.children for item in handed_back(child)]
        else:
            found.append(value)
    return found


def brace_list(expr: Expr | None) -> bool:
    """Whether an initialiser is a brace list (`= {a, b}`, `{0}`), which both frontends keep
    as an opaque expression spelled as written."""
    return expr is not None and expr.kind == OTHER and expr.text.startswith("{")


def address_of(expr: Expr | None) -> Expr | None:
    """The lvalue of `&x` (x), None for anything else."""
    expr = strip(expr)
    if expr is not None and expr.kind == UNARY and expr.op == "&" and expr.children:
        return expr.children[0]
    return None


def dereferenced(expr: Expr | None) -> Expr | None:
    """The pointer `*p` and `p[i]` read what it points to through (p), as written."""
    expr = strip(expr)
    if expr is not None and expr.children and (
            expr.kind == SUBSCRIPT or expr.kind == UNARY and expr.op == "*"):
        return strip(expr.children[0])
    return None


def address_base(target: Expr) -> Expr | None:
    """The pointer an lvalue writes through: p in p[i], *(p + i), p[i].field, p->field, *q."""
    target = strip(target)
    while target is not None:
        if target.kind == SUBSCRIPT:
            return target.children[0]
        if target.kind == UNARY and target.op == "*":
            return target.children[0]
        if target.kind == MEMBER:
            if through_pointer(target):
                return target.children[0]       # p->f writes through p
            target = strip(target.children[0])  # s.f writes where s lives
            continue
        return None
    return None


def through_pointer(member: Expr) -> bool:
    """p->f rather than s.f."""
    return "".join(member.text.split()).endswith("->" + member.op)


def is_store_through_pointer(target: Expr | None) -> bool:
    return target is not None and address_base(target) is not None


def assume(expr: Expr, value_of: Callable[[Expr], int | None]) -> Expr:
    """The expression with every node `value_of` knows a value of replaced by that value
    (`!err && i < n` with err true: `!1 && i < n`)."""
    value = value_of(expr)
    if value is not None:
        return replace(expr, kind=INT, op="", children=(), value=value)
    children = tuple(assume(child, value_of) for child in expr.children)
    return expr if all(a is b for a, b in zip(children, expr.children)) else replace(expr, children=children)


def truth(expr: Expr | None, lookup: Callable[[str], int | None] | None = None) -> bool | None:
    """Whether a condition holds, when its value is known (`!0`, `NULL`, `n == 0` with n known),
    else None."""
    expr = strip(expr)
    if expr is None:
        return None
    value = constant(expr, lookup)
    if value is not None:
        return value != 0
    if expr.kind == UNARY and expr.op == "!" and expr.children:
        inner = truth(expr.children[0], lookup)
        return None if inner is None else not inner
    if expr.kind == BINARY and expr.op in ("&&", "||") and len(expr.children) == 2:
        left, right = (truth(k, lookup) for k in expr.children)
        if expr.op == "&&":
            return False if False in (left, right) else True if left and right else None
        return True if True in (left, right) else False if left is False and right is False else None
    if expr.kind == BINARY and expr.op in _COMPARED and len(expr.children) == 2:
        left, right = (constant(k, lookup) for k in expr.children)
        if left is None or right is None:
            return None
        return _COMPARED[expr.op](left, right)
    return None


_COMPARED = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
             ">=": operator.ge}
