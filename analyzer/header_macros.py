"""A header's function-like macros, as the files that invoke them see them.

The tolerant frontend parses each file alone, so a file invoking a macro that a header
defines sees a call of the macro's name; the header's facts hold each macro that makes calls
as a function of that name (Function.macro), its body's facts at the definition.  What the
whole program knows decides what each one is:

- A larger macro that makes no call the analysis follows (a call of a function of the
  program, of the C library's I/O, or one that ends the process or waits) is no function: an
  invocation stays a call of its name, as when the header is not parsed.  A lock macro
  `do { pthread_mutex_lock(m); held++; } while (0)` is no work of the program's.
- A macro named like a C library function that mmaplint knows is a stand-in for systems
  without it (qdbm's `#define mmap(...) _qdbm_mmap(...)`): the library's runs, as with a
  function so named.
- A macro whose whole body is one call, made whenever it runs, is that call wherever it is
  invoked (not one whose expansion holds the call under an `if`: a level-filtered log macro
  stays a function of the program, with its guard): rsync's
  `exit_cleanup(2)` under `#define exit_cleanup(code) _exit_cleanup(code, __FILE__,
  __LINE__)` is a call of `_exit_cleanup` (which ends the process), gnulib's `putchar(c)`
  under `#define putchar(x) putchar_unlocked (x)` the C library's `putchar_unlocked(c)`, with
  the invocation's arguments in place of the parameters and Call.macro naming the macro, as
  clang records an expansion.
- A larger body (`do { fputs(line, fp); fflush(fp); } while (0)`) stays a function of the
  program, which each invocation runs.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Iterable

from .constants import LIBC_FUNCTIONS
from .facts import IDENTIFIER, Call, Expr, FileFacts
from .frequency import PROCESS_ENDS, WAITS
from .provenance import statement_names

_VA_ARGS = "__VA_ARGS__"


def expanded(files: Iterable[FileFacts]) -> list[FileFacts]:
    """The files with each header macro made what it is to its invokers."""
    files = list(files)
    if not any(fn.macro for facts in files for fn in facts.functions):
        return files
    functions = {fn.name for facts in files for fn in facts.functions if not fn.macro}
    kept, bodies = _judged(files, functions)
    return [_expand(facts, kept, bodies) for facts in files]


def _judged(files: list[FileFacts], functions: set[str]) -> tuple[set[str], dict[str, tuple[tuple[str, ...], Call]]]:
    """The macros kept as functions, and per one-call macro its parameters and that call.  A
    name that a function of the program has, or that two headers give different bodies, is
    left to what each file includes: neither."""
    followed = functions | LIBC_FUNCTIONS | PROCESS_ENDS | WAITS
    kept: set[str] = set()
    found: dict[str, tuple[tuple[str, ...], Call] | None] = {}
    for facts in files:
        for fn in facts.functions:
            if not fn.macro or fn.name in functions or fn.name in LIBC_FUNCTIONS:
                continue
            calls = [c for c in facts.calls if c.function == fn.qualified]
            if not calls:
                continue
            # a body that is one call made only under a condition (`LOG_DEBUG(...)` of a
            # LOG_AT whose `if (lvl <= log_level)` holds it) is no stand-in for that call
            guarded = any(g.function == fn.qualified and not g.preprocessor and g.span.contains(calls[0].span)
                          for g in facts.guards)
            if not fn.forwards or guarded:
                if any(c.callee in followed for c in calls):
                    kept.add(fn.name)
                continue
            body = calls[0]     # the call the body is: calls in its arguments come after it
            known = found.setdefault(fn.name, (fn.params, body))
            if known is not None and (known[0], _shape(known[1])) != (fn.params, _shape(body)):
                found[fn.name] = None
    bodies = {name: body for name, body in found.items() if body is not None and name not in kept}
    return kept - set(found), bodies


def _shape(call: Call) -> tuple:
    return call.callee, tuple(a.text for a in call.args or ())


def _expand(facts: FileFacts, kept: set[str], bodies: dict[str, tuple[tuple[str, ...], Call]]) -> FileFacts:
    """The file's invocations of one-call macros made their calls; the header's macros that
    are no function (one-call ones included: a definition is no place a call is made) leave
    its facts."""
    gone = {fn.qualified for fn in facts.functions if fn.macro and fn.name not in kept}
    calls = tuple(_made(call, *bodies[call.callee]) if call.callee in bodies and not call.via_field else call
                  for call in facts.calls if call.function not in gone)
    if not gone and all(a is b for a, b in zip(calls, facts.calls)):
        return facts
    made = replace(facts, calls=calls, names=None,
                   functions=tuple(fn for fn in facts.functions if fn.qualified not in gone),
                   loops=tuple(loop for loop in facts.loops if loop.function not in gone),
                   assignments=tuple(a for a in facts.assignments if a.function not in gone),
                   guards=tuple(g for g in facts.guards if g.function not in gone),
                   parameter_guards=tuple(g for g in facts.parameter_guards if g.function not in gone))
    # the index of its statements follows them (what stayed is not read again)
    return made if facts.names is None else replace(made, names=statement_names(made, before=facts))


def _made(invocation: Call, params: tuple[str, ...], body: Call) -> Call:
    """The body's call as this invocation makes it."""
    given = invocation.args
    bound: dict[str, Expr] = {}
    spread: tuple[Expr, ...] = ()
    if given is not None:
        for index, name in enumerate(params):
            if name == _VA_ARGS:
                spread = given[index:]
            elif index < len(given):
                bound[name] = given[index]
    args = None
    if given is not None and body.args is not None:
        args = tuple(part for arg in body.args for part in (
            spread if arg.kind == IDENTIFIER and arg.op == _VA_ARGS else (_bind(arg, bound),)))
    return replace(body, span=invocation.span, function=invocation.function, loops=invocation.loops,
                   args=args, result=invocation.result, macro=invocation.macro or invocation.callee,
                   receiver=_bind(body.receiver, bound))


def _bind(expr: Expr | None, bound: dict[str, Expr]) -> Expr | None:
    if expr is None:
        return None
    if expr.kind == IDENTIFIER:
        return bound.get(expr.op, expr)
    children = tuple(_bind(child, bound) for child in expr.children)
    return expr if children == expr.children else replace(expr, children=children)
