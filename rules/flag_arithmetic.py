"""MML007 flag-arithmetic: flags combined with + or -, or given as a bare number.

## What it does
Reports `+`, `+=`, `-`, `-=` (and `++`/`--`) applied to `O_*`, `MS_*`, `MAP_*`,
`PROT_*` or `MADV_*` constants, or to a variable that holds them
(`int flag = O_RDWR; ... flag += O_DSYNC;`), and a plain integer literal passed
where `open()`, `mmap()`, `mprotect()`, `msync()`, `madvise()` or
`fcntl(fd, F_SETFL, ...)` take flags (`msync(p, n, 6)`, `fcntl(fd, F_SETFL, fl -
O_NONBLOCK)`). Points at the assignment or call that holds the expression.
Not reported: `|`, `|=`, `& ~F`, the literal `0` (no flags), named macros of
the program's own, a mode argument (`open(path, flags, 0644)`), and a number
that only decides which flags (the condition of `w ? O_RDWR : O_RDONLY`, a
helper's `write_access` handed 1), compares, or is a call's argument.

## Why is this bad?
Flags are bit sets. `|` sets a bit whether or not it was set already; `+`
carries into the next bit when it was. In the report this rule comes from, a
loop did `flag += O_DSYNC` before every `open()`: after two passes the flags
held `O_ASYNC` and no `O_DSYNC`, after four `O_DIRECT`, and the program ran
with I/O semantics nobody chose (the arithmetic was confirmed on this project's
machines). `-` to clear a flag subtracts from the neighbouring bits when the
flag was not set. A bare number hides which flags are meant and breaks where the
values differ (`MS_SYNC` is 4 on Linux and 16 on some BSDs; `msync(p, n, 6)`
asks for `MS_SYNC|MS_INVALIDATE` and reads as nothing). The rule has no runtime
cost of its own to measure, so it has no reproducer: the cost is whatever the
corrupted flags turn on (synchronous writes, `O_DIRECT` alignment failures).

## Example
```c
int flag = O_RDWR | O_CREAT;
for (int i = 0; i < n; i++) {
    flag += O_DSYNC;                        /* MML007: O_ASYNC on the second pass */
    int fd = open(path, flag, 0644);
    ...
}
msync(p, len, 6);                           /* MML007 */
```

## Use instead
Combine with `|`, clear with `& ~`, and spell flags by name:
```c
int flag = O_RDWR | O_CREAT | O_DSYNC;
msync(p, len, MS_SYNC | MS_INVALIDATE);
```
"""
from mmaplint.analyzer import constants
from mmaplint.analyzer.facts import BINARY, CALL, COND, INT, IDENTIFIER, UNARY, Assignment, Call, Expr, strip
from mmaplint.analyzer.program import Key, Program
from mmaplint.analyzer.registry import Hit

ID = "MML007"
NAME = "flag-arithmetic"
SEVERITY = "warning"
SUMMARY = "flag constants combined with + or -, or flags given as a bare number"
HELP = "combine flags with |, clear them with & ~, and spell them by name"
FAMILIES = (constants.OPEN_FLAGS, constants.MSYNC_FLAGS, constants.MAP_FLAGS,
            constants.PROT_FLAGS, constants.MADV_FLAGS)
FLAG_NAMES = frozenset().union(*FAMILIES)
# calls -> {index of a flags argument: its family}
FLAG_ARGUMENTS = {
    "open": {1: constants.OPEN_FLAGS},
    "openat": {2: constants.OPEN_FLAGS},
    "shm_open": {1: constants.OPEN_FLAGS},
    "mmap": {2: constants.PROT_FLAGS, 3: constants.MAP_FLAGS},
    "mprotect": {2: constants.PROT_FLAGS},
    "msync": {2: constants.MSYNC_FLAGS},
    "madvise": {2: constants.MADV_FLAGS}, "posix_madvise": {2: constants.MADV_FLAGS},
}
# fcntl(fd, F_SETFL, flags) takes the open flags a descriptor keeps (O_NONBLOCK, O_APPEND, O_DSYNC)
SETS_FLAGS = ("fcntl", 1, "F_SETFL", 2)
CALLEES = set(FLAG_ARGUMENTS) | {SETS_FLAGS[0]}
ADDITIVE = {"+", "-"}
COMPARISONS = {"==", "!=", "<", "<=", ">", ">=", "&&", "||", "!"}


def check(program: Program):
    holders = _flag_holders(program)
    for facts in program.files.values():
        for a in facts.assignments:
            hit = _assignment_hit(program, holders, a)
            if hit is not None:
                yield hit
    for call in program.calls(*CALLEES):
        hit = _call_hit(program, holders, call)
        if hit is not None:
            yield hit


def _flag_holders(program: Program) -> set[Key]:
    """Variables that hold flags: built from flag names, or handed where flags are taken."""
    holders = set()
    for facts in program.files.values():
        for a in facts.assignments:
            if _mentions_flags(a.value):
                holders.add(program.key(a.target, a.span.path, a.function))
    for call in program.calls(*CALLEES):
        for index in _flag_arguments(call):
            holders.add(program.key(call.arg(index), call.span.path, call.function))
    holders.discard(None)
    return holders


def _flag_arguments(call: Call) -> dict[int, dict[str, int]]:
    """Where a call takes flags, by argument index: FLAG_ARGUMENTS, and fcntl's third
    argument under F_SETFL."""
    callee, command_at, command, flags_at = SETS_FLAGS
    if call.callee == callee:
        given = strip(call.arg(command_at))
        named = given is not None and given.kind == IDENTIFIER and given.op == command
        return {flags_at: constants.OPEN_FLAGS} if named else {}
    return FLAG_ARGUMENTS[call.callee]


def _mentions_flags(expr: Expr | None) -> bool:
    """A flag name in the expression itself, not in the arguments of a call it makes
    (`p = mmap(..., PROT_READ, ...)` holds an address, not flags), nor under a comparison or
    a negation, whose value is a truth value (`ok = !(flags & ~O_ACCMODE)`)."""
    if expr is None:
        return False
    if expr.kind == IDENTIFIER:
        return expr.op in FLAG_NAMES
    if expr.kind in (BINARY, UNARY) and expr.op in COMPARISONS:
        return False
    return expr.kind != CALL and any(_mentions_flags(k) for k in expr.children)


def _is_flags(program: Program, holders: set[Key], expr: Expr | None, path: str,
              function: str | None) -> bool:
    expr = strip(expr)
    if expr is None:
        return False
    if expr.kind == IDENTIFIER and expr.op in FLAG_NAMES:
        return True
    return program.key(expr, path, function) in holders


def _additions(program, holders, expr: Expr | None, path, function, skip_calls=frozenset()):
    """`a + b` / `a - b` nodes of an expression with a flag operand (not inside calls whose
    arguments are checked on their own)."""
    expr = strip(expr)
    if expr is None or (expr.kind == CALL and expr.op in skip_calls):
        return
    if expr.kind == BINARY and expr.op in ADDITIVE and any(
            _is_flags(program, holders, k, path, function) for k in expr.children):
        yield expr
    for child in expr.children:
        yield from _additions(program, holders, child, path, function, skip_calls)


def _assignment_hit(program: Program, holders: set[Key], a: Assignment) -> Hit | None:
    where = (a.span.path, a.function)
    if a.op in ("+=", "-=", "++", "--") and (
            _is_flags(program, holders, a.target, *where)
            or _is_flags(program, holders, a.value, *where)):
        spelled = a.target.text + (a.op if a.value is None else f" {a.op} {a.value.text}")
        return Hit(a.span, f"{spelled}: {_arithmetic_consequence(a)}")
    found = next(_additions(program, holders, a.value, *where, skip_calls=CALLEES), None)
    if found is None:
        return None
    return Hit(a.span, f"{found.text} combines flags with '{found.op}': {_CONSEQUENCE[found.op]}")


def _call_hit(program: Program, holders: set[Key], call: Call) -> Hit | None:
    where = (call.span.path, call.function)
    for arg in call.args or ():
        if not program.bound_at(call, arg):
            continue    # written in the function called: its own call reports it
        found = next(_additions(program, holders, arg, *where), None)
        if found is not None:
            return Hit(call.span, f"{call.callee}() is given {found.text}, flags combined with "
                                  f"'{found.op}': {_CONSEQUENCE[found.op]}")
    if call.macro is not None:
        return None     # the numbers come from the macro's expansion, where names are lost
    for index, family in _flag_arguments(call).items():
        if not program.bound_at(call, call.arg(index)):
            continue
        literal = next((e for e in _value_parts(call.arg(index)) if e.kind == INT and e.value), None)
        if literal is not None:
            names = " | ".join(sorted(constants.decode(literal.value, family))) or "no known flag"
            return Hit(call.span, f"{call.callee}() takes flags as the number {literal.text} "
                                  f"({names} on Linux): spell the flags by name")
    return None


def _value_parts(expr: Expr | None):
    """The parts of an expression its value is made of: operands of bit and arithmetic
    operators, a cast's operand, both arms of `?:`; not a condition (`write ? O_RDWR :
    O_RDONLY` handed write = 1 takes no flag 1), a comparison, nor a call's arguments."""
    expr = strip(expr)
    if expr is None:
        return
    yield expr
    if expr.kind == COND:
        parts = expr.children[1:]
    elif expr.kind in (BINARY, UNARY) and expr.op not in COMPARISONS:
        parts = expr.children
    else:
        parts = ()
    for part in parts:
        yield from _value_parts(part)


_CONSEQUENCE = {
    "+": "adding a flag that is already set carries into the next bit; use |",
    "-": "subtracting a flag that is not set borrows from the other bits; use & ~",
}


def _arithmetic_consequence(a: Assignment) -> str:
    """What goes wrong, with the seed's figures when the addend is a known flag."""
    if a.op in ("-=", "--"):
        return _CONSEQUENCE["-"]
    value = strip(a.value)
    if a.op == "+=" and value is not None and value.kind == IDENTIFIER:
        family = next((f for f in FAMILIES if value.op in f), None)
        if family is not None and family[value.op]:
            twice = sorted(n for n in constants.decode(2 * family[value.op], family) if family[n])
            twice = twice or ["an unnamed bit"]
            return (f"adding {value.op} again carries into the next bit ({value.op} added twice is "
                    f"{' | '.join(twice)}, without {value.op}); use |=")
    return _CONSEQUENCE["+"]
