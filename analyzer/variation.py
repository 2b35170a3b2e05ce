"""How a value changes from one iteration of a loop nest to the next: loop-invariant,
sequential (affine in the loop's counters: appends, fills, strides), or scattered (hashed,
random, modulo, loaded from data).  MML003 and MML004 ask this of addresses and paths.

Asked across the iterations of a caller's loop (a Region), the functions that loop runs
through calls count in full: their assignments update variables and fields per iteration, and
their parameters take the arguments the region's calls pass them (a position set by a seek
function from a table entry, then written at by a write function)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Mapping

from .expressions import address_of, dereferenced, through_pointer
from .facts import (BINARY, CALL, COND, IDENTIFIER, INT, MEMBER, RANGE_ELEMENT, STEP_OPS, STRING, SUBSCRIPT, UNARY,
                    Assignment, Call, Expr, Function, Loop, Scoped, Span, strip)

if TYPE_CHECKING:
    from .program import Key, Program

INVARIANT, AFFINE, SCATTERED = 0, 1, 2
PAGE_SHIFT = 12      # 4 KiB pages: what one store dirties

# Whether a variable (an expression naming it, in a function) holds a place offsets are counted
# from, whose own change does not scatter them (a mapping's start, mapped again).
Anchored = Callable[[Expr, str, "str | None"], bool]

# C library calls that return the file offset they set (SEEK_SET: their offset argument), by the
# index of that argument.
SEEKS = {"lseek": 1, "lseek64": 1}
# C library calls whose result is the same on every call of one thread: who the process and
# the thread are, the machine's page size and limits, and a thread's value for a key (set once,
# the lazily made per-thread object: `r = pthread_getspecific(key); if (!r) { claim a slot;
# pthread_setspecific(key, r); }` hands each transaction the thread's one slot).
STABLE = frozenset({"getpid", "getppid", "gettid", "getuid", "geteuid", "getgid", "getegid", "pthread_self",
                    "getpagesize", "sysconf", "pthread_getspecific"})
# C library calls that read input into a buffer, by the index of that argument: what the buffer
# holds is data, another value each call (`while (fgets(name, n, list)) fopen(name, "r")`).
READS_INTO = {"fgets": 0, "fgets_unlocked": 0, "fread": 0, "fread_unlocked": 0, "read": 1, "pread": 1,
              "pread64": 1, "recv": 1, "recvfrom": 1}
# The scanf family, by the index of their format: every argument after it is filled with what
# the call parsed from its input (`fscanf(runs, "%63s", id)`: id is data, another each call).
SCANS = {"scanf": 0, "fscanf": 1, "sscanf": 1, "vscanf": 0, "vfscanf": 1, "vsscanf": 1}
# C library calls that fill the buffer of their first argument from the others (a path built
# in a buffer: `snprintf(path, n, "%s/%s", dir, name)`).
FILLS = frozenset({"sprintf", "snprintf", "vsprintf", "vsnprintf", "strcpy", "strncpy", "stpcpy",
                   "strcat", "strncat", "memcpy", "memmove"})


# The standard library's view of consecutive numbers, as written (`for (auto i :
# std::views::iota(0, n))` counts as `for (i = 0; i < n; i++)` does).
COUNTING_VIEWS = frozenset({"std::views::iota", "std::ranges::views::iota", "views::iota", "ranges::views::iota"})


def counting_view(range_: Expr | None) -> bool:
    """Whether a range-for's range is a view of consecutive numbers."""
    range_ = strip(range_)
    return range_ is not None and range_.kind == CALL and range_.op == "iota" \
        and range_.text.split("(", 1)[0].strip() in COUNTING_VIEWS


@dataclass(frozen=True)
class Region:
    """What one iteration of a loop runs: the loop's body in its own function, and the
    functions it calls (within the call depth iteration.py follows), each in full, with the
    call in the loop's body each is reached from (the first of its shortest chain)."""

    loop: Loop
    functions: frozenset[tuple[str, str]]
    entries: Mapping[tuple[str, str], Span] = field(default_factory=dict, compare=False)

    def before(self, path: str, function: str | None, span: Span, reader: tuple[str, str | None]) -> bool:
        """Whether code at a place runs, in each iteration, before the function `reader` is
        entered: in the loop's body, or in a function a call of the body reaches, before
        the call of the body that reaches `reader` (not when `reader` is the loop's own
        function: where in it is not known here)."""
        entered = self.entries.get(reader)
        at = span if (path, function) == (self.loop.span.path, self.loop.function) else self.entries.get((path, function))
        return entered is not None and at is not None and (at.end_line, at.end_column) <= (entered.line, entered.column)

    def runs(self, path: str, function: str | None, loops: tuple[int, ...]) -> bool:
        """Whether code at this place runs in each iteration."""
        return (path, function) in self.functions or (
            path == self.loop.span.path and function == self.loop.function and self.loop.id in loops)


class Variation:
    """Classifies expressions by how they vary across the iterations of one loop nest."""

    ORDER_PRESERVING = {"+", "-"}
    SCALING = {"*", "<<", "/", ">>"}   # by a loop-invariant factor (or divisor), a stride
    WRAPPING = {"%", "&"}        # by a loop-invariant modulus or mask: around a ring

    def __init__(self, program: Program, path: str, function: str | None, loop: Span | None,
                 anchored: Anchored | None = None, region: Region | None = None,
                 visiting: set[Key] | None = None, known: dict | None = None):
        self.program, self.path, self.function = program, path, function
        self.loop = loop                 # the outermost loop of the nest
        self.anchored = anchored         # pointers offsets are measured from (a mapping's start)
        self.region = region             # a caller's loop, when asked across its iterations
        self.visiting: set[Key] = set() if visiting is None else visiting
        # what is already known of variables and calls in this question: a variable reached
        # again (a region's many uses of one field) is answered once, so that a question is
        # linear in the code it reads (a cycle's members are all SCATTERED, whichever is met first)
        self.known: dict = {} if known is None else known

    def _at(self, path: str, function: str | None) -> "Variation":
        """The same question, about an expression of another function."""
        if (path, function) == (self.path, self.function):
            return self
        return Variation(self.program, path, function, self.loop, self.anchored, self.region, self.visiting,
                         self.known)

    def of(self, expr: Expr | None, address: bool = False) -> int:
        expr = strip(expr)
        if expr is None or expr.kind in (INT, STRING):
            return INVARIANT
        kids = expr.children
        if expr.kind == CALL:
            if expr.op in SEEKS and len(kids) > SEEKS[expr.op]:
                return self.of(kids[SEEKS[expr.op]])   # the offset it moved to
            if expr.op in STABLE and expr.op not in self.program.defined_names:
                return INVARIANT
            returned = self._returned(expr)
            # rand(), a library's lookup: data-dependent by assumption
            return SCATTERED if returned is None else returned
        if expr.kind == SUBSCRIPT:
            base, index = self.of(kids[0], address), self.of(kids[1])
            if address:
                if (base, index) == (AFFINE, SCATTERED) and self._within_step([kids[0], kids[1]], address):
                    return AFFINE       # `dst[klen]` of the record `dst` is then stepped past
                return max(base, index)
            return SCATTERED if max(base, index) != INVARIANT else INVARIANT
        if expr.kind == UNARY:
            # &x is where x lives, the same place whatever x holds (`commit(&log, rec)` each
            # iteration); &t[i] moves with i, never loads t[i]
            if expr.op == "&" and kids and (named := strip(kids[0])) is not None and named.kind == IDENTIFIER \
                    and self.program.key(named, self.path, self.function) is not None:
                return INVARIANT
            # `*p++ = c` stores where p points, as `*p = c; p++;` does
            inner = self.of(kids[0], expr.op == "&" or address and expr.op in ("*", "++", "--")) if kids else INVARIANT
            if expr.op == "*" and not address:
                return SCATTERED if inner != INVARIANT else INVARIANT
            return inner
        if expr.kind == BINARY:
            left, right = (self.of(k) for k in kids)
            if expr.op in self.ORDER_PRESERVING:
                if expr.op == "+" and SCATTERED in (left, right) and self._within_step(_summands(expr), address):
                    return AFFINE
                return max(left, right)
            if expr.op in self.SCALING:
                return max(left, right) if INVARIANT in (left, right) else SCATTERED
            if expr.op in self.WRAPPING and left == AFFINE and right == INVARIANT and not self._page_strides(kids[0]):
                return AFFINE   # `i % n`, `off & (size - 1)`: a ring buffer's slots, in order
            return INVARIANT if left == right == INVARIANT else SCATTERED
        if expr.kind == COND:
            return max(self.of(k) for k in kids)
        if expr.kind == MEMBER and address:
            # s.f walks with s; p->f walks with the pointer value p
            return self.of(kids[0]) if through_pointer(expr) else self.of(kids[0], address=True)
        if expr.kind == MEMBER and kids:
            if self._anchored(expr):
                return INVARIANT
            # a field read where its object moves is data (each message's msg.off, p->next),
            # unless each iteration sets that field before it reads it: an object made per
            # iteration holds what the iteration stamps it with (an index counted down by the loop)
            place = self.of(kids[0]) if through_pointer(expr) else self._object(kids[0], expr.op)
            return self._variable(expr) if place == INVARIANT or self._stamped(expr) else SCATTERED
        if expr.kind == IDENTIFIER:
            return self._variable(expr, address)
        return max((self.of(k) for k in kids), default=INVARIANT)

    def _within_step(self, parts: list[Expr], address: bool) -> bool:
        """Whether a sum (its parts) is a cursor plus an amount within what the cursor then
        steps past (_stepped_past); of an address, the cursor is where it points (`dst + kl
        + 1`, dst the start of the record being appended)."""
        return any(self.of(cursor, address) == AFFINE and self._stepped_past(cursor, parts[:i] + parts[i + 1:])
                   for i, cursor in enumerate(parts))

    def _stepped_past(self, cursor: Expr, amount: list[Expr], where: tuple[str, str | None] | None = None,
                      depth: int = 2) -> bool:
        """Whether a cursor plus an amount (the parts it adds) lies within what the cursor then
        steps past: the function steps it by that amount and more (`base[pos + len] = '\\n';
        pos += len + 1;`, the terminator after the record just copied; `dst[klen]` of `dst =
        map + tail` with `tail += klen + vlen + 2`), so the sum stays in the appended span.  A
        pointer made from the cursor and invariant parts (its local's one value: `dst = map +
        tail`) is that cursor."""
        cursor = strip(cursor)
        if cursor is None or not amount:
            return False
        path, function = cursor.home if isinstance(cursor, Scoped) else where or (self.path, self.function)
        key = self.program.key(cursor, path, function)
        if key is None:
            return False
        offset = self._terms(amount, path, function)
        if any(a.op == "+=" and (a.span.path, a.function) == (path, function)
               and any(_within(offset, step) for step in self._as_passed(self._terms([a.value], path, function),
                                                                         path, function))
               for a in self.program.assignments_to(key)):
            return True
        values = self.program.values_of(key) if key[0] == "local" and depth else []
        if len(values) == 1 and strip(values[0]) is not None and strip(values[0]).kind in (IDENTIFIER, MEMBER):
            # a copy the function took of the cursor (`off = lg->pos; base[off + len] = '\n';
            # lg->pos += len + 1;`) is that cursor
            return self._stepped_past(strip(values[0]), amount, (path, function), depth - 1)
        if len(values) != 1 or values[0].kind != BINARY or values[0].op != "+":
            return False
        here, parts = self._at(path, function), _summands(values[0])
        return any(self._stepped_past(part, amount, (path, function), depth - 1) for i, part in enumerate(parts)
                   if all(here.of(other) == INVARIANT for other in parts[:i] + parts[i + 1:]))

    def _as_passed(self, terms: tuple[dict[str, int], int], path: str,
                   function: str | None) -> list[tuple[dict[str, int], int]]:
        """A function's terms, and, where the region's calls of it pass each of its parameters
        among them one term (`seglog_append(&lg, buf, (size_t)n)` passes n for len), the same
        in those calls' terms: a store of the function asked across a caller's loop is spelled
        with what the call passes."""
        named, constant = terms
        fn = self.program.function_at(path, function)
        passed: dict[str, int] = {}
        for text, count in named.items():
            arguments = self._arguments(("local", path, function, text)) if fn is not None and text in fn.params else []
            # each argument as written, as the store's instance spells it, when it is one term
            spelled = {self._one_term(arg, call) for call, arg in arguments}
            if len(spelled) == 1 and None not in spelled:
                text = spelled.pop()
            passed[text] = passed.get(text, 0) + count
        return [terms, (passed, constant)] if passed != named else [terms]

    def _one_term(self, arg: Expr, call: Call) -> str | None:
        """An argument's text as a sum's one term (`(size_t)n`: n), None for a sum of several."""
        named, constant = self._terms([arg], call.span.path, call.function, depth=0)
        return next(iter(named)) if constant == 0 and list(named.values()) == [1] else None

    def _terms(self, parts: list[Expr], path: str, function: str | None, depth: int = 2) -> tuple[dict[str, int], int]:
        """The terms of a sum of parts, by their text with how often each is added, and its
        constant part (`kl + vl + 2`: kl, vl and 2); a local given one value (`need = kl + vl
        + 2`) is that value's terms."""
        terms: dict[str, int] = {}
        constant = 0
        for part in (summand for part in parts for summand in _summands(part)):
            if (number := self.program.constant(part)) is not None:
                constant += number
                continue
            key = self.program.key(part, path, function) if part.kind == IDENTIFIER and depth else None
            values = self.program.values_of(key) if key is not None and key[0] == "local" else []
            more, number = self._terms(values, path, function, depth - 1) if len(values) == 1 else ({part.text: 1}, 0)
            constant += number
            for text, count in more.items():
                terms[text] = terms.get(text, 0) + count
        return terms, constant

    def _page_strides(self, expr: Expr | None) -> bool:
        """Whether a sequential value moves by a page or more per step of its counter (`i *
        7919`, `n << 12`): wrapped around a ring, it lands on another page each time, in an
        order that spreads over the whole ring (a multiplicative hash of the counter)."""
        expr = strip(expr)
        if expr is None or expr.kind != BINARY or len(expr.children) != 2:
            return False
        if expr.op in self.ORDER_PRESERVING:
            return any(self._page_strides(k) for k in expr.children)
        factors = [self.program.constant(k) for k in expr.children]
        if expr.op == "<<" and factors[1] is not None:
            return factors[1] >= PAGE_SHIFT
        return expr.op == "*" and any(f is not None and abs(f) >= 1 << PAGE_SHIFT for f in factors)

    def _object(self, base: Expr, member: str) -> int:
        """How the object a field is read from (`s.f`) moves, as far as that field goes."""
        base = strip(base)
        if base is not None and base.kind == IDENTIFIER:
            return self._variable(base, address=True, member=member)
        return self.of(base, address=True)

    def _variable(self, expr: Expr, address: bool = False, member: str | None = None) -> int:
        """How a variable's value moves; asked of an address (a pointer a store goes through),
        its value is where it points, which filling the buffer there does not move; asked for
        a field of a struct, only as that field moves."""
        key = self.program.key(expr, self.path, self.function)
        if key is None or self._anchored(expr):
            return INVARIANT
        if key in self.visiting:
            return SCATTERED    # a recurrence other than x = x +/- step (an LCG, a hash chain)
        # a variable of a function the loop calls (carried into it by a summary): that
        # function runs on every iteration, and so does each of its assignments
        home = expr.home if isinstance(expr, Scoped) else None
        known = self.known.get((key, home, address, member))
        if known is not None:
            return known
        in_loop = [a for a in self.program.assignments_of(expr, self.path, self.function)
                   if self._runs(a) or (a.span.path, a.function) == home]
        passed = self._arguments(key) + ([] if address else self._filled(key))
        if not in_loop and self._handed_elements(key):
            answer = SCATTERED      # a walk's or an algorithm's element: another each call
        elif not in_loop and not passed:
            answer = SCATTERED if not address and self._read_into(key) else self._handed_out(key, member)
        else:
            self.visiting.add(key)
            try:
                answer = max([self._at(a.span.path, a.function)._update(a) for a in in_loop]
                             + [self._at(call.span.path, call.function).of(arg) for call, arg in passed])
            finally:
                self.visiting.discard(key)
        self.known[(key, home, address, member)] = answer
        return answer

    def _stamped(self, member: Expr) -> bool:
        """Whether each iteration of a region gives the field a value with a plain `=` before
        it enters the function reading it here."""
        region = self.region
        key = self.program.key(member, self.path, self.function)
        return region is not None and any(
            a.op == "=" and region.runs(a.span.path, a.function, a.loops)
            and region.before(a.span.path, a.function, a.span, (self.path, self.function))
            for a in self.program.assignments_to(key))

    def _anchored(self, expr: Expr) -> bool:
        return self.anchored is not None and self.anchored(expr, self.path, self.function)

    def _returned(self, call: Expr) -> int | None:
        """Across a region, how the value of a call of the program's functions moves: as what
        they return, when the region runs each function of that name (their parameters take
        the arguments passed there, their variables change as they assign them): an accessor
        handing back a field the loop never assigns is invariant, a hash of the iteration's key
        is scattered.  None when not known."""
        region = self.region
        defined = self.program.defined_names.get(call.op, ()) if region is not None else ()
        functions = [d for d in defined if d[0] == self.path] or list(defined)
        if not functions:
            return None
        asking = self
        beyond = frozenset((path, fn.qualified) for path, fn in functions) - region.functions
        if beyond and (self.path, self.function) not in region.functions:
            return None
        if beyond:
            # past the calls the region follows, a function the region runs still runs what
            # it calls: asked with those callees run too (their parameters take this call's
            # arguments), in answers of their own; they are entered when their caller is
            entered = region.entries.get((self.path, self.function))
            entries = {**region.entries, **dict.fromkeys(beyond, entered)} if entered else region.entries
            asking = Variation(self.program, self.path, self.function, self.loop, self.anchored,
                               Region(region.loop, region.functions | beyond, entries), self.visiting,
                               self.known.setdefault(("beyond", beyond), {}))
        marker = ("returns", call.op, self.path)
        if marker in self.visiting:
            return SCATTERED    # a recursion
        known = asking.known.get(marker)
        if known is not None:
            return known
        self.visiting.add(marker)
        try:
            answer = max((asking._at(path, fn.qualified).of(r.value) for path, fn in functions
                          for r in self.program.summaries.returns_in(path, fn.qualified)), default=INVARIANT)
        finally:
            self.visiting.discard(marker)
        asking.known[marker] = answer
        return answer

    def _handed_out(self, key: Key, member: str | None = None) -> int:
        """How a local variable (or one field of it) moves when its address is handed to calls
        each iteration makes: as the functions those calls run move it through that parameter
        (`*tail += n`: a cursor; `*at = hash(key)`: scattered; only read: not at all), or,
        through a function whose body is not known (`asprintf(&file, "%s/%s", dir, name)`), to
        a new value each time."""
        if key[0] != "local":
            return INVARIANT
        answer = INVARIANT
        for call in self.program.calls_in(key[1], key[2]):
            if not self._iterates(call):
                continue
            for index, arg in enumerate(call.args or ()):
                if self.program.key(address_of(arg), call.span.path, call.function) == key:
                    defined = self.program.resolve(call)
                    answer = max([answer, *(self._written_through(path, fn, index, member) for path, fn in defined)]
                                 if defined else [SCATTERED])
        return answer

    def _written_through(self, path: str, fn: Function, index: int, member: str | None = None) -> int:
        """How a function moves what its index-th parameter points to (or that one field of
        it), when it does nothing else with the pointer than store and read through it (`*p`,
        `p[i]`, `p->f`): a step (`*p += n`) moves it on, a constant leaves it, any other value
        is the function's own each call (`*bip = hash % bnum`); a store to another field
        (`ix->synced = ix->tail`) leaves the field asked about.  One that copies, returns or
        passes the pointer on may rewrite it anywhere (SCATTERED)."""
        name = fn.params[index] if index < len(fn.params) else ""
        if not name:
            return SCATTERED
        where = (path, fn.qualified)
        if any(_bare(arg, name) for call in self.program.calls_in(*where) for arg in call.args or ()) \
                or any(_bare(r.value, name) for r in self.program.summaries.returns_in(*where)):
            return SCATTERED
        stores = []
        for a in self.program.assignments_in(*where):
            target = strip(a.target)
            if _names(dereferenced(target), name):
                stores.append(a)
            elif _field_through(target, name):
                if member is None or target.op == member:
                    stores.append(a)
            elif _bare(a.target, name):
                return SCATTERED        # `p = q`, `*(p + 1) = v`
            if _bare(a.value, name):
                return SCATTERED
        return max((AFFINE if a.op in STEP_OPS else INVARIANT if a.op == "=" and self.program.constant(a.value)
                    is not None else SCATTERED for a in stores), default=INVARIANT)

    def _read_into(self, key: Key) -> bool:
        """Whether the iterations read input into a local buffer (READS_INTO), or parse it into
        a local (SCANS: the local or its address is an argument after the format)."""
        def filled(call: Call) -> list[Expr]:
            if call.callee in READS_INTO:
                return [call.arg(READS_INTO[call.callee])]
            return [address_of(arg) or arg for arg in (call.args or ())[SCANS[call.callee] + 1:]]
        return key[0] == "local" and any(
            (call.callee in READS_INTO or call.callee in SCANS) and not call.via_field and self._iterates(call)
            and any(self.program.key(arg, call.span.path, call.function) == key for arg in filled(call))
            for call in self.program.calls_in(key[1], key[2]))

    def _iterates(self, call: Call) -> bool:
        """Whether a call of the variable's function runs in the iterations asked about."""
        return self._inside(call.span) if self.region is None else self.region.runs(
            call.span.path, call.function, call.loops)

    def _filled(self, key: Key) -> list[tuple[Call, Expr]]:
        """For a buffer the iterations fill (Program.filled_argument: a C library call, FILLS,
        or a function of the program that hands the buffer it is given to one: isync's
        `nfsnprintf(buf + bl, n, "%s/%s", dir, entry->base)`), what it is filled
        from: a path rebuilt from each item's name names another file each time, one rebuilt
        from the same directory the same file."""
        if key[0] != "local":
            return []
        return [(call, arg) for call in self.program.calls_in(key[1], key[2])
                if call.args and not call.via_field and self._iterates(call)
                and (index := self.program.filled_argument(call)) is not None
                and self._fills(call, call.args[index], key)
                for arg in call.args[index + 1:]]

    def _fills(self, call: Call, buffer: Expr, key: Key) -> bool:
        """Whether a filling call's buffer argument is the variable's buffer: itself for the C
        library's calls (`memcpy(dst + n, ...)` writes where dst points, not what it holds), at
        any place in it for a function of the program that formats into it (a path's tail)."""
        where = (call.span.path, call.function)
        return self.program.key(buffer, *where) == key if call.callee in FILLS \
            else self.program.holder(buffer, *where) == key

    def _runs(self, a: Assignment) -> bool:
        """Whether an assignment runs in the iterations asked about."""
        if self.region is not None:
            return self.region.runs(a.span.path, a.function, a.loops)
        return self._inside(a.span)

    def _arguments(self, key: Key) -> list[tuple[Call, Expr]]:
        """For a parameter of a function the region runs, the arguments its calls there pass."""
        region = self.region
        if region is None or key[0] != "local" or (key[1], key[2]) not in region.functions:
            return []
        fn = self.program.function_at(key[1], key[2])
        if fn is None or key[3] not in fn.params:
            return []
        index = fn.params.index(key[3])
        return [(call, arg) for call in self.program.callers_of(key[1], key[2])
                if region.runs(call.span.path, call.function, call.loops)
                and (arg := call.arg(index)) is not None]

    def _handed_elements(self, key: Key) -> bool:
        """Whether a parameter of a function the region runs is handed what a walk or an
        algorithm there walks (`nftw(root, sync_one, ...)`: sync_one's path is another file
        each call): a call recorded at the argument that hands the function over, which is
        the span of its element loop."""
        region = self.region
        if region is None or key[0] != "local" or (key[1], key[2]) not in region.functions:
            return False
        fn = self.program.function_at(key[1], key[2])
        return fn is not None and key[3] in fn.params and any(
            region.runs(call.span.path, call.function, call.loops) and not call.args
            and any(self.program.loop(call.span.path, loop).span == call.span for loop in call.loops)
            for call in self.program.callers_of(key[1], key[2]))

    def _update(self, a: Assignment) -> int:
        if a.op == RANGE_ELEMENT:
            # each iteration's element is data, but a counting view's is the next number
            return AFFINE if counting_view(a.value) else SCATTERED
        if a.op in STEP_OPS or self._steps(a):
            return AFFINE        # a counter or an append cursor: monotonic, sequential
        if a.op in ("=", "|=", "&="):
            return self.of(a.value)     # a flag set or cleared moves a value no further than the mask does
        return SCATTERED         # *=, %=, ^=, <<= ...: the next value jumps

    def _steps(self, a: Assignment) -> bool:
        """x = x + step / x = x - step: a cursor written the long way, as `x += step` is (x = x +
        x doubles: not a step), also through a copy the function took of it before
        (`at = j->tail; ...; j->tail = at + sizeof len + len`), or through a local given the
        sum once before (`end = tail_ + sizeof rec; ...; tail_ = end`)."""
        where = (a.span.path, a.function)
        key = self.program.key
        value = strip(a.value)
        if a.op == "=" and value is not None and value.kind == IDENTIFIER \
                and (local := key(value, *where)) is not None and local[0] == "local":
            given = self.program.assignments_to(local)
            if len(given) == 1 and given[0].op == "=" and given[0].span < a.span:
                value = strip(given[0].value)
        if a.op != "=" or value is None or value.kind != BINARY or value.op not in ("+", "-"):
            return False
        target = key(a.target, *where)
        if target is None:
            return False
        copies = {target} | {copy for b in self.program.assignments_in(*where)
                             if b.op == "=" and b.span < a.span and key(b.value, *where) == target
                             and (copy := key(b.target, *where)) is not None}
        added, pending = [], [value.children[0]] if value.op == "-" else list(value.children)
        while pending:      # the terms the value adds up
            term = strip(pending.pop())
            if term is not None and term.kind == BINARY and term.op == "+":
                pending.extend(term.children)
            else:
                added.append(term)
        mentions = [any(key(node, *where) in copies for node in term.walk() if node.kind in (IDENTIFIER, MEMBER))
                    for term in added + ([value.children[1]] if value.op == "-" else []) if term is not None]
        return mentions.count(True) == 1 and any(key(term, *where) in copies for term in added if term is not None)

    def _inside(self, span: Span) -> bool:
        loop = self.loop
        return loop is not None and span.path == loop.path and (
            (loop.line, loop.column) <= (span.line, span.column)
            and (span.end_line, span.end_column) <= (loop.end_line, loop.end_column))


def _summands(expr: Expr | None) -> list[Expr]:
    """The parts a sum adds (`dst + kl + 1`: dst, kl, 1); anything else is one part."""
    expr = strip(expr)
    if expr is None:
        return []
    if expr.kind == BINARY and expr.op == "+" and len(expr.children) == 2:
        return _summands(expr.children[0]) + _summands(expr.children[1])
    return [expr]


def _within(offset: tuple[dict[str, int], int], step: tuple[dict[str, int], int]) -> bool:
    """Whether an offset's terms are among a step's, and its constant is no larger: what the
    cursor steps past covers it (sizes and lengths, none of them negative)."""
    return all(step[0].get(text, 0) >= count for text, count in offset[0].items()) and offset[1] <= step[1]


def _bare(expr: Expr | None, name: str) -> bool:
    """Whether an expression uses the pointer `name` other than to read what it points to
    (`*p`, `p[i]`, `p->f`): copies it, computes from it or hands it on."""
    if expr is None:
        return False
    pending = [expr]
    while pending:
        node = pending.pop()
        if node.kind == IDENTIFIER and node.op == name and not isinstance(node, Scoped):
            return True
        # `*p`, `p[i]`, `p->f`: the pointee is read, not the pointer
        pending.extend(node.children[1:] if _names(dereferenced(node), name) or _field_through(node, name)
                       else node.children)
    return False


def _field_through(expr: Expr | None, name: str) -> bool:
    """Whether an expression is a field of what the pointer `name` points to (`p->f`)."""
    return expr is not None and expr.kind == MEMBER and bool(expr.children) and through_pointer(expr) \
        and _names(strip(expr.children[0]), name)


def _names(expr: Expr | None, name: str) -> bool:
    return expr is not None and expr.kind == IDENTIFIER and expr.op == name
