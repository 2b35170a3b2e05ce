"""The analyzed program: every file's facts joined, and the questions rules ask of them.

Rules read this, never a syntax tree.  The questions are the vocabulary of the
rules' own descriptions: "is this call executed per iteration?", "which flags
does this descriptor carry?", "is this store into a writable shared file
mapping, at scattered offsets?".
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property
from typing import Callable, Iterable, Iterator

from . import constants
from .expressions import address_of, brace_list, constant, is_store_through_pointer
from .header_macros import expanded
from .iteration import MAX_CALL_DEPTH, Iteration, lambda_home
from .models import Model, load as load_models
from .provenance import Provenance
from .summaries import Summaries
from .variation import FILLS, INVARIANT, Anchored, Region, Variation
from .facts import (BINARY, CALL, COND, INT, MEMBER, IDENTIFIER, SUBSCRIPT, UNARY,
                    Assignment, Call, Expr, FileFacts, Function, Guard, Loop, Scoped, Span, strip)

# A variable's identity: ("local", path, function, name), ("global", name), or a struct field
# by its name within one file, ("field", path, name): without types, `db->fd` in one function
# and `env->fd` in another of the same file are taken to be the same descriptor; for a
# descriptor, ("elements", *key) stands for every element of an array (descriptor_key).
Key = tuple

# In a flag set: some of the flags could not be known.
UNKNOWN = "?"


# (libc's own variants, open64, mmap64, fopen64, ..., are these calls by their built-in models: models.py)
OPEN_CALLS = {"open": 1, "openat": 2, "shm_open": 1}
MMAP_CALLS = {"mmap"}
# Calls that write a file's (or every file's) dirty data back and wait for the device.
SYNC_CALLS = {"fsync", "fdatasync", "syncfs", "sync", "sync_file_range"}
# Calls whose result is a descriptor of a regular file; a mapping of a descriptor that comes
# from anything else (memfd_create, io_uring_setup, socket, shm_open) is not file-backed.
FILE_OPENERS = {"open", "openat", "dup", "dup2", "dup3",
                "fileno", "mkstemp", "mkostemp", "mkstemps", "mkostemps", "fcntl"}
# Calls whose result is a descriptor of something other than a regular file.
NON_FILE_DESCRIPTORS = {"memfd_create", "io_uring_setup", "socket", "eventfd", "timerfd_create", "signalfd",
                        "epoll_create", "epoll_create1", "shm_open"}
# The names a system call's number goes by (`syscall(__NR_io_uring_setup, ...)`, `syscall(SYS_open, ...)`).
SYSCALL_NUMBER_PREFIXES = ("__NR_", "SYS_")
# Names defined by names defined by names...: past this many, a value is not looked for.
MAX_DEFINITION_DEPTH = 8
STREAM_OPENS = {"fopen": None, "fdopen": None, "freopen": 2}
STORE_CALLS = {"memset": 0, "memcpy": 0, "memmove": 0, "strcpy": 0, "strncpy": 0, "bcopy": 1}


@dataclass(frozen=True)
class Open:
    call: Call
    descriptor: Key | None
    flags: frozenset[str]

    @property
    def sync_flag(self) -> str | None:
        """The flag that makes writes on the descriptor synchronous (O_DSYNC, O_SYNC, ...)."""
        return min(self.flags & constants.SYNC_OPEN_FLAGS, default=None)


@dataclass(frozen=True)
class Mapping:
    call: Call
    pointer: Key | None
    length: Expr | None
    prot: frozenset[str]
    flags: frozenset[str]
    descriptor: Expr | None
    # none of the calls the descriptor comes from is known, or one of them opens a file
    regular_file: bool = True
    # the descriptor is known to come only from calls that make something other than a file
    # (shm_open, memfd_create: shared memory, which nothing writes back)
    no_file: bool = False

    @property
    def shared(self) -> bool:
        return bool(self.flags & {"MAP_SHARED", "MAP_SHARED_VALIDATE"})

    @property
    def writable(self) -> bool:
        return "PROT_WRITE" in self.prot

    @property
    def anonymous(self) -> bool:
        return bool(self.flags & {"MAP_ANONYMOUS", "MAP_ANON"})

    @property
    def file_backed(self) -> bool:
        return self.regular_file and not self.anonymous


@dataclass(frozen=True)
class Store:
    """A write through a pointer: `p[i] = v`, `*q += v`, `p[i]++`, or a memset/memcpy destination."""

    target: Expr              # the lvalue, or the destination pointer of a memory call
    span: Span
    function: str | None
    loops: tuple[int, ...]
    via: str                  # "=", "+=", "++", "memcpy", ...


class Program(Iteration):
    def __init__(self, files: Iterable[FileFacts], models: dict[str, Model] | None = None):
        """models: what calls of functions the program does not define do (models.py; by
        default the built-in set)."""
        self.files = {f.path: f for f in expanded(files)}
        self.models = load_models({}, None) if models is None else models
        self._functions: dict[str, list[tuple[str, Function]]] = defaultdict(list)
        self._calls_by_callee: dict[str, list[Call]] = defaultdict(list)
        self._calls_in: dict[tuple[str, str | None], list[Call]] = defaultdict(list)
        self._assignments: dict[Key, list[Assignment]] = defaultdict(list)
        self._loops: dict[tuple[str, int], Loop] = {}
        self._loops_in: dict[tuple[str, str | None], list[Loop]] = defaultdict(list)
        self._locals: dict[tuple[str, str], frozenset[str]] = {}
        self._guards: dict[tuple[str, str | None], list[Guard]] = defaultdict(list)
        self._defining = 0      # how deep _global_constant is in names defined by names
        self._parameter_guards: dict[tuple[str, str | None], list[Guard]] = defaultdict(list)
        for facts in self.files.values():
            for guard in facts.guards:
                self._guards[(facts.path, guard.function)].append(guard)
            for guard in facts.parameter_guards:
                self._parameter_guards[(facts.path, guard.function)].append(guard)
            for fn in facts.functions:
                self._functions[fn.name].append((facts.path, fn))
                # a function defined twice in one file (#if/#else alternatives, one a stub)
                # declares the locals of both: the last must not turn the first's into globals
                where = (facts.path, fn.qualified)
                self._locals[where] = self._locals.get(where, frozenset()) | fn.locals
            for loop in facts.loops:
                self._loops[(facts.path, loop.id)] = loop
                self._loops_in[(facts.path, loop.function)].append(loop)
            for call in facts.calls:
                self._calls_by_callee[call.callee].append(call)
                self._calls_in[(facts.path, call.function)].append(call)
        # a C++ file's own tables (arrays or containers given a brace list outside any function
        # and any class body) that no method of the file assigns: in a method, such a name is
        # that table, not a member
        cpp = [facts for facts in self.files.values() if facts.language == "c++"]
        self._file_tables = {(facts.path, a.target.op) for facts in cpp for a in facts.assignments
                             if a.function is None and a.target.kind == IDENTIFIER and brace_list(a.value)} - {
            (facts.path, a.target.op) for facts in cpp for a in facts.assignments
            if a.function is not None and "::" in a.function and a.target.kind == IDENTIFIER}
        for facts in self.files.values():
            for a in facts.assignments:
                key = self.key(a.target, a.span.path, a.function)
                if key is not None:
                    self._assignments[key].append(a)

    # -- where things are -------------------------------------------------------------------

    def file_of(self, span: Span) -> FileFacts:
        return self.files[span.path]

    def calls(self, *callees: str, deep: bool = False, where: Callable[[Call], bool] | None = None) -> Iterator[Call]:
        """The calls of these functions: as written, and as the program's functions make them
        at each of their calls (summaries.py; `deep`: however many calls away).  `where`: only
        the calls as written that it accepts, and their instances (a rule that can tell which
        written calls matter spares the summaries of the others)."""
        for callee in sorted(callees):      # rules pass sets: one order whatever the hash seed
            yield from filter(where, self.library_calls(callee)) if where is not None else self.library_calls(callee)
            yield from self.summaries.instances(callee, deep, where)

    def written_calls(self, *callees: str) -> Iterator[Call]:
        """The calls of these names as written in the source, no instance (methods and calls
        through fields included: `v.push_back(p)`)."""
        for callee in callees:
            yield from self._calls_by_callee.get(callee, ())

    def library_calls(self, callee: str) -> Iterator[Call]:
        """The calls of a C library function as written: not a method or a call through a
        struct field of the same name (`db->sync(db, 0)`, `file.open(path)`), which is the
        program's own."""
        return (call for call in self._calls_by_callee.get(callee, ()) if not call.via_field)

    @cached_property
    def summaries(self) -> Summaries:
        return Summaries(self, MAX_CALL_DEPTH)

    @property
    def defined_names(self) -> dict[str, list[tuple[str, Function]]]:
        """The program's function definitions by unqualified name."""
        return self._functions

    def locals_of(self, path: str, function: str | None) -> frozenset[str]:
        """A function's parameters and local variables."""
        return self._locals.get((path, function), frozenset())

    def calls_in(self, path: str, function: str | None) -> list[Call]:
        """The calls a function makes in its own body."""
        return self._calls_in.get((path, function), [])

    def loop(self, path: str, loop_id: int) -> Loop:
        return self._loops[(path, loop_id)]

    def key(self, expr: Expr | None, path: str, function: str | None) -> Key | None:
        """The variable an lvalue expression names, or None for anything more complex."""
        expr = strip(expr)
        if expr is None:
            return None
        if isinstance(expr, Scoped):      # a callee's own variable, seen at its call
            path, function = expr.home
        if expr.kind == IDENTIFIER:
            while expr.op not in self._locals.get((path, function), ()) and (home := lambda_home(function)):
                function = home     # a lambda's capture: a variable of the function it is written in
            if function is not None and expr.op in self._locals.get((path, function), ()):
                return ("local", path, function, expr.op)
            if function is not None and "::" in function and (path, expr.op) not in self._file_tables:
                return ("field", path, expr.op)     # in a C++ method, `fd_` is this->fd_
            return ("global", expr.op)
        if expr.kind == MEMBER:
            # Without types, a field is known only by its name; keeping it to one file stops
            # zlib's s->head from being taken for a mapping stored in another file's m->head.
            return ("field", path, expr.op)
        return None

    def holder(self, expr: Expr | None, path: str, function: str | None) -> Key | None:
        """The variable, field or array a pointer expression is kept in: `segs` for `segs[i]`,
        `p` for `p + off`, `(char *)p` or `&p`."""
        expr = strip(expr)
        while expr is not None:
            if expr.kind in (IDENTIFIER, MEMBER):
                return self.key(expr, path, function)
            if expr.kind == SUBSCRIPT or (expr.kind == UNARY and expr.op in ("*", "&")) \
                    or (expr.kind == BINARY and expr.op in ("+", "-")):
                expr = strip(expr.children[0])
            else:
                return None
        return None

    def filled_argument(self, call: Call) -> int | None:
        """The argument whose buffer a call fills from the arguments after it: the first, of a
        C library call that formats or copies into its first argument (variation.FILLS); for a
        function of the program, the parameter every definition of it hands, as the buffer, to
        such a call (`nfsnprintf(char *buf, int blen, const char *fmt, ...)` calling
        `vsnprintf(buf, blen, fmt, va)`)."""
        if call.callee in FILLS:
            return 0
        filling = self._filled_parameters
        if not call.args or not any((path, fn.qualified) in filling for path, fn in self._functions.get(call.callee, ())):
            return None         # most calls fill nothing: resolved only when one so named does
        found = {filling.get((path, fn.qualified)) for path, fn in self.resolve(call)}
        return found.pop() if len(found) == 1 else None

    @cached_property
    def _filled_parameters(self) -> dict[tuple[str, str], int]:
        """Per function of the program that hands one of its parameters, as the buffer, to a
        filling call of the C library, that parameter's index."""
        found = {}
        for defined in self._functions.values():
            for path, fn in defined:
                index = next((fn.params.index(buffer.op) for c in self.calls_in(path, fn.qualified)
                              if c.callee in FILLS and (buffer := strip(c.arg(0))) is not None
                              and buffer.kind == IDENTIFIER and buffer.op in fn.params), None)
                if index is not None:
                    found[(path, fn.qualified)] = index
        return found

    def assignments_to(self, key: Key | None) -> list[Assignment]:
        return self._assignments.get(key, []) if key is not None else []

    def assignments_of(self, expr: Expr | None, path: str, function: str | None) -> list[Assignment]:
        """The assignments to the variable an lvalue names (key), less those to a field of the
        same name in another struct, where the frontends know both structs: `r->hdr->wpos =
        r->wpos` sets the header's copy, not the ring's cursor."""
        found = self.assignments_to(self.key(expr, path, function))
        named = strip(expr)
        struct = named.field_of if named is not None and named.kind == MEMBER else None
        if struct is None:
            return found
        same = self.same_structs(struct)
        return [a for a in found if a.target.kind != MEMBER or a.target.field_of is None or a.target.field_of in same]

    def values_of(self, key: Key | None) -> list[Expr]:
        """The values a variable is given with a plain `=` (declarations included)."""
        return [value for a in self.assignments_to(key) if a.op == "=" and (value := strip(a.value)) is not None]

    def constant(self, expr: Expr | None) -> int | None:
        """An expression's integer value, seeing through names defined at file scope
        (`#define SEG (4 << 20)`, `static const size_t SEG = ...`), once or the same way each
        time (each tool of a tree its own `#define TRUE 1`)."""
        return constant(expr, self._global_constant)

    def constant_in(self, expr: Expr | None, path: str, function: str | None) -> int | None:
        """As constant, also through a local of the function given one value, once, by a
        constant expression (`constexpr size_t kBlock = 16 << 20;`, `const int n = 64;`)."""
        locals_ = self.locals_of(path, function)

        def named(name: str) -> int | None:
            if name not in locals_:
                return self._global_constant(name)
            given = self.assignments_to(("local", path, function, name))
            return constant(given[0].value, self._global_constant) if len(given) == 1 and given[0].op == "=" else None
        return constant(expr, named)

    def _global_constant(self, name: str) -> int | None:
        known = self._global_constants
        if name not in known:
            if self._defining > MAX_DEFINITION_DEPTH:
                return None         # a chain of names that long: unknown, asked again from higher up
            known[name] = None      # while it is worked out: a definition that reaches it again has no value
            self._defining += 1
            try:
                # several definitions (each program of a tree its own `#define TRUE 1`) that
                # agree; a global a function assigns is a variable (`seeded = 1` in the code it
                # guards: 0 until then), whatever it is defined with
                given = self.assignments_to(("global", name))
                values = {constant(a.value, self._global_constant) for a in given if a.op == "="} \
                    if all(a.function is None for a in given) and name not in self.handed_by_address(IDENTIFIER) \
                    else {None}
            finally:
                self._defining -= 1
            known[name] = values.pop() if len(values) == 1 else None
        return known[name]

    def handed_by_address(self, kind: str) -> frozenset[str]:
        """The names of the variables (IDENTIFIER) or fields (MEMBER) a call is handed the
        address of (`parse_pid(arg, &match_ppid)`, `init(&t->slots)`): what the call stores
        there gives them a value, whatever they are defined with."""
        return self._addressed.get(kind, frozenset())

    @cached_property
    def _addressed(self) -> dict[str, frozenset[str]]:
        found: dict[str, set[str]] = defaultdict(set)
        for _, out in self.address_arguments:
            found[out.kind].add(out.op)
        return {kind: frozenset(names) for kind, names in found.items()}

    @cached_property
    def address_arguments(self) -> list[tuple[Call, Expr]]:
        """Each call handed an address (`&x`, `&t->slots`, `&a[i]`), with what it is the address
        of, one pass over the program's calls for every question about them."""
        return [(call, out) for facts in self.files.values() for call in facts.calls for arg in call.args or ()
                if (out := strip(address_of(arg))) is not None]

    @cached_property
    def _global_constants(self) -> dict[str, int | None]:
        """_global_constant's answers (a name is asked about by every expression using it, and
        by every definition using it: each is worked out once)."""
        return {}

    # -- flags ------------------------------------------------------------------------------

    def flags(self, expr: Expr | None, family: dict[str, int], path: str, function: str | None,
              _seen: frozenset = frozenset()) -> frozenset[str]:
        """The flag names an expression may carry, following variables it was built in
        (`int flags = O_RDWR; flags |= O_DSYNC;`).  Contains UNKNOWN when some part cannot be
        known (a parameter, `fcntl(fd, F_GETFL)`), beside the names that are known."""
        expr = strip(expr)
        if expr is None:
            return frozenset({UNKNOWN})
        if expr.kind == IDENTIFIER and expr.op in family:
            return frozenset({expr.op})
        if expr.kind == INT or (expr.value is not None and expr.kind != IDENTIFIER):
            return frozenset(constants.decode(expr.value, family))
        if expr.kind == UNARY and expr.op == "~":
            return frozenset()      # a mask that clears flags adds none
        if expr.kind in (BINARY, COND):
            parts = expr.children[1:] if expr.kind == COND else expr.children
            if expr.kind == BINARY and expr.op == "&":
                parts = expr.children[:1]   # x & ~F keeps at most what x had
            return frozenset().union(*(self.flags(p, family, path, function, _seen) for p in parts))
        key = self.key(expr, path, function)
        if key is not None and key not in _seen:
            assignments = [a for a in self.assignments_to(key)
                           if a.value is not None and a.op in ("=", "|=", "+=")]
            if assignments:
                return frozenset().union(*(
                    self.flags(a.value, family, a.span.path, a.function, _seen | {key})
                    for a in assignments))
        if expr.kind == IDENTIFIER and expr.value is not None:
            return frozenset(constants.decode(expr.value, family))
        return frozenset({UNKNOWN})

    def call_flags(self, call: Call, index: int, family: dict[str, int]) -> frozenset[str]:
        """The flag names of one argument of a call (with UNKNOWN where they cannot be known)."""
        return self.flags(call.arg(index), family, call.span.path, call.function)

    @cached_property
    def opens(self) -> list[Open]:
        """Descriptors opened with their flags, including flags later set with fcntl(F_SETFL)."""
        result = []
        for call in self.calls(*OPEN_CALLS):
            flags = self.call_flags(call, OPEN_CALLS[call.callee], constants.OPEN_FLAGS)
            result.append(Open(call, self.descriptor_key(call.result, call.span.path, call.function), flags))
        for call in self.calls("fcntl"):
            if "F_SETFL" in self.call_flags(call, 1, constants.FCNTL_COMMANDS):
                flags = self.call_flags(call, 2, constants.OPEN_FLAGS)
                result.append(Open(call, self.descriptor_key(call.arg(0), call.span.path, call.function), flags))
        return result

    def opens_same_file(self, opened: Call, region: Region) -> bool:
        """Whether an open names the same file on every iteration of a region: its path, asked
        where the open is written (a model's instance of open64 is the open it stands for),
        does not change across what the iteration runs (a helper's path built from the name it
        is handed is the caller's item's)."""
        asked = opened.operation if opened.operation.callee in OPEN_CALLS else opened
        path = asked.arg(OPEN_CALLS[asked.callee] - 1)
        return self.variation_across(region, path, asked.span.path, asked.function) == INVARIANT

    def opens_of(self, descriptor: Expr | None, path: str, function: str | None) -> list[Open]:
        return self._opens_by_descriptor.get(self.descriptor_key(descriptor, path, function), [])

    def descriptor_key(self, expr: Expr | None, path: str, function: str | None) -> Key | None:
        """The variable a descriptor is kept in (key), or for an element of an array of them
        (`fds[i] = open(...)`, `write(fds[hash(k) % n], ...)`) the array's elements, as one:
        each holds what the opens that fill the array give it."""
        expr = strip(expr)
        if expr is not None and expr.kind == SUBSCRIPT and expr.children:
            array = self.key(expr.children[0], path, function)
            return ("elements", *array) if array is not None else None
        return self.key(expr, path, function)

    @cached_property
    def _opens_by_descriptor(self) -> dict[Key, list[Open]]:
        found: dict[Key, list[Open]] = defaultdict(list)
        for o in self.opens:
            if o.descriptor is not None:
                found[o.descriptor].append(o)
        return found

    def synchronous_opens(self, descriptor: Expr | None, path: str, function: str | None,
                          handed: bool = False) -> list[Open]:
        """The opens (and fcntl F_SETFL) that give the descriptor O_DSYNC or O_SYNC; `handed`:
        for a parameter the function has no open of, those of what its callers pass it
        (`append_all(fd, in)` handed main's O_DSYNC descriptor), as far as calls go."""
        opens = self.opens_of(descriptor, path, function)
        if handed and not opens:
            opens = self._handed_opens(self.descriptor_key(descriptor, path, function), MAX_CALL_DEPTH, set())
        return [o for o in opens if o.sync_flag]

    def _handed_opens(self, key: Key | None, depth: int, seen: set) -> list[Open]:
        if key is None or key[0] != "local" or depth == 0 or key in seen:
            return []
        seen.add(key)
        fn = self.function_at(key[1], key[2])
        if fn is None or key[3] not in fn.params:
            return []
        index = fn.params.index(key[3])
        found = []
        for call in self.callers_of(key[1], key[2]):
            passed = self.descriptor_key(call.arg(index), call.span.path, call.function)
            found += self._opens_by_descriptor.get(passed, []) or self._handed_opens(passed, depth - 1, seen)
        return found

    @cached_property
    def mappings(self) -> list[Mapping]:
        """Every mmap, as written and as the program's functions make it at their calls."""
        return [self.mapping(call) for call in self.calls(*MMAP_CALLS)]

    def mapping(self, call: Call) -> Mapping:
        """What an mmap call maps, with what protection and flags, and where it keeps the pointer."""
        origins = self._descriptor_origins(call.arg(4), call.span.path, call.function)
        return Mapping(
            call=call,
            pointer=self.key(call.result, call.span.path, call.function),
            length=call.arg(1),
            prot=self.call_flags(call, 2, constants.PROT_FLAGS),
            flags=self.call_flags(call, 3, constants.MAP_FLAGS),
            descriptor=call.arg(4),
            regular_file=origins is not None and (not origins or bool(origins & FILE_OPENERS)),
            no_file=bool(origins) and origins <= NON_FILE_DESCRIPTORS,
        )

    def bound_at(self, call: Call, expr: Expr | None) -> bool:
        """Whether a value of a call is the call's own doing: always for a call as written; for
        an instance, when it holds what the call of the program's function passed (summaries
        put the caller's own argument expressions in place of the parameters), not when it is
        all the called function's own, which that function's call shows just as well."""
        if not call.via:
            return True
        given = {id(node) for arg in call.via[0].args or () for node in arg.walk()}
        return expr is not None and any(id(node) in given for node in expr.walk())

    def _descriptor_origins(self, descriptor: Expr | None, path: str, function: str | None) -> set[str] | None:
        """The calls a mapped descriptor comes from (_origins); None for -1 or another constant.
        The mapping is of a regular file when none is known or one opens a file; of no file when
        all make something else (memfd_create, io_uring_setup, shm_open)."""
        descriptor = strip(descriptor)
        if descriptor is None or self.constant(descriptor) is not None:
            return None
        return self._origins(self.key(descriptor, path, function), depth=3)

    def _origins(self, key: Key | None, depth: int) -> set[str]:
        """The calls a variable's value comes from, through plain copies (`ld->ring_fd = ret`)
        and, for a parameter, the arguments the program's calls pass it (one nothing is known
        of may be a file: "open")."""
        found: set[str] = set()
        fn = self.function_at(key[1], key[2]) if depth and key is not None and key[0] == "local" else None
        if fn is not None and key[3] in fn.params:
            index = fn.params.index(key[3])
            for call in self.callers_of(key[1], key[2]):
                arg = strip(call.arg(index))
                if arg is not None and arg.kind == CALL:
                    found.add(_system_call(arg.op, arg.children[:1]))
                else:
                    found |= self._origins(self.key(arg, call.span.path, call.function), depth - 1) or {"open"}
        for a in self.assignments_to(key):
            value = strip(a.value)
            if a.op != "=" or value is None:
                continue
            if value.kind == CALL:
                # a function of the program that hands back a descriptor it made: what made it
                found |= self._descriptors_made.get((a.span.path, a.function, value.op, a.span),
                                                    {_system_call(value.op, value.children[:1])})
            elif depth and value.kind in (IDENTIFIER, MEMBER):
                found |= self._origins(self.key(value, a.span.path, a.function), depth - 1)
        return found

    @cached_property
    def _descriptors_made(self) -> dict[tuple, set[str]]:
        """By the assignment they return into (path, function, callee, the assignment's span),
        the C library calls that make the descriptor a function of the program hands back."""
        made: dict[tuple, set[str]] = defaultdict(set)
        for call in self.calls(*FILE_OPENERS, *NON_FILE_DESCRIPTORS, "syscall"):
            if call.via and self.held_by_caller(call):
                site = call.via[0]
                for a in self.assignments_to(self.key(call.result, call.span.path, call.function)):
                    if a.span.path == site.span.path and a.span.contains(site.span):
                        made[(a.span.path, a.function, site.callee, a.span)].add(
                            _system_call(call.callee, call.args[:1] if call.args else ()))
        return made

    def prepare(self) -> None:
        """Build the analysis every rule asks for first, the callers of every function,
        before the rules are spread over processes (rule_workers.py), each of which would
        otherwise build it again.  Where mapped addresses flow is built by the one worker
        that runs the rules asking it (their ANALYSES)."""
        self._callers

    @cached_property
    def provenance(self) -> Provenance:
        """Where the value of each pointer may come from (provenance.py)."""
        return Provenance(self)

    def mappings_into(self, pointer: Expr | None, path: str, function: str | None,
                      span: Span | None = None, place: bool = False) -> tuple[Mapping, ...]:
        """The mappings a pointer points into, when every known source of its value is one
        (an mmap's result, or a pointer computed from one); none when it may point elsewhere
        (heap, static or stack memory) or nothing is known of it.  With `place`, the mappings a
        store to the expression writes into (`p[i]`, `p->f`, `t->slots[i]`)."""
        return self.provenance.mappings_into(pointer, path, function, span, place)

    def mapping_of(self, pointer: Expr | None, path: str, function: str | None,
                   span: Span | None = None) -> Mapping | None:
        """The mapping a pointer expression points into, if it comes from one (the first, by
        where it is made, when it may be one of several; span: the statement it is in, where
        it holds calls)."""
        return next(iter(self.mappings_into(pointer, path, function, span)), None)

    def mapping_written_by(self, store: Store) -> Mapping | None:
        return next(iter(self.mappings_into(store.target, store.span.path, store.function, store.span,
                                            place=True)), None)

    @cached_property
    def stores(self) -> list[Store]:
        result = []
        for facts in self.files.values():
            for a in facts.assignments:
                target = strip(a.target)
                if is_store_through_pointer(target):
                    result.append(Store(a.target, a.span, a.function, a.loops, a.op))
        for call in self.written_calls(*STORE_CALLS):
            index = STORE_CALLS[call.callee]
            if call.args and len(call.args) > index:
                start = _slot_start(call.args[index], call.arg(2))
                target = Expr(UNARY, start.text, "*", (start,))
                result.append(Store(target, call.span, call.function, call.loops, call.callee))
        return result

    def stores_in(self, path: str, function: str | None) -> list[Store]:
        """The stores a function makes in its own body."""
        return self._stores_in.get((path, function), [])

    @cached_property
    def _stores_in(self) -> dict[tuple[str, str | None], list[Store]]:
        found: dict[tuple[str, str | None], list[Store]] = defaultdict(list)
        for store in self.stores:
            found[(store.span.path, store.function)].append(store)
        return found

    def held_by_caller(self, call: Call) -> bool:
        """Whether what a call of the program's function makes (an instance: a stream, a
        mapping, a descriptor) is kept where the caller names it: handed back, stored through
        a pointer it passed, or in a global; not a variable or field of the function called."""
        result = strip(call.result)
        return result is not None and not any(isinstance(node, Scoped) for node in result.walk())

    def stream_opened_by(self, call: Call) -> Key | None:
        """The variable a fopen/fdopen/freopen leaves its stream in."""
        index = STREAM_OPENS[call.callee]
        lvalue = call.result if index is None else call.arg(index)
        return self.key(lvalue, call.span.path, call.function)

    def first_use(self, variable: Key, after: Call) -> Call | None:
        """The first call after `after`, in its function, that is handed `variable`."""
        return next(self.uses_after(variable, after), None)

    def uses_after(self, variable: Key, after: Call) -> Iterator[Call]:
        """The calls after `after`, in its function and in source order, that are handed `variable`."""
        later = sorted((c for c in self._calls_in.get((after.span.path, after.function), ())
                        if (c.span.line, c.span.column) > (after.span.line, after.span.column)),
                       key=lambda c: (c.span.line, c.span.column))
        return (call for call in later
                if any(self.key(a, call.span.path, call.function) == variable for a in call.args or ()))

    # -- how a value changes per iteration ------------------------------------------------

    def variation(self, expr: Expr | None, path: str, function: str | None, loops: tuple[int, ...],
                  address: bool = False) -> int:
        """INVARIANT, AFFINE or SCATTERED: how `expr` moves across iterations of the whole loop
        nest it sits in.  With address=True, `expr` is an lvalue and subscripts index it
        (p[i] walks p) instead of loading from it (idx[i] is data)."""
        outermost = self.loop(path, loops[0]).span if loops else None
        return Variation(self, path, function, outermost).of(expr, address)

    def region(self, loop: Loop) -> Region:
        """What one iteration of the loop runs: its body and the functions it calls."""
        region = self._regions.get((loop.span.path, loop.id))
        if region is None:
            chains = self.run_per_iteration(loop)
            region = self._regions[(loop.span.path, loop.id)] = Region(
                loop, frozenset(chains), {function: chain[0].span for function, chain in chains.items()})
        return region

    def variation_across(self, region: Region, expr: Expr | None, path: str, function: str | None,
                         address: bool = False, anchored: Anchored | None = None) -> int:
        """The same, across the iterations of a loop (region: what one iteration runs, its own
        body and the functions it calls): what the loop and those functions assign per
        iteration (fields and globals included), what its calls pass as parameters and what
        those functions return decide it.  `anchored` says which pointers offsets are counted
        from (a mapping's start: mapping the file again does not scatter the offsets)."""
        # what one question learns of the region's variables, the next one asked of it reuses
        known = self._regions_known.setdefault((region.loop.span.path, region.loop.id, anchored), {})
        return Variation(self, path, function, None, anchored, region, known=known).of(expr, address)

    @cached_property
    def _regions_known(self) -> dict[tuple, dict]:
        return {}

    @cached_property
    def _regions(self) -> dict[tuple[str, int], Region]:
        return {}


def _slot_start(destination: Expr, length: Expr | None) -> Expr:
    """Where a memory call's bytes begin, as far as which pages it touches: a call that fills to
    a fixed end (`memset(slot + n, 0, SLOT - n)`, the rest of a record's slot after its n bytes)
    lies within [slot, slot + SLOT), and lands where `slot` does, whatever n is."""
    start, size = strip(destination), strip(length)
    if start is not None and size is not None and start.kind == BINARY and start.op == "+" \
            and size.kind == BINARY and size.op == "-" and len(start.children) == len(size.children) == 2 \
            and (added := strip(start.children[1])) is not None and (taken := strip(size.children[1])) is not None \
            and added.text == taken.text:
        return start.children[0]
    return destination


def _system_call(callee: str, first: tuple[Expr, ...]) -> str:
    """The C library function a call stands for: syscall() handed a system call's number is
    that call (`syscall(__NR_io_uring_setup, entries, p)` makes an io_uring descriptor)."""
    number = strip(first[0]) if callee == "syscall" and first else None
    # a name, or the number a macro of that name expands to (clang keeps its spelling)
    name = number.op if number is not None and number.kind == IDENTIFIER else number.text if number else ""
    if name.startswith(SYSCALL_NUMBER_PREFIXES):
        return name.removeprefix("__NR_").removeprefix("SYS_")
    return callee
