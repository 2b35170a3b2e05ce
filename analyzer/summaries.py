"""Function summaries: what one call of a function of the program does, in the terms of the
calls it is made with.

A call of the C library that a function makes (directly, or through further functions of
the program) is, seen from each call of that function, that library call made with the
caller's values: `sys_msync(p, n, MS_SYNC)` of a shim `{ return msync(p, n, f); }` is an
`msync(p, n, MS_SYNC)` at the shim's call; `fd = open_log(path)` of a helper that opens with
O_DSYNC and returns the descriptor is an `open(path, ... | O_DSYNC)` whose result is the
caller's `fd`.  Such an *instance* is a Call fact at the caller's call (its span, function
and loops), with the callee's parameters replaced by the caller's arguments, the callee's
own variables kept as Scoped names of the callee, and `via` holding the calls it is made
through (the caller's call first, the library call as written last).  Rules read instances
as they read written calls, so a program's own wrappers are as visible as the C library.

Summaries are computed for one library function at a time, on demand, upward from its calls
(each function's effects are those of its body and the instances at its calls, Infer's and
CodeQL's "summary" of a procedure restricted to what is asked): breadth first, so the first
instance found at a call site has the shortest chain.  An effect moves from a function to its
callers while the chain is short enough for "per iteration" to mean "per operation"
(iteration.MAX_CALL_DEPTH calls, wrappers not counted), and beyond that only while it depends
on the function's parameters or hands back its result: then the caller's values are what
decide it (a descriptor opened O_SYNC four calls up).  `deep` lifts the limit (a leak grows
however deep the call that makes it).
"""
from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING, Callable, Iterable

from .expressions import alternatives
from .models import by_callee
from .facts import CALL, IDENTIFIER, MEMBER, UNARY, Call, Expr, Function, Return, Scoped, Span, strip

if TYPE_CHECKING:
    from .program import Program


class Summaries:
    def __init__(self, program: "Program", max_depth: int) -> None:
        self.program = program
        self.max_depth = max_depth
        self._instances: dict[tuple[str, bool], list[Call]] = {}

    def instances(self, callee: str, deep: bool = False, where: Callable[[Call], bool] | None = None) -> list[Call]:
        """Every call of `callee` made through a function of the program, as seen at each call
        of that function (and of the functions calling it, as far as the summary reaches);
        `where`: only those of the calls as written (or as a model makes them) it accepts."""
        if where is not None:
            return self._propagate(callee, deep, where)
        found = self._instances.get((callee, deep))
        if found is None:
            found = self._instances[(callee, deep)] = self._propagate(callee, deep)
        return found

    def _propagate(self, callee: str, deep: bool, where: Callable[[Call], bool] = lambda call: True) -> list[Call]:
        modelled = [call for call in self._modelled(callee) if where(call)]
        return modelled + self.spread((*filter(where, self.program.library_calls(callee)), *modelled), deep)

    def varies(self, expr: Expr | None, path: str, function: str | None) -> bool:
        """Whether an expression of a function may be another one at the function's calls:
        it names a parameter, or a local variable the function hands back (`return fp;`),
        which each call's instance replaces with what that call passes or keeps the result
        in.  Any other expression is the same place at every instance (Scoped in its home)."""
        if expr is None or function is None:
            return False
        fn = self.program.function_at(path, function)
        if fn is None:
            return False
        replaced = (set(fn.params) | self._handed_back(path, fn.qualified)) - {""}
        return any(node.kind == IDENTIFIER and node.op in replaced for node in _own_nodes(expr))

    def spread(self, effects: Iterable[Call], deep: bool = False, carry: bool = True) -> list[Call]:
        """The instances of these effects (calls, or other operations written as Call facts:
        MML003's stores) at the calls of the functions making them, and of those functions'
        callers, as far as the summary reaches (`carry`: beyond the depth limit too while the
        effect depends on parameters or is handed back).  Breadth first, so that the first
        instance at a call site has the shortest chain; one instance per call site and
        operation (a site reaching an operation along two paths is one place to batch)."""
        program = self.program
        found: list[Call] = []
        # (effect, whether its result is the value of the call it is made at, its chain's depth)
        queue: deque[tuple[Call, bool, int]] = deque((effect, True, 0) for effect in effects)
        seen: set[tuple[Span, Span]] = set()
        while queue:
            effect, value, depth = queue.popleft()
            site = effect.via[0] if effect.via else effect
            home = (site.span.path, site.function)
            fn = program.function_at(*home)
            if fn is None:
                continue
            returned = value and self._returns(home, site)
            carried = carry and (returned or self._depends(effect, fn))
            operation = effect.operation
            on_the_way = {(c.span.path, c.function) for c in effect.via or (effect,)}
            for caller in program.callers_of(*home):
                if caller.function is None or (caller.span.path, caller.function) in on_the_way:
                    continue    # a file-scope initialiser, or recursion
                deeper = depth + (not program.forwards(caller.span.path, caller.function))
                identity = (caller.span, operation.span)
                if identity in seen or not (deep or carried or deeper <= self.max_depth) \
                        or not self._dispatch_fits(caller, effect):
                    continue
                seen.add(identity)
                instance = self._instance(effect, caller, home[0], fn, returned)
                found.append(instance)
                queue.append((instance, returned, deeper))
        return found

    def _dispatch_fits(self, site: Call, effect: Call) -> bool:
        """Whether the methods the effect's chain runs on `this` can belong to the object the
        call `site` is made on: `cache->set()` on a CacheDB runs BasicDB::set, whose `accept()`
        on this is CacheDB's (or an ancestor's), never a sibling class's HashDB::accept.  Checked
        while the chain stays on the same object; a call on another object ends the check."""
        program = self.program
        if not site.via_field:
            return True
        kind = program.struct_of(site.field_of)
        if kind is None:
            return True
        related = program.dispatch_classes(kind, site.span.path)
        steps = effect.via or (effect,)
        for call, callee in zip(steps, steps[1:]):
            runs = program.owner(callee.function)
            if runs is None or program.owner(call.function) is None:
                return True         # a free function: no `this` any more
            if call.receiver is not None or call.via_field:
                return True         # on another object
            if runs not in related:
                return False
        return True

    def lift(self, expr: Expr | None, via: tuple[Call, ...], level: int) -> Expr | None:
        """An expression of the function that makes via[level], in the terms of the function
        that makes via[0]: each function's parameters replaced by what its call passed."""
        program = self.program
        for index in range(level, 0, -1):
            call, site = via[index], via[index - 1]
            fn = program.function_at(call.span.path, call.function)
            if fn is None or expr is None:
                return None
            expr = _Binding(call.span.path, fn, program.locals_of(call.span.path, fn.qualified), site.args).expr(expr)
        return expr

    def _modelled(self, callee: str) -> list[Call]:
        """The calls of functions the program does not define whose model says they are calls
        of `callee`, each as that call (the call itself is the operation: via holds it)."""
        found = []
        for model in self._models_of.get(callee, ()):
            if model.name in self.program.defined_names:
                continue    # the program's own definition, and its summary, say what it does
            for call in self.program.written_calls(model.name):
                found.append(replace(call, callee=callee, args=model.arguments(call.args), macro=None,
                                     via_field=False, target=None, via=(call,)))
        return found

    @cached_property
    def _models_of(self) -> dict[str, list]:
        return by_callee(self.program.models)

    def _instance(self, effect: Call, site: Call, path: str, fn: Function, returned: bool) -> Call:
        """The effect of a call of `fn`, as the call `site` makes it."""
        binding = _Binding(path, fn, self.program.locals_of(path, fn.qualified), site.args,
                           self._handed_back(path, fn.qualified), site.result)
        return replace(
            effect, span=site.span, function=site.function, loops=site.loops,
            args=tuple(binding.expr(a) for a in effect.args) if effect.args is not None else None,
            result=site.result if returned else binding.expr(effect.result),
            receiver=binding.expr(effect.receiver), macro=site.macro,
            via=(site,) + (effect.via or (effect,)))

    def _returns(self, home: tuple[str, str | None], call: Call) -> bool:
        """Whether a function hands back what one of its calls returns: `return f(...)`, or
        `x = f(...); ... return x;` (either branch of a `?:` included)."""
        mine = self.program.key(call.result, *home) if call.result is not None else None
        for r in self._returns_in.get(home, ()):
            for value in alternatives(r.value):
                if value is None:
                    continue
                if value.kind == CALL and value.op == call.callee and r.span.contains(call.span):
                    return True
                if mine is not None and self.program.key(value, *home) == mine:
                    return True
        return False

    @staticmethod
    def _depends(effect: Call, fn: Function) -> bool:
        """Whether the effect's values come from the function's parameters."""
        params = set(fn.params) - {""}
        parts = (*(effect.args or ()), effect.receiver, effect.result)
        return any(node.kind == IDENTIFIER and node.op in params and not isinstance(node, Scoped)
                   for part in parts if part is not None for node in _own_nodes(part))

    def _handed_back(self, path: str, function: str) -> frozenset[str]:
        """The local variables a function returns (`return fp;`, either branch of a `?:`): at
        a call, what the function did to one it did to what the call's result is kept in."""
        found = self._handed_back_cache.get((path, function))
        if found is None:
            locals_ = self.program.locals_of(path, function)
            found = self._handed_back_cache[(path, function)] = frozenset(
                value.op for r in self.returns_in(path, function) for value in alternatives(r.value)
                if value is not None and value.kind == IDENTIFIER and value.op in locals_)
        return found

    @cached_property
    def _handed_back_cache(self) -> dict[tuple[str, str], frozenset[str]]:
        return {}

    def returns_in(self, path: str, function: str | None) -> list[Return]:
        """A function's return statements that hand back a value."""
        return self._returns_in.get((path, function), [])

    @cached_property
    def _returns_in(self) -> dict[tuple[str, str], list[Return]]:
        returns: dict[tuple[str, str], list[Return]] = defaultdict(list)
        for facts in self.program.files.values():
            for r in facts.returns:
                returns[(r.span.path, r.function)].append(r)
        return returns


class _Binding:
    """A function's parameters bound to one call's arguments (and the locals it returns to
    the call's result): its expressions rewritten into the caller's terms."""

    def __init__(self, path: str, fn: Function, locals_: frozenset[str], args: tuple[Expr, ...] | None,
                 handed_back: frozenset[str] = frozenset(), result: Expr | None = None) -> None:
        self.home = (path, fn.qualified)
        self.args = {name: args[i] for i, name in enumerate(fn.params)
                     if name and args is not None and i < len(args)}
        # a local the function returns is, at the call, what the call's result is kept in
        if result is not None:
            self.args.update((name, result) for name in handed_back if name not in self.args)
        self.locals = locals_
        # in a C++ method a name that is not a local may be a field of `this`: it is scoped too
        self.method = "::" in fn.qualified

    def expr(self, expr: Expr | None) -> Expr | None:
        if expr is None or isinstance(expr, Scoped) and not expr.children:
            return expr
        if expr.kind == IDENTIFIER and not isinstance(expr, Scoped):
            given = self.args.get(expr.op)
            if given is not None:
                return given
            return Scoped(expr.kind, expr.text, expr.op, (), expr.value, home=self.home) \
                if self.method or expr.op in self.locals else expr
        children = tuple(self.expr(child) for child in expr.children)
        if expr.kind == UNARY and expr.op == "*" and children:
            inner = strip(children[0])
            if inner is not None and inner.kind == UNARY and inner.op == "&" and inner.children:
                return inner.children[0]     # *out with out = &p: p itself
        if expr.kind == MEMBER and not isinstance(expr, Scoped):
            return Scoped(expr.kind, expr.text, expr.op, children, expr.value, expr.field_of, home=self.home)
        if children == expr.children:
            return expr
        return replace(expr, children=children)


def _own_nodes(expr: Expr):
    """The nodes of an expression that belong to the function it is written in (not Scoped
    names another function's summary carried in)."""
    if isinstance(expr, Scoped) and not expr.children:
        return
    yield expr
    for child in expr.children:
        yield from _own_nodes(child)

