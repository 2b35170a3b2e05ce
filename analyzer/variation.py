"""How a value changes from one iteration of a loop nest to the next: loop-invariant,
sequential (affine in the loop's counters: appends, fills, strides), or scattered (hashed,
random, modulo, loaded from data).  MML003 and MML004 ask this of addresses and paths."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .expressions import through_pointer
from .facts import (BINARY, CALL, COND, IDENTIFIER, INT, MEMBER, RANGE_ELEMENT, STRING, SUBSCRIPT, UNARY,
                    Assignment, Expr, Span, strip)

if TYPE_CHECKING:
    from .program import Key, Program

INVARIANT, AFFINE, SCATTERED = 0, 1, 2


class Variation:
    """Classifies expressions by how they vary across the iterations of one loop nest."""

    ORDER_PRESERVING = {"+", "-"}
    SCALING = {"*", "<<", "/"}   # by a loop-invariant factor, a stride

    def __init__(self, program: Program, path: str, function: str | None, loop: Span | None,
                 anchors: frozenset[Key] = frozenset()):
        self.program, self.path, self.function = program, path, function
        self.loop = loop                 # the outermost loop of the nest
        self.anchors = anchors           # pointers offsets are measured from (a fresh mapping's base)
        self.visiting: set[Key] = set()

    def of(self, expr: Expr | None, address: bool = False) -> int:
        expr = strip(expr)
        if expr is None or expr.kind in (INT, STRING):
            return INVARIANT
        kids = expr.children
        if expr.kind == CALL:
            return SCATTERED    # hash(), rand(), a lookup: data-dependent by assumption
        if expr.kind == SUBSCRIPT:
            base, index = self.of(kids[0], address), self.of(kids[1])
            if address:
                return max(base, index)
            return SCATTERED if max(base, index) != INVARIANT else INVARIANT
        if expr.kind == UNARY:
            inner = self.of(kids[0], address and expr.op == "*") if kids else INVARIANT
            if expr.op == "*" and not address:
                return SCATTERED if inner != INVARIANT else INVARIANT
            return inner
        if expr.kind == BINARY:
            left, right = (self.of(k) for k in kids)
            if expr.op in self.ORDER_PRESERVING:
                return max(left, right)
            if expr.op in self.SCALING:
                return max(left, right) if INVARIANT in (left, right) else SCATTERED
            return INVARIANT if left == right == INVARIANT else SCATTERED
        if expr.kind == COND:
            return max(self.of(k) for k in kids)
        if expr.kind == MEMBER and address:
            # s.f walks with s; p->f walks with the pointer value p
            return self.of(kids[0]) if through_pointer(expr) else self.of(kids[0], address=True)
        if expr.kind in (IDENTIFIER, MEMBER):
            return self._variable(expr)
        return max((self.of(k) for k in kids), default=INVARIANT)

    def _variable(self, expr: Expr) -> int:
        key = self.program.key(expr, self.path, self.function)
        if key is None or key in self.anchors:
            return INVARIANT
        if key in self.visiting:
            return SCATTERED    # a recurrence other than x = x +/- step (an LCG, a hash chain)
        in_loop = [a for a in self.program.assignments_to(key) if self._inside(a.span)]
        if not in_loop:
            return INVARIANT
        self.visiting.add(key)
        try:
            return max(self._update(a) for a in in_loop)
        finally:
            self.visiting.discard(key)

    def _update(self, a: Assignment) -> int:
        if a.op == RANGE_ELEMENT:
            return SCATTERED     # each iteration's element is data
        if a.op in ("++", "--", "+=", "-=") or self._steps(a):
            return AFFINE        # a counter or an append cursor: monotonic, sequential
        if a.op == "=":
            return self.of(a.value)
        return SCATTERED         # *=, %=, ^=, <<= ...: the next value jumps

    def _steps(self, a: Assignment) -> bool:
        """x = x + step / x = x - step with a loop-invariant step: a cursor written the long way
        (x = x + x doubles: not a step)."""
        value = strip(a.value)
        if a.op != "=" or value is None or value.kind != BINARY or value.op not in ("+", "-"):
            return False
        target = self.program.key(a.target, a.span.path, a.function)
        keys = [self.program.key(k, a.span.path, a.function) for k in value.children]
        return keys.count(target) == 1 and all(self.of(k) == INVARIANT for k, kk in zip(value.children, keys)
                                               if kk != target)

    def _inside(self, span: Span) -> bool:
        loop = self.loop
        return loop is not None and span.path == self.path and (
            (loop.line, loop.column) <= (span.line, span.column)
            and (span.end_line, span.end_column) <= (loop.end_line, loop.end_column))
