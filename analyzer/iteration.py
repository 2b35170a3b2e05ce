"""Executed per iteration: which loops repeat with the workload, the call chains that reach a
function from them (across files, through function pointers), and the guards that make code
run less often than its loop (frequency.py reads the conditions).  Program inherits this
part; the facts it reads are Program's indexes."""
from __future__ import annotations

import itertools
import os
from bisect import bisect_left, bisect_right
from collections import Counter, defaultdict, deque
from dataclasses import dataclass
from pathlib import Path
from functools import cache, cached_property
from typing import Callable

from . import constants, frequency
from .facts import (BINARY, CALL, COND, IDENTIFIER, MEMBER, RANGE_ELEMENT, STEP_OPS, STRING, SUBSCRIPT, UNARY,
                    Assignment, Call, Expr, Function, Guard, Loop, Return, Span, TemplateUse, strip)
from .expressions import address_of, alternatives, assume, brace_list, truth
from .findings import Related
from .variation import READS_INTO

# A loop that calls one of these parses options: it runs once per option given.
OPTION_PARSERS = frozenset({"getopt", "getopt_long", "getopt_long_only", "poptGetNextOpt"})   # libc's, popt's
MAX_CALL_DEPTH = 3     # calls followed from a loop (see _hot_functions)
# What a brace list holds when it only zero-fills an array (`T buf[N] = {0};`): no table.
_ZERO_FILLS = frozenset({"", "0", "NULL", "nullptr"})
NULL_POINTERS = {"NULL", "nullptr"}


def lambda_home(function: str | None) -> str | None:
    """The function a lambda a variable holds is written in (`main` of `main.persist`; the
    frontends name such a lambda so), None for any other function."""
    home, dot, _ = function.rpartition(".") if function else ("", "", "")
    return home if dot and home else None


def _object(expr: Expr | None) -> Expr | None:
    """The variable an argument hands over: `opts` for `&opts`."""
    return address_of(expr) or strip(expr)


def _hands_arguments(expr: Expr) -> bool:
    """Whether an argument hands over the command line itself, argc or the argv vector
    (`argv`, `argv + 1`, `&argc`, a branch of `?:`), not one of its strings (`argv[1]`, `*argv`)
    nor a test of it (`argc > 1 ? argv[1] : "wal.log"`)."""
    return any(_command_line(value) is not None for value in alternatives(expr))


def _command_line(expr: Expr | None, addressed: bool = True) -> str | None:
    """argc or argv, when an expression is one, a place in the vector (`argv + optind`), or
    (`addressed`) its address (`&argc`)."""
    value = strip(expr)
    while value is not None and value.children and (
            value.kind == BINARY and value.op in ("+", "-") or addressed and value.kind == UNARY and value.op == "&"):
        value = strip(value.children[0])
    return value.op if value is not None and value.kind == IDENTIFIER and value.op in ("argc", "argv") else None


def _owner(qualified: str) -> str | None:
    """The last part of a method's qualifier (`ns::Journal::commit` -> Journal): the name
    a class template goes by (Iteration.owner gives a nested class's whole name)."""
    parts = qualified.split("::")
    return parts[-2] if len(parts) > 1 else None


def nearest(defined: list[tuple[str, Function]], path: str) -> list[tuple[str, Function]]:
    """Of a name's definitions, those nearest a place in the tree: in its file, else in its
    directory, else under the deepest directory holding both.  A tree holds several programs
    (telnet's command() is not ftp's; two copies of a project are two programs), and each is
    usually a directory."""
    if len(defined) < 2:
        return list(defined)
    mine = [d for d in defined if d[0] == path]
    if mine:
        return mine
    here = _directories(path)
    best, found = -1, []
    for definition in defined:
        there = _directories(definition[0])
        if there == here:
            shared = len(here) + 1      # the same directory is nearer than any below it
        else:
            shared = 0
            for a, b in zip(here, there):
                if a != b:
                    break
                shared += 1
        if shared > best:
            best, found = shared, [definition]
        elif shared == best:
            found.append(definition)
    return found


_STANDARD_INPUT = frozenset({"stdin", "STDIN_FILENO"})


def reachable(start, edges: dict) -> frozenset:
    """`start` and every node reached from it along the edges, however indirectly."""
    found, pending = {start}, [start]
    while pending:
        for following in edges.get(pending.pop(), ()):
            if following not in found:
                found.add(following)
                pending.append(following)
    return frozenset(found)


@cache
def _directories(path: str) -> tuple[str, ...]:
    return tuple(os.path.dirname(path).split(os.sep))


class Tables(frozenset):
    """The names of the tables a field may point to (see Iteration._receiver_tables); unknown:
    other pointers are stored in it too."""

    def __new__(cls, names=(), unknown: bool = False):
        tables = super().__new__(cls, names)
        tables.unknown = unknown
        return tables


@dataclass(frozen=True)
class HotPath:
    """Why a call runs once per iteration: the loop, the calls leading from it to the function
    the call is written in (loop's call first), and, when the finding points at the loop's call
    rather than at the operation itself, the operation as written."""

    loop: Loop
    chain: tuple[Call, ...] = ()
    operation: Call | None = None

    @property
    def operation_span(self) -> Span | None:
        return self.operation.span if self.operation is not None else None

    def describe(self) -> str:
        where = f"the {self.loop.kind} loop at line {self.loop.span.line}"
        if self.chain:
            path = " -> ".join(f"{c.callee}()" for c in self.chain)
            where += f" of {self.loop.function or 'file scope'}() (through {path}"
            if self.operation is not None:
                op = self.operation
                where += f" -> {op.callee}() at {Path(op.span.path).name}:{op.span.line}"
            where += ")"
        return f"on every iteration of {where}"

    def related(self) -> tuple[Related, ...]:
        """The loop, then each call on the way from it, then the operation (the chain code
        scanning shows)."""
        items = [Related(self.loop.span, f"this {self.loop.kind} loop repeats it")]
        for depth, call in enumerate(self.chain):
            held = _ran_by_variable(call, (self.chain[depth + 1] if depth + 1 < len(self.chain) else self.operation).function)
            if depth == 0 and self.operation is not None:
                # the finding's own place: say how its call was followed
                if call.via_field:
                    items.append(Related(call.span, f"{call.callee}() runs{_resolved(call)}"))
                elif held:
                    items.append(Related(call.span, f"{call.callee}() runs {held}() here"))
                continue
            how = "called here on every iteration" if depth == 0 else "which calls it here"
            ran = f", running {held}()" if held else ""
            items.append(Related(call.span, f"{call.callee}() {how}{_resolved(call)}{ran}"))
        if self.operation is not None:
            items.append(Related(self.operation.span, f"{self.operation.callee}() is made here"))
        return tuple(items)


def _resolved(call: Call) -> str:
    """How a call through a field was followed: by its struct's type, or by the field's name."""
    if not call.via_field:
        return ""
    if call.field_of is not None:
        return f" (through the {call.callee} field of {call.field_of})"
    return "" if call.target is not None else f" (any function stored in a field named {call.callee})"


def _ran_by_variable(call: Call, ran: str | None) -> str:
    """The function a call of a variable (a callback parameter, a function pointer) ran, when
    it is named otherwise (`cb(line)` running print_name); "" for any other call."""
    if call.via_field or ran is None or ran.rsplit("::", 1)[-1].rsplit(".", 1)[-1] == call.callee:
        return ""
    return ran


def _designated(expr: Expr | None) -> Expr | None:
    """The name an expression designates a function by, if it is one: `f`, `&f`, or `&C::f` of a
    static member function (its name `f`)."""
    expr = strip(expr)
    if expr is not None and expr.kind == UNARY and expr.op == "&" and expr.children:
        expr = strip(expr.children[0])
    return expr if expr is not None and expr.kind == IDENTIFIER else None


def _tested_by(guard: Guard, call: Call) -> bool:
    """Whether a guard's condition makes the call, which its span holds: a macro's `if` spans
    the invocation, arguments and all (an if's own branch never holds its condition)."""
    spelled = [arg.text for arg in call.args] if call.args is not None else None
    # clang names a call a macro argument spells by the macro (`CHECK_IO(DURABLE(fd), ...)`'s
    # condition `(call) != 0` reads DURABLE, the macro the fsync is made in)
    return guard.span.contains(call.span) and any(
        node.kind == CALL and node.op == call.callee and (spelled is None or [k.text for k in node.children] == spelled)
        or call.macro is not None and node.kind in (CALL, IDENTIFIER) and node.op == call.macro
        for node in guard.condition.walk())


# How a loop repeats (Iteration.loop_class).
WORK, HANDFUL, PACED = "work", "handful", "paced"


class Iteration:
    """Program's answers to "is this executed per iteration?"."""

    # -- executed per iteration ---------------------------------------------------------------

    def resolve(self, call: Call) -> list[tuple[str, Function]]:
        """The function definitions a call may run: same-file definitions first; for a method,
        those of the receiver's class, of the classes it derives from and of those deriving
        from it (an override); and the functions bound to a struct field when the call goes
        through one: of the field's struct when the frontend knows it, by the field's name
        only when it does not (calls.typed tells which)."""
        if not call.via_field and (held := self._held(call)) is not None:
            return held
        if not call.via_field and call.target is None:     # most calls: one answer per name and file
            return list(self._direct(call.callee, call.span.path))
        defined = self._named(call.callee)
        if call.via_field:
            # a method of that name, or what the field holds: never a free function that is
            # only named like the field (C has no methods: `ap->init(...)` is not init())
            defined = [d for d in defined if self.owner(d[1].qualified) is not None]
        if call.target is not None:     # the frontend knew which one (clang: C++ overloads, methods)
            owner = self.owner(call.target)
            defined = [d for d in defined if d[1].qualified == call.target or (
                owner is not None and self.owner(d[1].qualified) in self.derived_classes(owner))]
        groups = [defined]
        if call.via_field and (owner := self.struct_of(call.field_of)) is not None:
            given = self._template_arguments_for(owner, call.function)
            # its own, inherited or overridden; for a template parameter's type, those of each
            # class the template's uses give it, apart: one policy's inline method in the
            # header does not hide another's defined elsewhere
            groups = [[d for d in defined if self.owner(d[1].qualified) in related]
                      for related in (self.dispatch_classes(kind, call.span.path) for kind in sorted(given or {owner}))]
        targets = list(dict.fromkeys(d for group in groups for d in nearest(group, call.span.path)))
        if call.via_field:
            tables = self._receiver_tables(call)
            known = set(targets)
            targets.extend(d for d in self._stored_in_field(call.callee, call.field_of, tables, call.span.path)
                           if d not in known)
        return targets

    def _named(self, callee: str) -> list[tuple[str, Function]]:
        """The program's definitions a call of this name may run."""
        defined = self._functions.get(callee, [])
        if callee in constants.LIBC_FUNCTIONS:
            # A free function of the program named like a C library function is a shim for
            # another platform (fio's fdatasync for Windows, dpkg's compat vsnprintf): on Linux
            # the library's runs.
            defined = [d for d in defined if d[1].qualified != callee]
        return defined

    def _held(self, call: Call) -> list[tuple[str, Function]] | None:
        """For a call of a variable of its function (or of a function a lambda is written in),
        what the variable holds (_functions_held); never a function only named like the
        variable.  None for any other call."""
        return self._held_by(call.span.path, call.function, call.callee)

    def _held_by(self, path: str, function: str | None, name: str) -> list[tuple[str, Function]] | None:
        """What a variable of this name holds, where a function uses it (see _held)."""
        while function:
            if name in self._locals.get((path, function), ()):
                return self._functions_held(path, function, name)
            function = lambda_home(function)
        return None

    def _functions_held(self, path: str, function: str, name: str) -> list[tuple[str, Function]]:
        """The functions of the program a variable of a function holds: the lambda it is given
        (`auto persist = [&](...) {...}`, a function of its own), the functions its assignments
        name (`cb = need_thr ? collect : oneline`), and, for a parameter, those the function's
        callers pass for it (a callback: mblaze's `blaze822_loop(argc, argv, cb)`, whose loop
        calls `cb(line)`), named there (`oneline`, `&oneline`) or held by what they pass."""
        key = (path, function, name)
        known = self._held_functions.get(key)
        if known is not None:
            return known
        self._held_functions[key] = []      # while worked out: a cycle of callers hands on nothing
        found = dict.fromkeys(d for d in self._functions.get(f"{function}.{name}", ()) if d[0] == path)
        if not found:
            given = [(a.span.path, a.function, value) for a in self.assignments_to(("local", path, function, name))
                     if a.op == "=" for value in alternatives(a.value)]
            fn = self.function_at(path, function)
            if fn is not None and name in fn.params:
                index = fn.params.index(name)
                # the calls as written, resolved here: not callers_of (nor _passed_for, which
                # asks it), whose index is built by resolving every call, this one included
                given += [(call.span.path, call.function, call.arg(index))
                          for call in self._calls_by_callee.get(fn.name, ())
                          if not call.via_field and (path, fn) in self.resolve(call)]
            for where, caller, value in given:
                if (designated := _designated(value)) is not None:
                    held = self._held_by(where, caller, designated.op)
                    found.update(dict.fromkeys(held if held is not None else self._direct(designated.op, where)))
        self._held_functions[key] = list(found)
        return self._held_functions[key]

    @cached_property
    def _held_functions(self) -> dict[tuple[str, str, str], list[tuple[str, Function]]]:
        return {}

    def _direct(self, callee: str, path: str) -> list[tuple[str, Function]]:
        """The definitions a plain call of `callee` in `path` runs (see resolve); a call in a C
        source runs no C++ method or namespaced function (qdbm's curia.c close(fd) is close(2),
        not its C++ API's Curia::close)."""
        return self._nearest_of(callee, path, True, c_source=path.endswith(".c"))

    def _nearest_of(self, name: str, path: str, shims_excluded: bool,
                    c_source: bool = False) -> list[tuple[str, Function]]:
        """nearest() of the definitions of a name (without the C library shims, or all; only
        the free ones for a C source), once per directory unless the file defines the name."""
        def candidates() -> list[tuple[str, Function]]:
            defined = self._named(name) if shims_excluded else self._functions.get(name, [])
            return [d for d in defined if "::" not in d[1].qualified] if c_source else defined
        if name not in self._functions:
            return []           # most calls: the C library's
        if (name, path) in self._defined_at:
            return nearest(candidates(), path)
        key = (name, os.path.dirname(path), shims_excluded, c_source)
        found = self._nearest_cache.get(key)
        if found is None:
            found = self._nearest_cache[key] = nearest(candidates(), path)
        return found

    @cached_property
    def _defined_at(self) -> set[tuple[str, str]]:
        return {(name, path) for name, defined in self._functions.items() for path, _ in defined}

    @cached_property
    def _nearest_cache(self) -> dict[tuple[str, str, bool, bool], list[tuple[str, Function]]]:
        return {}

    def _stored_in_field(self, field: str, field_of: str | None, tables: "Tables | None",
                         path: str) -> list[tuple[str, Function]]:
        """The definitions of the functions a call through a field in `path` may run: those
        stored in the tables it reads, else in fields of its name (see resolve); the same
        for every such call of one file."""
        key = (field, field_of, tables, tables is not None and tables.unknown, path)
        found = self._stored_cache.get(key)
        if found is not None:
            return found
        if tables is None:
            bound = self._bound_to_field(field, self.struct_of(field_of))
        else:
            bound = {entry for table in tables for entry in self._table_fields(table, path).get(field, ())}
            if tables.unknown:      # a table built at run time, field by field
                bound |= self._assigned_to_fields.get(field, set())
        found, known = [], set()
        # a set: sorted, so chains do not vary with the hash seed; each name is the function
        # so named nearest to where it is stored (a table's own static function)
        for name, where in sorted(self._same_program(bound, path)):
            for definition in self._nearest_definitions(name, where):
                if definition not in known:
                    known.add(definition)
                    found.append(definition)
        self._stored_cache[key] = found
        return found

    @cached_property
    def _stored_cache(self) -> dict[tuple, list[tuple[str, Function]]]:
        return {}

    def _same_program(self, bound: set[tuple[str, str]], path: str) -> set[tuple[str, str]]:
        """Of the functions stored in a field (each with the file storing it), those a call
        in `path` can reach: when some are stored in the caller's own program, those and the
        ones stored in files joined to no other; else all.  A program is the files that
        direct calls or a directory join (two copies of a project, or a tree's independent
        tools, are several), so a call through a field does not run another program's
        callbacks."""
        programs = self._programs
        mine = programs.get(path)
        if mine is None or not any(programs.get(where) == mine for _, where in bound):
            return bound
        return {(name, where) for name, where in bound if programs.get(where, mine) == mine}

    @cached_property
    def _programs(self) -> dict[str, str]:
        """Per file joined to another (by a direct call of the nearest definition, as resolve()
        follows it, or by their directory), a name of the set of files so joined."""
        parent: dict[str, str] = {}

        def root(path: str) -> str:
            while parent.setdefault(path, path) != path:
                parent[path] = parent[parent[path]]
                path = parent[path]
            return path

        for (path, _), calls in self._calls_in.items():
            for call in calls:
                if call.via_field:
                    continue
                for where, _ in self._nearest_definitions(call.callee, path):
                    if where != path:
                        parent[root(where)] = root(path)
        directories: dict[str, str] = {}
        for path in self.files:
            parent[root(directories.setdefault(os.path.dirname(path), path))] = root(path)
        roots = {path: root(path) for path in parent}
        sizes = Counter(roots.values())
        return {path: name for path, name in roots.items() if sizes[name] > 1}

    def _nearest_definitions(self, name: str, path: str) -> list[tuple[str, Function]]:
        return self._nearest_of(name, path, False)

    def _bound_to_field(self, field: str, struct: str | None) -> set[tuple[str, str]]:
        """The functions stored in a field, each with the file storing it: of this struct (and
        wherever the struct is not known) when it is known, else of any struct."""
        if struct is None:
            return self._field_bindings.get(field, set())
        same = self.same_structs(struct)
        return ({(function, where) for owner, function, where in self._typed_bindings.get(field, ()) if owner in same}
                | self._untyped_bindings.get(field, set()))

    @cached_property
    def _typed_bindings(self) -> dict[str, set[tuple[str, str, str]]]:
        """Per field name, (struct, function, file) for the functions stored in it where the
        struct is known: initialisers of typed tables (by designator or by position), and
        assignments to a field of an object whose type the frontend names."""
        typed: dict[str, set[tuple[str, str, str]]] = defaultdict(set)
        declared: dict[str, set[tuple[str, ...]]] = defaultdict(set)
        for facts in self.files.values():
            for b in facts.field_bindings:
                if b.struct is not None:
                    typed[b.field].add((b.struct, b.function, b.span.path))
            for struct in facts.struct_fields:
                for name in struct.names:
                    declared[name].add(struct.fields)
        for facts in self.files.values():
            for entry in facts.table_entries:
                for fields in declared.get(entry.struct, ()):
                    if entry.position < len(fields) and fields[entry.position]:
                        typed[fields[entry.position]].add((entry.struct, entry.function, entry.span.path))
        for field, function, struct, a in self._functions_assigned_to_fields:
            if struct is not None:
                typed[field].add((struct, function, a.span.path))
        return typed

    @cached_property
    def _untyped_bindings(self) -> dict[str, set[tuple[str, str]]]:
        """Per field name, the functions stored in it where no struct is known, each with the
        file storing it: initialisers of tables whose type the frontend could not name, and
        assignments it did not type."""
        untyped: dict[str, set[tuple[str, str]]] = defaultdict(set)
        typed_places = set()
        for facts in self.files.values():
            for b in facts.field_bindings:
                if b.struct is None:
                    untyped[b.field].add((b.function, b.span.path))
                elif b.table is None:
                    typed_places.add(b.span)
        for field, function, struct, a in self._functions_assigned_to_fields:
            if struct is None and a.span not in typed_places:
                untyped[field].add((function, a.span.path))
        return untyped

    @cached_property
    def _functions_assigned_to_fields(self) -> list[tuple[str, str, str | None, Assignment]]:
        """(field, function, the field's struct when the frontend names it, the assignment) for
        each assignment of a function of the program to a field at run time (`m->xRead = f`).
        A field whose struct is named (the object's declared type) holds the function for that
        struct's calls only, as an initialiser's does: a tokenizer's xOpen call does not run
        a function a VFS stored in its own xOpen."""
        found = []
        for key, assignments in self._assignments.items():
            if key[0] == "field":
                for a in assignments:
                    target = strip(a.target)
                    if a.op != "=":
                        continue
                    struct = self.struct_of(target.field_of) if target is not None and target.kind == MEMBER else None
                    # either function of `sync_ = durable_mode ? durable : lazy`
                    found += [(key[-1], name, struct, a) for value in alternatives(a.value)
                              if (designated := _designated(value)) is not None
                              for name in self._functions_given(designated.op, a)]
        return found

    def _functions_given(self, name: str, a: Assignment) -> list[str]:
        """The program's functions a name assigned to a field holds: the function of that
        name, or, for a parameter of the setter that assigns it (`r->on_record = rec;` in
        reader_set_handlers()), the functions its calls as written pass there."""
        if name in self._functions:
            return [name]
        fn = self.function_at(a.span.path, a.function)
        if fn is None or name not in fn.params:
            return []
        index = fn.params.index(name)
        return [given.op for call in self.written_calls(fn.name) if not call.via_field
                and (given := _designated(call.arg(index))) is not None and given.op in self._functions]

    def struct_of(self, field_of: str | None) -> str | None:
        """The struct a call's field belongs to: as the frontend named it (a class written with
        qualifiers: the one they name, class_named), or at the end of the path it gave
        ("tokenizer.pModule": the type of tokenizer's pModule field, from the
        struct's declaration in any analyzed file); None when some step is not declared."""
        if field_of is None or "." not in field_of:
            return self.class_named(field_of) if field_of is not None else None
        owner, *path = field_of.split(".")
        for field in path:
            owner = next((kind for name in self.same_structs(owner)
                          for kind in sorted(self._field_types.get((name, field), ())) if kind), None)
            if owner is None:
                return None
        return owner

    @cached_property
    def _field_types(self) -> dict[tuple[str, str], set[str]]:
        """(struct name, field) -> the types the field is declared with, across the program."""
        types: dict[tuple[str, str], set[str]] = defaultdict(set)
        for facts in self.files.values():
            for struct in facts.struct_fields:
                for field, kind in zip(struct.fields, struct.types):
                    for name in struct.names:
                        types[(name, field)].add(kind)
        return types

    def same_structs(self, name: str) -> frozenset[str]:
        """The names one struct goes by: its tag and the typedef names some declaration gives it
        or a pointer to it (an object reached through a pointer typedef is of the struct)."""
        return self._struct_names.get(name, frozenset({name}))

    @cached_property
    def _struct_names(self) -> dict[str, frozenset[str]]:
        names: dict[str, frozenset[str]] = {}
        for facts in self.files.values():
            for group in [*(struct.names for struct in facts.struct_fields), *facts.type_aliases]:
                group = frozenset(group).union(*(names.get(n, frozenset()) for n in group))
                for n in group:
                    names[n] = group
        return names

    def related_classes(self, name: str) -> frozenset[str]:
        """A class, the classes it derives from (whose methods it inherits) and those deriving
        from it (whose overrides a virtual call may run)."""
        return self.derived_classes(name) | self._ancestors(name)

    def dispatch_classes(self, name: str, path: str) -> frozenset[str]:
        """The classes whose methods a call on an object of this static class, made in this
        file, may run: of the classes deriving from it, those the file constructs when it
        constructs any (rapid type analysis, with the file for the program: a driver runs its
        loops on the database it makes, not on every kind a library defines), else all;
        and the classes they derive from, whose methods they inherit."""
        derived = self.derived_classes(name)
        made = derived & self._constructed.get(path, frozenset())
        if not made:
            return self.related_classes(name)
        return frozenset().union(*(self._ancestors(kind) for kind in made))

    @cached_property
    def _constructed(self) -> dict[str, frozenset[str]]:
        """Per file, the classes it makes objects of: as written, an alias standing for its
        template (`kc::GrassDB db;` makes a PlantDB), and a template's class arguments with
        it (PlantDB<CacheDB> holds a CacheDB: its `BASEDB db_` member), but a smart pointer's
        (`std::unique_ptr<Sink> sink` holds a pointer to a Sink made elsewhere)."""
        made = {}
        for path, facts in self.files.items():
            kinds = {argument for use in facts.template_uses if use.made and use.template not in frequency.SMART_POINTERS
                     for argument in use.arguments}
            for kind in facts.constructs:
                # `PROTODB db;` in a function template: what its calls give PROTODB (and
                # `typename PROTODB::Cursor cur(&db)`: their Cursor)
                head, scoped, rest = kind.partition("::")
                kinds.update(next(({argument + scoped + rest for argument in self._arguments_of(
                    template.name, template.parameters.index(head), path)}
                    for template in facts.templates if head in template.parameters), {kind}))
            if kinds:
                made[path] = frozenset().union(*(self._made_classes(kind) for kind in kinds if kind))
        return made

    def _made_classes(self, written: str) -> frozenset[str]:
        """The classes an object made as `written` may be of: the class the name stands for,
        unaliased; a bare name that only nested classes have, any of them."""
        bare = written.rsplit("::", 1)[-1]
        kinds = self._unaliased(bare if bare in self._aliases else self.class_named(written))
        return frozenset().union(*(self.derived_classes(kind) if kind not in self._class_paths and kind in self._subclasses
                                   else {kind} for kind in kinds))

    def _unaliased(self, name: str, _depth: int = 0) -> frozenset[str]:
        """A class name, or for an alias of a template with arguments, the template and its class
        arguments (each unaliased in turn)."""
        use = self._aliases.get(name)
        if use is None or _depth > 8:
            return frozenset({name})
        return frozenset({use.template}).union(*(self._unaliased(a, _depth + 1) for a in use.arguments if a))

    @cached_property
    def _aliases(self) -> dict[str, TemplateUse]:
        return {use.alias: use for facts in self.files.values() for use in facts.template_uses if use.alias}

    def _template_arguments_for(self, parameter: str, function: str | None) -> frozenset[str]:
        """When `parameter` is a type parameter of `function` (a function template) or of the
        class template whose method it is, the classes the program's uses of that template
        give it (`BASEDB db_;` of PlantDB: CacheDB, DirDB and HashDB, by kyotocabinet's
        aliases); else none.  A class template's member defined out of line (`template <class
        P> void Log<P>::append()`) reads as a function template no call names: its class's."""
        for template in (function.split("::")[-1] if function else None, _owner(function or "")):
            found = [(where, i) for where, parameters in self._template_parameters.get(template, ())
                     for i, name in enumerate(parameters) if name == parameter]
            given = frozenset().union(*(self._unaliased(kind) for where, index in found
                                        for kind in self._arguments_of(template, index, where)))
            if given:
                return given
        return frozenset()

    def _arguments_of(self, template: str, index: int, path: str) -> set[str]:
        """The classes the program's uses of a template defined in `path` give its parameter at
        `index`: the uses in that file, and in files that define no template of that name (a
        static function template of one driver is not another's)."""
        defining = {where for where, _ in self._template_parameters.get(template, ())}
        return {use.arguments[index] for where, use in self._template_uses.get(template, ())
                if index < len(use.arguments) and use.arguments[index] and (where == path or where not in defining)}

    @cached_property
    def _template_parameters(self) -> dict[str, list[tuple[str, tuple[str, ...]]]]:
        """Per template name, (file, parameters) of each definition."""
        found: dict[str, list[tuple[str, tuple[str, ...]]]] = defaultdict(list)
        for path, facts in self.files.items():
            for template in facts.templates:
                found[template.name].append((path, template.parameters))
        return found

    @cached_property
    def _template_uses(self) -> dict[str, list[tuple[str, TemplateUse]]]:
        """Per template name, (file, use) of each use."""
        found: dict[str, list[tuple[str, TemplateUse]]] = defaultdict(list)
        for path, facts in self.files.items():
            for use in facts.template_uses:
                found[use.template].append((path, use))
        return found

    def runs_unmade_class(self, path: str, via: tuple[Call, ...]) -> bool:
        """Whether a call on the way from a loop in `path` to an operation runs a method of a
        class the loop's file makes no object of, though it makes objects of that class's
        hierarchy (rapid type analysis, with the loop's file for the program, at every call on
        the way: a test driver that makes a GrassDB runs, through its PlantDB's `BASEDB db_`,
        CacheDB's end_transaction, not HashDB's, which a TreeDB would run).  A call on an
        object whose static class the file makes nothing of is not narrowed: the object was
        made elsewhere."""
        made = self._constructed.get(path)
        if not made:
            return False
        for call, inner in zip(via, via[1:]):
            owner = self.owner(inner.function) if call.via_field else None
            static = self.struct_of(call.field_of) if owner is not None else None
            # a member of a template parameter's type (`SyncPolicy sync_;`): the classes the
            # file's objects give that parameter, whether or not they derive from one another
            given = self._template_arguments_for(static, call.function) if static is not None else frozenset()
            if given:
                kinds = made & given
            elif self._in_hierarchy(owner):
                kinds = made & (self.derived_classes(static) if self._in_hierarchy(static) else self._hierarchy(owner))
            else:
                continue
            if kinds and not any(owner in self._ancestors(kind) for kind in kinds):
                return True
        return False

    def runs_in_another_program(self, path: str, via: tuple[Call, ...]) -> bool:
        """Whether a call on the way from a loop in `path` runs a function of another program:
        one defined in another file that defines main(), when the loop's file defines its own.
        Two files with a main() each are two executables, and neither process runs the other's
        code (a test driver's loop does not run an example program's visitor, however alike
        their classes are named)."""
        mains = self._main_files
        return path in mains and any(step.span.path in mains and step.span.path != path for step in via[1:])

    @cached_property
    def _main_files(self) -> frozenset[str]:
        return frozenset(where for where, fn in self._functions.get("main", ()) if fn.qualified == "main")

    def owner(self, qualified: str | None) -> str | None:
        """The class a function's qualified name makes it a method of, None for a free function:
        the longest tail of its qualifier that names a class of the program (a class nested in
        another: `kc::CacheDB::Cursor::accept` is CacheDB::Cursor's, not every Cursor's), else
        the qualifier's last part."""
        if not qualified:
            return None
        try:
            return self._owners[qualified]
        except KeyError:
            scope = qualified.split("::")[:-1]
            found = self._owners[qualified] = self._class_in(scope) if scope else None
            return found

    @cached_property
    def _owners(self) -> dict[str, str | None]:
        return {}

    def class_named(self, written: str, within: str | None = None) -> str:
        """The class a name written in the code stands for: the longest tail of its qualifiers
        that names a class of the program (`kc::DB::Cursor` -> DB::Cursor), or, unqualified in
        the scope of class `within`, a class nested there or in a class enclosing it; else the
        name's last part, which also stands for every nested class of that name (_bases)."""
        parts = written.removeprefix("::").split("::")
        if len(parts) == 1 and within:
            scope = within.split("::")
            for end in range(len(scope), 0, -1):
                if (nested := "::".join(scope[:end] + parts)) in self._class_paths:
                    return nested
        return self._class_in(parts)

    def _class_in(self, parts: list[str]) -> str:
        for start in range(len(parts) - 1):
            tail = parts[start:]
            if (path := "::".join(tail)) in self._class_paths:
                return path
            # an alias of a template as a qualifier: GrassDB::Cursor is PlantDB's Cursor
            if (use := self._aliases.get(tail[0])) is not None \
                    and (path := "::".join([use.template, *tail[1:]])) in self._class_paths:
                return path
        # an alias of a template, by its name alone (`wal::DurableLog log{path}`): the template's
        # class, whose methods a call on the object runs
        if (use := self._aliases.get(parts[-1])) is not None and use.template in self._class_paths:
            return use.template
        return parts[-1]

    @cached_property
    def _class_paths(self) -> frozenset[str]:
        """Every class the program defines, a nested one by its enclosing classes' names too."""
        return frozenset(c.name for facts in self.files.values() for c in facts.classes)

    def _in_hierarchy(self, name: str | None) -> bool:
        """Whether a class derives from another or another derives from it."""
        return name is not None and (name in self._bases or name in self._subclasses)

    def _hierarchy(self, name: str) -> frozenset[str]:
        """Every class related to this one by derivation: its ancestors' descendants."""
        return frozenset().union(*(self.derived_classes(root) for root in self._ancestors(name)
                                   if not self._bases.get(root)))

    def derived_classes(self, name: str) -> frozenset[str]:
        """A class and every class deriving from it, however indirectly."""
        return reachable(name, self._subclasses)

    def _ancestors(self, name: str) -> frozenset[str]:
        """A class and every class it derives from, however indirectly."""
        return reachable(name, self._bases)

    @cached_property
    def _bases(self) -> dict[str, set[str]]:
        """Per class that derives from any, the classes it derives from.  A nested class
        (CacheDB::Cursor) derives from its bare name too, which stands for every class so
        named wherever the code does not say which (a frontend that gives a variable's type as
        `Cursor`): such a name reaches all of them, as the name of their common base would."""
        bases: dict[str, set[str]] = defaultdict(set)
        for facts in self.files.values():
            for c in facts.classes:
                enclosing, nested, bare = c.name.rpartition("::")
                found = {self.class_named(base, enclosing or None) for base in c.bases}
                if nested:
                    found.add(bare)
                if found:
                    bases[c.name].update(found)
        return bases

    @cached_property
    def _subclasses(self) -> dict[str, set[str]]:
        children: dict[str, set[str]] = defaultdict(set)
        for name, parents in self._bases.items():
            for parent in parents:
                children[parent].add(name)
        return children

    def _receiver_tables(self, call: Call) -> Tables | None:
        """The tables a call through a field reads its function from, when the program says:
        `kv_methods.xRead()` reads the file-scope table kv_methods, and `f->pMethods->xRead()`
        reads one of the tables whose address the program stores in a field named pMethods
        (`f->pMethods = &kv_methods`), or, when some other pointer is stored there too (`=
        &g.methods`, an allocation), a table whose fields are assigned at run time
        (`g.methods.xRead = f`).  None when the receiver is anything else, or no table is
        stored in its field: the call may run any function bound to a field of the callee's
        name (_field_bindings)."""
        receiver = strip(call.receiver)
        if receiver is None or call.target is not None:
            return None
        if receiver.kind == MEMBER:
            return self._stored_tables.get(receiver.op)
        if receiver.kind == IDENTIFIER and receiver.op in self._tables \
                and self.key(receiver, call.span.path, call.function) == ("global", receiver.op):
            return Tables((receiver.op,))
        return None

    @cached_property
    def _tables(self) -> dict[str, dict[str, set[tuple[str, str]]]]:
        """Per file-scope table (a variable initialised with a brace list), the functions its
        fields hold, each with the file it is in: by designators, or by position and the fields
        its struct declares there (any file's declaration of that struct name: tree-sitter reads
        no includes)."""
        tables: dict[str, dict[str, set[tuple[str, str]]]] = defaultdict(lambda: defaultdict(set))
        declared: dict[str, set[tuple[str, ...]]] = defaultdict(set)
        for facts in self.files.values():
            for b in facts.field_bindings:
                if b.table is not None:
                    tables[b.table][b.field].add((b.function, b.span.path))
            for struct in facts.struct_fields:
                for name in struct.names:
                    declared[name].add(struct.fields)
        for facts in self.files.values():
            for entry in facts.table_entries:
                for fields in declared.get(entry.struct, ()):
                    if entry.position < len(fields) and fields[entry.position]:
                        tables[entry.table][fields[entry.position]].add((entry.function, entry.span.path))
        return tables

    def _table_fields(self, table: str, path: str) -> dict[str, set[tuple[str, str]]]:
        """The fields of the table so named nearest to a place (a file-scope table is the
        file's own, and two programs' tables of one name are two tables)."""
        found = self._nearest_tables.get((table, path))
        if found is None:
            fields = self._tables[table]
            files = {where for entries in fields.values() for _, where in entries}
            near = {where for where, _ in nearest([(where, None) for where in sorted(files)], path)}
            found = self._nearest_tables[(table, path)] = {
                field: {entry for entry in entries if entry[1] in near} for field, entries in fields.items()}
        return found

    @cached_property
    def _nearest_tables(self) -> dict[tuple[str, str], dict[str, set[tuple[str, str]]]]:
        return {}

    @cached_property
    def _stored_tables(self) -> dict[str, Tables]:
        """Per field name, the tables whose address the program stores in a field of that name:
        `f->pMethods = &kv_methods`, `= cond ? &a : &b`, or a variable given such an address;
        and whether other pointers are stored there too (a null pointer is not one)."""
        stored: dict[str, set[str]] = defaultdict(set)
        unknown: set[str] = set()
        for key, assignments in self._assignments.items():
            if key[0] == "field":
                for a in assignments:
                    if a.op == "=":
                        found = stored[key[-1]]
                        if not self._tables_in(a.value, a.span.path, a.function, 3, found):
                            unknown.add(key[-1])
        return {field: Tables(tables, field in unknown) for field, tables in stored.items() if tables}

    def _tables_in(self, value: Expr | None, path: str, function: str | None, depth: int, found: set[str]) -> bool:
        """Add the tables a pointer value may point to; whether that is all it may point to."""
        value = strip(value)
        if value is None or depth == 0:
            return False
        if value.kind == COND:
            return all([self._tables_in(branch, path, function, depth, found) for branch in value.children[1:]])
        if self.constant(value) is not None or (value.kind == IDENTIFIER and value.op in NULL_POINTERS):
            return True
        if value.kind == UNARY and value.op == "&":
            value = strip(value.children[0])
            while value is not None and value.kind == SUBSCRIPT:    # &tables[i]
                value = strip(value.children[0])
        if value is None or value.kind != IDENTIFIER:
            return False
        key = self.key(value, path, function)
        if key == ("global", value.op) and value.op in self._tables:
            found.add(value.op)
            return True
        tables, complete = self._variable_tables(key, depth)
        found |= tables
        return complete

    def _variable_tables(self, key, depth: int) -> tuple[frozenset[str], bool]:
        """_tables_in for the values a variable is given, once per variable (a global is
        handed on by many)."""
        known = self._variable_tables_cache.get((key, depth))
        if known is None:
            found: set[str] = set()
            values = [a for a in self.assignments_to(key) if a.op == "="]
            complete = bool(values) and all([self._tables_in(a.value, a.span.path, a.function, depth - 1, found)
                                             for a in values])
            known = self._variable_tables_cache[(key, depth)] = (frozenset(found), complete)
        return known

    @cached_property
    def _variable_tables_cache(self) -> dict[tuple, tuple[frozenset[str], bool]]:
        return {}

    @cached_property
    def _field_bindings(self) -> dict[str, set[tuple[str, str]]]:
        """Per field name, the functions any table's initialiser (by designator or by position)
        or any assignment puts in it, each with the file that does."""
        bound: dict[str, set[tuple[str, str]]] = defaultdict(set)
        for facts in self.files.values():
            for b in facts.field_bindings:
                bound[b.field].add((b.function, b.span.path))
        for field, typed in self._typed_bindings.items():
            bound[field] |= {(function, where) for _, function, where in typed}
        for field, functions in self._assigned_to_fields.items():
            bound[field] |= functions
        return bound

    @cached_property
    def _assigned_to_fields(self) -> dict[str, set[tuple[str, str]]]:
        """Per field name, the functions assigned to it at run time (`m->xRead = f`), each with
        the file that does."""
        assigned: dict[str, set[tuple[str, str]]] = defaultdict(set)
        for field, function, _, a in self._functions_assigned_to_fields:
            assigned[field].add((function, a.span.path))
        return assigned

    @cached_property
    def _loop_callees(self) -> dict[tuple[str, int], set[str]]:
        """What each loop calls in its own body (nested loops included)."""
        callees: dict[tuple[str, int], set[str]] = defaultdict(set)
        for calls in self._calls_in.values():
            for call in calls:
                for loop_id in call.loops:
                    callees[(call.span.path, loop_id)].add(call.callee)
        return callees

    def repeats_work(self, path: str, loop_id: int) -> bool:
        """Whether a loop is a hot loop: it repeats with the workload (loop_class)."""
        return self.loop_class(path, loop_id) == WORK

    def loop_class(self, path: str, loop_id: int) -> str:
        """WORK for a loop that repeats with the workload; PACED for one paced by a sleep, a
        wait or a person typing (a housekeeping, progress or prompt loop, where per-iteration
        cost is noise); HANDFUL for one that runs a handful of times (per command-line argument
        or option, per file a pattern matched, up to a small constant, per processor or NUMA
        node) or retries a failed call (once per success).  Asked once per call in the loop:
        answered once per loop."""
        answer = self._repeats.get((path, loop_id))
        if answer is None:
            function = self.loop(path, loop_id).function
            callees = self._loop_callees.get((path, loop_id), set())
            if (path, loop_id) in self._paced_loops or callees & self._prompt_wrappers:
                answer = PACED
            elif (callees & OPTION_PARSERS or self._parses_options(path, loop_id)
                  or self._retries(self.loop(path, loop_id))
                  or self._visits_machine_directories(path, loop_id)
                  or self._ranges_over_table(path, loop_id)
                  or self._indexes_table(path, loop_id)
                  or self._counts_down(path, loop_id)
                  or self._walks_option_list(path, loop_id)
                  or frequency.handful(self.loop(path, loop_id),
                                       lambda bound: self._bound_value(bound, path, function),
                                       lambda node: self._walks_table(node, path, loop_id),
                                       lambda name: self._counts_arguments(name, path, function),
                                       lambda condition: self._counts_machine(condition, path, loop_id))):
                answer = HANDFUL
            else:
                answer = WORK
            self._repeats[(path, loop_id)] = answer
        return answer

    @cached_property
    def _repeats(self) -> dict[tuple[str, int], str]:
        return {}

    def _counts_down(self, path: str, loop_id: int) -> bool:
        """Whether a loop counts a variable down to a floor from small constants (`int left =
        10; for (...; left > 0; --left)`, `int tries = 5; while (tries-- > 0)`): at most that
        many times, as a loop up to a small constant.  The counter is given only such constants,
        outside the loop, and decremented, never otherwise changed (a flag that is only set,
        `int run = 1; while (run)`, counts nothing down)."""
        loop = self.loop(path, loop_id)
        for counter, floor in frequency.countdowns(loop.condition):
            low = self.constant(floor)
            given = self.assignments_to(self.key(counter, path, loop.function))
            starts = [self.constant_in(a.value, path, loop.function) for a in given if a.op == "="]
            changes = [a.op for a in given if a.op != "="]
            if (low is not None and starts and all(s is not None and 0 < s - low <= frequency.SMALL_TRIP_COUNT
                                                   for s in starts)
                    and all(loop_id not in a.loops for a in given if a.op == "=")
                    and changes and all(op in ("--", "-=") for op in changes)):
                return True
        return False

    def _walks_option_list(self, path: str, loop_id: int) -> bool:
        """Whether a loop walks a list the command line's options fill: its condition reads a
        global (or a cursor started at one: `for (s = silo_head; s; s = s->next)`) that is
        assigned, or handed by address to a call whose value is unused (an insert:
        `add_log(&all_logs, log)`), only outside the loop and once per option (_per_option).
        Such a list holds one item per option the command line gives (varnish maps one silo
        per `-s`, dc3dd opens one log per `log=`): a handful of items, not the workload."""
        loop = self.loop(path, loop_id)
        if loop.condition is None:
            return False
        # variables, not constants: `off + SEG_SIZE <= size` walks no list
        keys = {self.key(node, path, loop.function) for node in loop.condition.walk()
                if node.kind == IDENTIFIER and self.constant(node) is None} - {None}
        keys |= {self.key(a.value, path, loop.function) for key in keys if key[0] == "local"
                 for a in self.assignments_to(key) if a.op == "=" and loop_id not in a.loops}

        def outside(place) -> bool:
            return not (place.span.path == path and loop_id in place.loops)
        for key in {key for key in keys if key is not None and key[0] == "global"}:
            # filled by code, not only by its initialiser (a constant's #define is one too)
            fills = [place for place in (*self.assignments_to(key), *self._handing_globals.get(key, ()))
                     if outside(place) and place.function is not None]
            if fills and all(self._per_option(place.span.path, place.function, place.loops) for place in fills):
                return True
        return False

    def _per_option(self, path: str, function: str, loops: tuple[int, ...],
                    seen: frozenset = frozenset()) -> bool:
        """Whether code runs once per command-line option: in a loop that reads the options
        (a getopt loop, a walk over argv), or in a function every call of which does."""
        if any(self._reads_command_line(path, loop_id) for loop_id in loops):
            return True
        callers = self.callers_of(path, function)
        seen = seen | {(path, function)}
        return bool(callers) and len(seen) <= MAX_CALL_DEPTH and all(
            (c.span.path, c.function) not in seen and c.function is not None
            and self._per_option(c.span.path, c.function, c.loops, seen) for c in callers)

    def _reads_command_line(self, path: str, loop_id: int) -> bool:
        """Whether a loop walks the command line or reads its options."""
        return bool(self._loop_callees.get((path, loop_id), set()) & OPTION_PARSERS) \
            or self._over_arguments(self.loop(path, loop_id), 0) or self._parses_options(path, loop_id)

    @cached_property
    def _handing_globals(self) -> dict[tuple, list[Call]]:
        """The calls whose value is unused that are handed the address of a global, or of a
        place in one: what may fill it (an insert)."""
        found: dict[tuple, list[Call]] = defaultdict(list)
        for call, out in self.address_arguments:
            if call.result is None and (key := self.holder(out, call.span.path, call.function)) is not None \
                    and key[0] == "global":
                found[key].append(call)
        return found

    def _ranges_over_table(self, path: str, loop_id: int) -> bool:
        """Whether a range-for walks a table written in the source: an array or a container
        initialised once with a brace list (`for (const auto &menu : menus)` of `const
        std::vector<Menu> menus = {{add, "Adding"}, ...};`)."""
        loop = self.loop(path, loop_id)
        return loop.kind == "range-for" and any(
            a.op == RANGE_ELEMENT and a.loops[-1:] == (loop_id,) and self._is_table(a.value, path, loop.function)
            for a in self.assignments_in(path, loop.function))

    def _indexes_table(self, path: str, loop_id: int) -> bool:
        """Whether a loop counts an index up to a constant and reads a table written in the
        source at it: once per entry of the table, as a walk over it (sysstat's `for (i = 0; i
        < NR_ACT; i++) act[i]->f_read(act[i])` of `struct activity *act[NR_ACT] = {&cpu_act,
        ...}`, another file's table)."""
        loop = self.loop(path, loop_id)
        if loop.condition is None:
            return False

        def fixed(bound: Expr) -> bool:     # a constant, or a name each definition gives one
            values = self.values_of(self.key(bound, path, loop.function)) if bound.kind == IDENTIFIER else []
            return self.constant_in(bound, path, loop.function) is not None or (
                bool(values) and all(self.constant(value) is not None for value in values))
        counters = {counter.op for counter, bound in frequency.upper_bounds(loop.condition)
                    if fixed(bound) and any(
                        a.op in STEP_OPS and loop_id in a.loops
                        for a in self.assignments_to(self.key(counter, path, loop.function)))}
        if not counters:
            return False
        read = [part for call in self.calls_inside(loop) for part in (*(call.args or ()), call.receiver) if part is not None]
        return any(node.kind == SUBSCRIPT and (index := strip(node.children[1])) is not None
                   and index.kind == IDENTIFIER and index.op in counters
                   and self._is_table(node.children[0], path, loop.function)
                   for part in read for node in part.walk())

    def _visits_machine_directories(self, path: str, loop_id: int) -> bool:
        """Whether a loop formats its own counter into the sysfs directory name of a CPU or a
        NUMA node (frequency.machine_directory_values): it runs once per processor or node."""
        loop = self.loop(path, loop_id)

        def counter(value: Expr | None) -> bool:     # stepped in this loop, not a nested one
            return value is not None and value.kind == IDENTIFIER and any(
                a.op in STEP_OPS and self.made_in(a, loop) and a.loops[-1] == loop_id
                for a in self.assignments_to(self.key(value, path, loop.function)))
        return any(counter(strip(value)) for call in self.calls_inside(loop)
                   for value in frequency.machine_directory_values(call))

    def _counts_machine(self, condition: Expr, path: str, loop_id: int) -> bool:
        """Whether a loop's condition reads only constants, counts of the machine's processors
        or NUMA nodes (frequency.machine_count), and variables given only such values or
        counted up and down (`int max = numa_max_node(); for (i = max; i >= 0; --i)`), and at
        least one such count."""
        return bool(self._machine_value(condition, path, self.loop(path, loop_id).function, set()))

    def _machine_value(self, expr: Expr | None, path: str, function: str | None, seen: set) -> bool | None:
        """None when a value may come from anything but constants and machine counts; else
        whether a machine count is part of it (a variable seen before adds nothing)."""
        expr = strip(expr)
        if expr is None:
            return None
        if frequency.machine_count(expr):
            return True
        if self.constant(expr) is not None:
            return False
        if expr.kind == IDENTIFIER:
            key = self.key(expr, path, function)
            if key in seen:
                return False
            seen.add(key)
            assignments = self.assignments_to(key)
            if not any(a.op == "=" for a in assignments):
                return None
            parts = [self._machine_value(a.value, a.span.path, a.function, seen) if a.op == "=" else
                     False if a.op in STEP_OPS else None for a in assignments]
        elif expr.kind == BINARY and expr.op in ("+", "-", "*", "<", "<=", ">", ">=", "!=", "&&"):
            parts = [self._machine_value(child, path, function, seen) for child in expr.children]
        else:
            return None
        return None if None in parts else any(parts)

    def _bound_value(self, bound: Expr, path: str, function: str | None, depth: int = 0) -> int | None:
        """The constant a loop's bound is; for a parameter of its function, the largest of
        the constants every call passes for it (sysstat's `cprintf_f(unit, 2, ...)` loops `for
        (i = 0; i < num; i++)`, and every caller passes a literal count of its columns)."""
        value = self.constant(bound)
        if value is not None or depth > MAX_CALL_DEPTH:
            return value
        passed = self._passed_for(bound, path, function)
        if passed is None:
            return None
        values = [value if (value := self.constant_in(arg, call.span.path, call.function)) is not None
                  else self._bound_value(arg, call.span.path, call.function, depth + 1) for call, arg in passed]
        return max(values) if None not in values else None

    def _counts_arguments(self, name: Expr, path: str, function: str | None, depth: int = 0) -> bool:
        """Whether a variable counts command-line arguments: counted up only in loops over
        argv (fuzzershell's nInFile++ for each input file named); or walks the text of one (a
        list given to an option: speedtest1's `do { ...; zTSet = zComma + 1; } while (zTSet[0])`);
        or is a parameter every call passes argc or such a count for (lz4's benchmark is
        handed the count of file names its command line gave), or the command line itself
        (dpkg's option parser walks `**argvp` of `&argv`); or walks the argument vector itself
        (`for (argp = argv + 1; *argp; argp++)`)."""
        key = self.key(name, path, function)
        counted = [a for a in self.assignments_to(key) if a.op in ("++", "+=")]
        if counted and all(any(self._over_arguments(self.loop(a.span.path, i), depth) for i in a.loops)
                           for a in counted):
            return True
        if self._argument_text(key, set()) or self._walks_argv(key):
            return True
        passed = self._passed_for(name, path, function) if depth <= MAX_CALL_DEPTH else None
        return passed is not None and all(
            "argc" in arg.names() or _hands_arguments(arg) or (strip(arg) is not None and strip(arg).kind == IDENTIFIER
                                      and self._counts_arguments(strip(arg), call.span.path, call.function, depth + 1))
            for call, arg in passed)

    def _over_arguments(self, loop: Loop, depth: int) -> bool:
        """Whether a loop walks the command line: its condition names argc or argv
        (frequency.over_arguments), or a parameter every call hands them (multilog's
        `for (i = 0; script[i]; ++i)` in `c_init(char **script)`, called as `c_init(argv)`)."""
        return frequency.over_arguments(loop) or depth <= MAX_CALL_DEPTH and loop.condition is not None and any(
            node.kind == IDENTIFIER and self._passed_for(node, loop.span.path, loop.function) is not None
            and self._counts_arguments(node, loop.span.path, loop.function, depth + 1)
            for node in loop.condition.walk())

    def _passed_for(self, name: Expr, path: str, function: str | None) -> list[tuple[Call, Expr]] | None:
        """For a parameter of a function that the function never assigns, each call of the
        function with the argument it passes for it; None for anything else, or when no call
        is seen or one passes too few arguments."""
        name = strip(name)
        fn = self.function_at(path, function)
        if name is None or name.kind != IDENTIFIER or fn is None or name.op not in fn.params:
            return None
        if any(a.function == function for a in self.assignments_to(self.key(name, path, function))):
            return None
        index = fn.params.index(name.op)
        passed = [(call, call.arg(index)) for call in self.callers_of(path, function)]
        return passed if passed and all(arg is not None for _, arg in passed) else None

    def _walks_argv(self, key) -> bool:
        """Whether a variable only ever points into the argument vector: given argv, or a
        place in it (`argv + optind`), and only stepped."""
        assignments = self.assignments_to(key)
        return any(a.op == "=" for a in assignments) and all(
            _command_line(a.value, addressed=False) == "argv" if a.op == "=" else a.op in STEP_OPS
            for a in assignments)

    def _argument_text(self, key, seen: set) -> bool:
        """Whether a pointer only ever points into command-line text: argv's strings, optarg,
        string literals, and places found in them (`p + 1`, `strchr(p, ',')`, `p++`)."""
        if key in seen:
            return True
        seen.add(key)

        def text(expr: Expr | None, a: Assignment) -> bool:
            expr = strip(expr)
            if expr is None:
                return False
            if expr.kind == STRING or expr.kind == IDENTIFIER and expr.op == "optarg":
                return True
            if expr.kind == SUBSCRIPT:      # argv[i]
                base = strip(expr.children[0])
                return base is not None and base.kind == IDENTIFIER and base.op == "argv"
            if expr.kind == IDENTIFIER:
                return self._argument_text(self.key(expr, a.span.path, a.function), seen)
            if expr.kind == BINARY and expr.op in ("+", "-"):
                return text(expr.children[0], a)
            if expr.kind == CALL and expr.op in frequency.STRING_SEARCHES and expr.children:
                return text(expr.children[0], a)
            if expr.kind == COND:
                return all(text(branch, a) for branch in expr.children[1:])
            return False
        assignments = self.assignments_to(key)
        return any(a.op == "=" for a in assignments) and all(
            text(a.value, a) if a.op == "=" else a.op in STEP_OPS for a in assignments)

    def _walks_table(self, node: Expr, path: str, loop_id: int) -> bool:
        """Whether a node of a loop's condition walks a table written in the source (an array
        initialised with a brace list): `table[i]` with a varying index, a pointer set to the
        table (`c = checks; c->fn; c++`), the table's size from a macro (`ArraySize(t)`), or
        an accessor of the program given the counted index (`for (j = 0; name_of(j); j++)`,
        name_of returning when its index passes the table's size)."""
        function = self.loop(path, loop_id).function

        def counted(index: Expr) -> bool:
            return any(a.op in STEP_OPS
                       for name in index.walk() if name.kind == IDENTIFIER
                       for a in self.assignments_to(self.key(name, path, function)))
        if node.kind == SUBSCRIPT:     # table[i], i counted (table[FIELD] only reads one entry)
            return counted(node.children[1]) and self._is_table(node.children[0], path, function)
        if node.kind == CALL and len(node.children) == 1:
            # ArraySize(aTest): a size macro from a header, which tree-sitter does not expand
            return (self._is_table(node.children[0], path, function)
                    or counted(node.children[0]) and self._table_accessor(node.op))
        if node.kind != IDENTIFIER:
            return False
        values = self.values_of(self.key(node, path, function))
        if len(values) != 1:
            return False
        base = values[0]
        if base.kind == UNARY and base.op == "&" and strip(base.children[0]).kind == SUBSCRIPT:
            base = strip(base.children[0]).children[0]
        return self._is_table(base, path, function) or self._table_count(base, path, function)

    def _table_count(self, expr: Expr, path: str, function: str | None) -> bool:
        """Whether a value is a table's entry count, or a constant share of it: `sizeof(t) /
        sizeof(t[0])`, a size macro given the table (`ArraySize(t)`), either divided or
        multiplied by a constant (`SIZEOF_ARRAY(cmdpairs) / 2` of a table of command pairs)."""
        while (expr := strip(expr)) is not None and expr.kind == BINARY and expr.op in ("/", "*") \
                and len(expr.children) == 2 and self.constant(expr.children[1]) is not None:
            expr = expr.children[0]
        return expr is not None and frequency.counts_table(expr, lambda name: self._is_table(name, path, function))

    def _table_accessor(self, name: str) -> bool:
        """Whether the functions of this name return early once their index reaches the size
        of a table written in the source (`if (i < 0 || i >= ArraySize(aLib)) return 0;`)."""
        defined = self._functions.get(name, [])
        return bool(defined) and all(
            any(guard.leaves and not guard.preprocessor and frequency.bounded_by(
                    guard.condition, lambda size: self._is_table(size, where, fn.qualified))
                for guard in self._guards.get((where, fn.qualified), ()))
            for where, fn in defined)

    def _is_table(self, name: Expr, path: str, function: str | None) -> bool:
        key = self.key(name, path, function)
        values = self.values_of(key)
        # a table each definition of the name gives a brace list (two programs' tables, or
        # an #if's alternatives) of entries: `= {0}` only zero-fills an array
        return (key is not None and key[0] in ("global", "local") and bool(values)
                and all(brace_list(value) and value.text.strip("{} \t\n") not in _ZERO_FILLS for value in values))

    # -- guards -----------------------------------------------------------------------------

    def _innermost(self, call: Call) -> Loop | None:
        return self.loop(call.span.path, call.loops[-1]) if call.loops else None

    def guards_of(self, span: Span, function: str | None) -> list[Guard]:
        """The guards code at this place runs under: its function's, and the preprocessor
        groups around the function."""
        found = []
        for where in {function, None}:
            for guard in self._guards.get((span.path, where), ()):
                if guard.span.contains(span):
                    found.append(guard)
        return found

    def guards_over(self, call: Call) -> list[Guard]:
        """The guards a call runs under (guards_of), less a macro's `if` whose condition makes
        the call: a macro's facts sit at its invocation, and the condition's call in its
        argument (`CHECK(msync(...) == 0)` of `do { if (!(x)) die(#x); } while (0)` syncs every
        time and dies only when the sync fails)."""
        return [guard for guard in self.guards_of(call.span, call.function) if not _tested_by(guard, call)]

    def batched(self, call: Call) -> bool:
        """Whether a loop runs this call only once per batch: every N iterations (`if (i % 64
        == 0)`, or a counter compared and reset, the guard inside the call's innermost loop),
        or after an inner loop that drains its input (`for (;;) { ...; if (eof) break; }`)."""
        loop = self._innermost(call)
        if loop is not None and self._after_draining(call, loop):
            return True
        for guard in self._batch_guards.get((call.span.path, call.function), ()):
            if not guard.span.contains(call.span) or (loop is not None and not loop.span.contains(guard.span)) \
                    or _tested_by(guard, call) or self._completes_input_record(guard):
                continue

            def counts(counter: Expr, inside: Span = guard.span) -> bool:
                """Counted up in the loop, set back to 0 in the guard: a batch counter."""
                assignments = self.assignments_to(self.key(counter, call.span.path, call.function))
                return (any(a.op in ("++", "+=") and (loop is None or loop.span.contains(a.span))
                            for a in assignments)
                        and any(a.op == "=" and self.constant(a.value) == 0 and inside.contains(a.span)
                                for a in assignments))
            if frequency.batch(guard.condition, counts, lambda n: self._may_be_one(n, call)):
                return True
        return any(self._clocked(guard) for guard in self.guards_over(call)
                   if not guard.preprocessor and (loop is None or loop.span.contains(guard.span))) \
            or (loop is None and any(g.span < call.span and not g.span.contains(call.span)
                                     for g in self._clocked_returns.get((call.span.path, call.function), ())))

    @cached_property
    def _clocked_returns(self) -> dict[tuple[str, str | None], list[Guard]]:
        """Per function, its early returns taken until a clock has moved past the stamp the
        function sets after them (_clocked): what follows one runs only when its condition
        does not hold, once per interval."""
        return self._early_returns(lambda guard: self._clocked(guard, after=True))

    def _early_returns(self, kept: Callable[[Guard], bool]) -> dict[tuple[str, str | None], list[Guard]]:
        """Per function, its early returns (in no loop or branch of their own) that `kept`
        accepts."""
        found = {}
        for where, guards in self._guards.items():
            loops = self._loops_in.get(where, ())
            returns = [g for g in guards if g.leaves and not g.nested and not g.preprocessor
                       and not any(loop.span.contains(g.span) for loop in loops) and kept(g)]
            if returns:
                found[where] = returns
        return found

    def _clocked(self, guard: Guard, after: bool = False) -> bool:
        """Whether a guard holds once per tick or interval of a clock: its condition reads the
        clock and a value its code stamps from the clock (`if (now != last) { ...; last = now;
        }`, `if (now - last >= 1)`, `if (now >= next) { ...; next = now + 5; }`): progress
        shown once a second, not once per record.  With `after`, an early return taken until
        the clock has moved past the stamp, which the function sets after it (`if (now - last
        < PERIOD) return; last = now;`): what follows runs once per interval.  Answered once
        per guard."""
        known = self._clocked_guards.get((id(guard), after))
        if known is None:
            where = (guard.span.path, guard.function)
            end = (guard.span.end_line, guard.span.end_column)

            def stamping(a: Assignment) -> bool:
                if after:
                    return a.function == guard.function and a.span.path == guard.span.path \
                        and (a.span.line, a.span.column) > end
                return guard.span.contains(a.span)
            # what an early return's condition must be false of, whenever it is
            tested = frequency.orderings(guard.condition) if after else [guard.condition]
            read = [node for part in tested for node in part.walk() if node.kind in (IDENTIFIER, MEMBER, CALL)]
            stamps = [a for node in read if node.kind != CALL for a in self.assignments_to(self.key(node, *where))
                      if a.op == "=" and stamping(a)]
            known = self._clocked_guards[(id(guard), after)] = bool(stamps) and any(
                self._clock_reading(a.value, *where) for a in stamps) and any(
                self._clock_reading(node, *where) for node in read)
        return known

    @cached_property
    def _clocked_guards(self) -> dict[tuple[int, bool], bool]:
        return {}

    def _clock_reading(self, expr: Expr | None, path: str, function: str | None, depth: int = 2) -> bool:
        """Whether a value comes from a clock: a call of a clock (frequency.CLOCKS, or a function
        of the program returning a reading), a variable given one or handed by address to a
        clock (`clock_gettime(CLOCK_MONOTONIC, &ts)`), or a value computed from those."""
        for node in expr.walk() if expr is not None and depth else ():
            if node.kind == CALL and (node.op in frequency.CLOCKS or self._returns_clock(node.op)):
                return True
            if node.kind == MEMBER and node.children:
                node = strip(node.children[0])      # ts.tv_sec: a field of the reading
            key = self.key(node, path, function) if node is not None and node.kind in (IDENTIFIER, MEMBER) else None
            if key is not None and (key in self._clock_filled or any(
                    a.op == "=" and self._clock_reading(a.value, a.span.path, a.function, depth - 1)
                    for a in self.assignments_to(key))):
                return True
        return False

    def _returns_clock(self, name: str) -> bool:
        """Whether the program's functions of this name return a clock reading (`now_ms()`
        around clock_gettime), the call of a clock or a variable it filled."""
        known = self._clock_returners.get(name)
        if known is None:
            self._clock_returners[name] = False      # while worked out: a recursion reads none
            known = self._clock_returners[name] = any(
                node.kind == CALL and node.op in frequency.CLOCKS
                or node.kind in (IDENTIFIER, MEMBER) and self._clock_reading(node, path, fn.qualified, 1)
                for path, fn in self.defined_names.get(name, ()) for r in self.summaries.returns_in(path, fn.qualified)
                for node in r.value.walk())
        return known

    @cached_property
    def _clock_returners(self) -> dict[str, bool]:
        return {}

    @cached_property
    def _clock_filled(self) -> frozenset:
        """The variables handed by address to a clock that fills them (gettimeofday(&tv, ...))."""
        return frozenset(key for clock in frequency.CLOCKS for call in self.written_calls(clock)
                         for arg in call.args or () if _object(arg) is not strip(arg)
                         and (key := self.key(_object(arg), call.span.path, call.function)) is not None)

    def steps_by_chunks(self, loop: Loop) -> bool:
        """Whether a variable of the loop's condition is stepped in the loop only by a constant
        of at least frequency.CHUNK_STEP (`for (i = 0; i < length; i += UNIT)`, UNIT 10 MiB, a
        macro or a constant local):
        each iteration works through a chunk that size.  Whether a cost per chunk matters is
        the rule's to say: a flush's system call does not beside a MiB of work, a wait for the
        disk per MiB (sync_file_range) does."""
        condition = strip(loop.condition)
        if condition is None:
            return False
        for name in condition.walk():
            steps = [a for a in self.assignments_to(self.key(name, loop.span.path, loop.function))
                     if self.made_in(a, loop)] if name.kind == IDENTIFIER else []
            if steps and all(a.op in ("+=", "-=") and (self.constant_in(a.value, loop.span.path, loop.function) or 0)
                             >= frequency.CHUNK_STEP for a in steps):
                return True
        return False

    def _may_be_one(self, expr: Expr, call: Call) -> bool:
        """Whether a batch size may be 1: the constant 1, or a variable given 1 somewhere
        (directly or as a branch of `?:`)."""
        if self.constant(expr) == 1:
            return True
        return any(self.constant(v) == 1 or (v.kind == COND and 1 in map(self.constant, v.children[1:]))
                   for v in self.values_of(self.key(expr, call.span.path, call.function)))

    def leaves_loop(self, call: Call) -> bool:
        """Whether the call is on a way out of its innermost loop: in a branch that ends in a
        return, goto or break (`if (rc) { close(db); return 1; }`), or in the value a return
        statement inside the loop hands back (`else return Status::Corruption(...);`), so it
        runs once per loop run; or in a branch that handles a failed call (_handles_failure),
        once per failure; or before a call that ends the process (_on_way_out); or past the
        last place the loop goes round again (_past_every_continue)."""
        loop = self._innermost(call)
        return loop is not None and (any(
            (guard.leaves or self._ends_loop(guard, loop) or self._handles_failure(guard, loop))
            and loop.span.contains(guard.span) for guard in self.guards_over(call))
            or any(loop.span.contains(r.span) and r.span.contains(call.span)
                   for r in self.summaries.returns_in(call.span.path, call.function))
            or self._on_way_out(call) or self._past_every_continue(call, loop))

    def _past_every_continue(self, call: Call, loop: Loop) -> bool:
        """Whether the loop's body ends by leaving it, so that it goes round again only at a
        `continue` (Loop.repeats_when), and every `continue` comes before the call: once the
        call is made the body runs on to its end and leaves, so each run of the loop makes it
        at most once (opensmtpd's queue walk skips the other entries with `continue`, loads the
        first envelope it finds and returns)."""
        return loop.repeats_when is not None and len(loop.continued_at) == len(loop.repeats_when) \
            and all(continued < call.span for continued in loop.continued_at)

    def _ends_loop(self, guard: Guard, loop: Loop) -> bool:
        """Whether a branch ends by setting a flag the loop's condition then finds false
        (`{ report(); err = true; }` under `for (...; !err && i < n; ...)`): what it runs, it
        runs once per loop run, as before a break."""
        if loop.condition is None or guard.preprocessor:
            return False
        where = (loop.span.path, loop.function)
        for node in loop.condition.walk():
            flag = self.key(node, *where) if node.kind in (IDENTIFIER, MEMBER) else None
            for a in self.assignments_to(flag):
                value = self.constant(a.value) if a.op == "=" else None
                if value is not None and self._closes(guard, a) and self.made_in(a, loop) and truth(assume(
                        loop.condition, lambda n: value if n.kind == node.kind and self.key(n, *where) == flag else None),
                        self._global_constant) is False:
                    return True
        return False

    def _handles_failure(self, guard: Guard, loop: Loop) -> bool:
        """Whether a branch runs only when a call fails, and records the failure: its condition
        requires a call of the loop to have failed (`!cur->remove()`, `write(...) < 0`, `fopen(...)
        == NULL`, or the variable such a call's result went to; maybe `&& errno != ENOENT`), or
        asks the error state (`else if (db_->error() != NOREC)`, after a call that gave nothing),
        and it ends by setting a flag (`{ report(); err = true; }`).  It runs once per failure,
        not once per iteration, though the loop goes on."""
        if guard.preprocessor or not (self._tests_a_call(
                frequency.failure_tests(guard.condition, self.constant, negations=True), loop)
                or frequency.reads_error_state(guard.condition)):
            return False
        return any(a.op == "=" and self.constant(a.value) is not None and self._closes(guard, a)
                   for a in self._assignments_in.get((loop.span.path, loop.function), ()))

    def _closes(self, guard: Guard, a: Assignment) -> bool:
        """Whether an assignment closes a branch: its last statement, not one of a branch
        nested in it (which another path may skip: `if (!put(k)) err = true;`)."""
        return guard.span.contains(a.span) and a.span.end_line >= guard.span.end_line - 1 and self._always_in(guard, a)

    def _always_in(self, guard: Guard, a: Assignment) -> bool:
        """Whether an assignment inside a guard runs whenever the guarded code does: it is in no
        branch nested in the guard (any branch: one without a call in it is no guard)."""
        return not any(inner != guard.span and inner.contains(a.span) for inner in self._branches_from(guard.span, a.span))

    def _on_success(self, guard: Guard, a: Assignment) -> bool:
        """Whether an assignment inside a guard runs whenever the guarded code does and what
        it calls succeeds: in no branch nested in the guard but the else of an if that tests
        a call for failure (`if (!seeded) { fp = fopen(...); if (fp == NULL || ...) { weak
        seed } else seeded = 1; }`: a lazy set-up retried only while it fails)."""
        path, function = a.span.path, a.function
        elses = {otherwise: then for then, otherwise in self.files[path].alternatives}
        tests = {g.span: g.condition for g in self._guards.get((path, function), ()) if not g.preprocessor}
        for inner in self._branches_from(guard.span, a.span):
            if inner == guard.span or not inner.contains(a.span):
                continue
            condition = tests.get(elses.get(inner))
            if condition is None or not any(
                    self._tests_a_result(frequency.failure_tests(part, self.constant), path, function)
                    for part in frequency.disjuncts(condition)):
                return False
        return True

    def _tests_a_result(self, tested: list[Expr], path: str, function: str | None,
                        calls: list[Call] | None = None) -> bool:
        """Whether one of these values, tested in a function, is a call, or the variable one of
        these calls (default: the function's) put its result in."""
        tested = [t for t in map(strip, tested) if t is not None]
        if any(t.kind == CALL for t in tested):
            return True
        calls = self._calls_in.get((path, function), ()) if calls is None else calls
        results = {self.key(c.result, path, function) for c in calls} - {None} if tested else set()
        return any(self.key(t, path, function) in results for t in tested)

    def _branches_from(self, outer: Span, inner: Span) -> list[Span]:
        """The branches of a file (FileFacts.branches) that start inside `outer`, at or
        before `inner` does."""
        starts, spans = self._branch_index.get(outer.path, ((), ()))
        return spans[bisect_left(starts, (outer.line, outer.column)):bisect_right(starts, (inner.line, inner.column))]

    @cached_property
    def _branch_index(self) -> dict[str, tuple[list[tuple[int, int]], list[Span]]]:
        """Per file, its branches sorted by where they start, with those starts."""
        found = {}
        for facts in self.files.values():
            spans = sorted(facts.branches, key=lambda b: (b.line, b.column))
            found[facts.path] = ([(b.line, b.column) for b in spans], spans)
        return found

    def _retries(self, loop: Loop) -> bool:
        """Whether the loop goes round again only when a call in it failed: a part of its
        condition that must hold (an operand of a top-level &&) names a transient errno
        (`errno == EINTR`), or tests a call of the loop, or the variable its result went to,
        for NULL, MAP_FAILED or a negative (`do f = fopen(p, m); while (f == NULL && ...)`,
        `while (msync(p, n, MS_SYNC) == -1 && ...)`).  A success ends the loop, so what it
        does runs once per run of it: a retry, not the workload.  So does a loop whose body
        ends by leaving it and goes round again only at continues under such tests (`for (;;)
        { n = write(...); if (n < 0 && errno == EINTR) continue; return n; }`), or under the
        negation of a call's result (`f = fopen(candidate[i], "r"); if (!f) continue; ...;
        break;`: the first candidate that opens, one stream per run of the loop), or at none."""
        if loop.repeats_when is not None and all(self._retries_when(c, loop, negations=True)
                                                 for c in loop.repeats_when):
            return True
        return self._retries_when(loop.condition, loop)

    def _retries_when(self, condition: Expr | None, loop: Loop, negations: bool = False) -> bool:
        """Whether a condition holds only when a call of the loop failed (see _retries); with
        `negations`, `!f` of a call's result too (frequency.failure_tests)."""
        return frequency.retries_transient(condition) \
            or self._tests_a_call(frequency.failure_tests(condition, self.constant, negations), loop)

    def _tests_a_call(self, tested: list[Expr], loop: Loop) -> bool:
        """Whether one of these values, tested in the loop's function, is a call, or the
        variable a call of the loop put its result in."""
        return self._tests_a_result(tested, loop.span.path, loop.function, self.calls_inside(loop))

    def rest_of_one(self, call: Call, loop_id: int, size: Expr | None) -> bool:
        """Whether a loop hands the call the rest of one buffer, by the size it passes: `count -
        done` with done only counted up in the loop (`write(fd, buf, count - done)`), or a
        count the loop only decreases (`left -= n`; a count also clamped in the loop, `if (n >
        chunk) n = chunk`, is a chunk): a partial-write loop, which goes round again only when
        a write falls short."""
        loop = self.loop(call.span.path, loop_id)
        size = strip(size)
        if size is not None and size.kind == BINARY and size.op == "-":
            done = self.key(size.children[1], call.span.path, call.function)
            return done is not None and any(a.op == "+=" and self.made_in(a, loop) for a in self.assignments_to(done))
        remaining = self.key(size, call.span.path, call.function)
        changes = [a for a in self.assignments_to(remaining) if self.made_in(a, loop)]
        return bool(changes) and all(_decrements(a.op, a.value) for a in changes)

    def after_own_loop(self, call: Call, subject: Expr | None = None, writes: frozenset[str] = frozenset(),
                       rest_of_one: Callable[[Call, int], bool] = lambda call, loop_id: False,
                       handed: bool = False) -> bool:
        """Whether the call's function works through a batch in a loop (not around the call)
        before reaching it: a helper that writes its batch, then syncs or flushes it once.
        Given the descriptor, stream or mapping the call syncs, the loop must hand it to one of the
        `writes` (and not only to ones that write the rest of one buffer: rest_of_one) or call
        a function of the program, which may write it: bonnie++'s create_a_file writes the
        new file in chunks, then syncs the directory once per file.  A loop in a branch taken
        every N calls (`if (writes++ % banner == 0)`), which the call is not under, is no such
        batch: the banner a log writer draws every N lines before the line it flushes.  With
        `handed`, only a function of the program handed it counts, and a subject that names no
        variable here finds no batch."""
        path, function = call.span.path, call.function

        def array(expr: Expr | None) -> tuple | None:
            """handles[i], &handles[i]: the table; map + off, a page-aligned `(uintptr_t)p &
            ~(page - 1)`: the map; a local or a field given one value (`first = map + y * w`,
            a constructor's `ring_ = base_ + sizeof(Header)`): what that value is made of, in
            the function that gives it."""
            seen, where = set(), function
            while (base := strip(expr)) is not None:
                if base.kind == SUBSCRIPT or base.kind == BINARY and base.op in ("+", "-", "&") and base.children \
                        or base.kind == UNARY and base.op == "&" and base.children and base.children[0].kind == SUBSCRIPT:
                    expr = base.children[0]
                    continue
                variable = self.key(base, path, where) if base.kind in (IDENTIFIER, MEMBER) else None
                given = [a for a in self.assignments_to(variable) if a.op == "=" and strip(a.value) is not None]
                if variable is None or variable[0] == "global" or len(given) != 1 or variable in seen:
                    return variable
                seen.add(variable)
                expr, where = given[0].value, given[0].function
            return None

        def handed_on(expr: Expr | None) -> tuple | None:
            """What array() finds, else the variable itself (`fd = open(...)`: no array)."""
            return array(expr) or self.key(expr, path, function)
        same = handed_on if handed else array
        key = same(subject) if subject is not None else None
        if handed and key is None:
            return False
        def uses_it(c: Call) -> bool:
            """A call of the loop that may write the subject: one of the rule's own writes
            handed it (other library calls' arguments are recorded only when some selected
            rule reads them, and the answer must not depend on --select), or a function of
            the program (handed it, with `handed`)."""
            if c.callee in self._functions and not handed:
                return True
            return (c.callee in writes or c.callee in self._functions) and any(same(a) == key for a in c.args or ())
        over = self.guards_over(call)
        for loop, calls in self._loops_before(call):
            if not self.repeats_work(loop.span.path, loop.id):
                continue    # a handful of passes is no batch
            if any(guard not in over and frequency.periods(guard.condition)
                   for guard in self._run_time_guards(loop.span, function)):
                continue    # run every N calls, not before each one
            if key is None:
                return True
            uses = [c for c in calls if uses_it(c)]
            if uses and not all(c.callee in writes and rest_of_one(c, loop.id) for c in uses):
                return True
        return False

    def batch_on_the_way(self, call: Call, subject: Expr | None, writes: frozenset[str] = frozenset(),
                         rest_of_one: Callable[[Call, int], bool] = lambda call, loop_id: False,
                         handed: bool = False) -> bool:
        """Whether a function on the way to an instance's operation, or the one making it,
        works through a batch in a loop of its own before its step (after_own_loop): `commit(log,
        recs, n)` copying each record, then syncing through a helper of its own.  The subject
        (in the terms of the operation's function) is lifted into each function's terms; with
        `handed`, a function on the way must hand it on in that loop (a loop writing another
        file first seals nothing of this one)."""
        via = call.via
        last = len(via) - 1
        return any(self.after_own_loop(step, self.summaries.lift(subject, via[level:], last - level),
                                       writes, rest_of_one, handed=handed and level < last)
                   for level, step in enumerate(via) if level)

    def after_batch_on_object(self, hot: "HotPath") -> bool:
        """Whether a function the loop calls works through a batch on an object, calling the
        program's methods or callbacks on it in a loop of its own, and only then makes the call
        on that object that leads to the sync: bonnie++'s TestFileOps writes the test file a
        byte at a time (`file.write_block_byte()`), then `file.Close()` syncs it once.  The
        object must match: lmdb's commit also loops before it syncs, but over other things,
        and a commit per record is still a sync per record."""
        for step in hot.chain[1:]:
            where = (step.span.path, step.function)
            key = self.key(step.receiver, *where) if step.receiver is not None else None
            if key is not None and any(c.callee in self._functions and c.receiver is not None
                                       and self.key(c.receiver, *where) == key
                                       for _, calls in self._loops_before(step) for c in calls):
                return True
        return False

    def inner_loops(self, loop: Loop, place: Span):
        """The loops nested in this loop's body that repeat work and are not around the place
        (before or after it in the iteration), each with the calls inside it: the iteration
        works through a batch of its own."""
        where = (loop.span.path, loop.function)
        for inner in self._loops_in.get(where, ()):
            if (inner.id != loop.id and loop.span.contains(inner.span) and not inner.span.contains(place)
                    and self.repeats_work(inner.span.path, inner.id)):
                yield inner, self.calls_inside(inner)

    def _loops_before(self, call: Call):
        """The loops of the call's function that end before it (not around it), each with the
        calls inside it."""
        where = (call.span.path, call.function)
        for loop in self._loops_in.get(where, ()):
            if loop.id not in call.loops and loop.span < call.span and not loop.span.contains(call.span):
                yield loop, self.calls_inside(loop)

    def calls_inside(self, loop: Loop) -> list[Call]:
        """The calls in a loop's body, nested loops included."""
        return [c for c in self._calls_in.get((loop.span.path, loop.function), ()) if loop.id in c.loops]

    def _after_draining(self, call: Call, loop: Loop) -> bool:
        """An endless inner loop (left by a break at the end of its input) runs before the
        call in the same iteration: each iteration is a batch (mdb_load commits per database
        of the dump after reading its records)."""
        return any(inner.id not in call.loops and loop.span.contains(inner.span) and inner.span < call.span
                   and frequency.endless(inner, self.constant)
                   for inner in self._loops_in.get((call.span.path, call.function), ()))

    def assignments_in(self, path: str, function: str | None) -> list[Assignment]:
        """The assignments a function makes in its own body."""
        return self._assignments_in.get((path, function), [])

    @cached_property
    def _assignments_in(self) -> dict[tuple[str, str | None], list[Assignment]]:
        """Per function, the assignments it makes."""
        found: dict[tuple[str, str | None], list[Assignment]] = defaultdict(list)
        for facts in self.files.values():
            for a in facts.assignments:
                found[(a.span.path, a.function)].append(a)
        return found

    def _completes_input_record(self, guard: Guard) -> bool:
        """Whether a guard compares with a field of what its function reads its input into (a
        length a header announces: `if (c->got == c->hdr.len)` of `read(c->fd, (char *)&c->hdr +
        c->got, ...)`): a counter reset there completes one record of the input, as a state
        machine assembles it from partial reads, not a batch of records."""
        path, function = guard.span.path, guard.function
        filled = {self.holder(call.arg(READS_INTO[call.callee]), path, function)
                  for call in self.calls_in(path, function) if call.callee in READS_INTO} - {None}
        return bool(filled) and any(node.kind == MEMBER and node.children
                                    and self.holder(node.children[0], path, function) in filled
                                    for node in guard.condition.walk())

    @cached_property
    def _batch_guards(self) -> dict[tuple[str, str | None], list[Guard]]:
        """Per function, the if-guards that may hold only every N iterations."""
        return {where: [g for g in guards if not g.preprocessor and frequency.may_batch(g.condition)]
                for where, guards in self._guards.items()}

    def traced(self, call: Call, hot: "HotPath") -> bool:
        """Whether the call, or a call on the way to it from the loop, runs only while a debug,
        verbosity or trace setting is on (`if (verbose)`, `#ifdef SQLITE_DEBUG`, a parameter the
        call on the way passes such a setting for: `if (DFlags & cat)` of `vdebug(DEBUG_SYNC,
        ...)`), or after its function returned early unless it is (`if (!debug) return;`)."""
        steps = (*hot.chain, call.operation)
        for caller, step in zip((None, *steps), steps):
            guards = self.guards_over(step)
            # a guard on a parameter may be kept apart (Program: parameter_guards)
            on_parameters = [g for g in self._parameter_guards.get((step.span.path, step.function), ())
                             if g.span.contains(step.span)] if caller is not None else []
            if any(frequency.trace_switch(guard.condition) for guard in guards) or any(
                    self._passes_trace(guard, step, caller) for guard in (*guards, *on_parameters)):
                return True
            if any(guard.leaves and guard.span < step.span and not guard.span.contains(step.span)
                   and frequency.trace_off(guard.condition)
                   for guard in self._guards.get((step.span.path, step.function), ())):
                return True
        return False

    def _passes_trace(self, guard: Guard, step: Call, caller: Call | None) -> bool:
        """Whether a guard tests a parameter of its function that the call entering it passes a
        debug or trace setting for (`if (DFlags & cat)` of `vdebug(DEBUG_SYNC, msg, va)`)."""
        fn = self.function_at(step.span.path, step.function) if caller is not None else None
        return fn is not None and any(
            (arg := caller.arg(fn.params.index(name))) is not None and frequency.trace_switch(arg)
            for name in guard.condition.names() & set(fn.params))

    def ends_process(self, path: str, function: str | None) -> bool:
        """Whether a function ends the process whenever it runs (_ends_function): in an exit(),
        an abort() or a longjmp() (an error reporter's last line), or in a call of a function
        of the program that does (rsync's `exit_cleanup()` calls `_exit_cleanup()`, which ends
        in `exit()`; a project's `die()` and `fatal()`)."""
        return (path, function) in self._process_enders

    @cached_property
    def _process_enders(self) -> set[tuple[str, str]]:
        return self._ending[0]

    @cached_property
    def _ending(self) -> tuple[set[tuple[str, str]], dict[tuple[str, str | None], list[Call]]]:
        """The functions that end the process, and per function its calls that end it (of the C
        library, and of those functions): from exit() up through the callers, a function
        joining when one of its calls ends it (_ends_function)."""
        ending: dict[tuple[str, str | None], list[Call]] = defaultdict(list)
        for callee in frequency.PROCESS_ENDS:
            for end in self.written_calls(callee):
                ending[(end.span.path, end.function)].append(end)
        enders: set[tuple[str, str]] = set()
        todo = deque(ending)
        while todo:
            home = todo.popleft()
            if home in enders or not any(self._ends_function(end, ending[home]) for end in ending[home]):
                continue
            enders.add(home)
            for call in self.callers_of(*home):
                if self._ends_process(call, enders):
                    where = (call.span.path, call.function)
                    if call not in ending[where]:
                        ending[where].append(call)
                        todo.append(where)
        return enders, ending

    def _ends_function(self, end: Call, ending: list[Call]) -> bool:
        """Whether a call that ends the process ends its function whenever the function runs,
        given the function's other calls that end it.  The function returns no value (one that
        does has a way out: `if (ok) return 1; usage();`), no `return;` comes before the call
        (redis-cli's getRDB does `if (node) { ...; return; }` before `exit(0)`), no branch
        before it leaves but to end the process, and the call is in no loop and no branch (an
        if whose guard the frontend did not keep as a fact, a `?:`, the right of `&&`) unless
        in one of an if/else whose other branch ends the process too (lua's luaD_throw
        longjmps to the error handler if there is one, else exits)."""
        where = (end.span.path, end.function)
        fn = self.function_at(*where)
        if fn is None or end.loops or self.summaries.returns_in(*where):
            return False
        start = (end.span.line, end.span.column)
        if any(fn.span.contains(r) and (r.line, r.column) < start for r in self.files[end.span.path].bare_returns):
            return False
        guards = [g for g in self._guards.get(where, ()) if not g.preprocessor]
        if any(g.leaves and (g.span.end_line, g.span.end_column) <= start
               and not any(g.span.contains(other.span) for other in ending) for g in guards):
            return False
        around = self._branches_around(end)
        if not around:
            return not any(g.span.contains(end.span) for g in guards)
        if len(around) != 1:
            return False
        (branch,) = around
        others = [other for pair in self.files[end.span.path].alternatives if branch in pair
                  for other in pair if other != branch]
        return any(other.contains(e.span) and self._branches_around(e) == {other} for other in others for e in ending)

    def _branches_around(self, call: Call | Assignment | Guard) -> frozenset[Span]:
        """The branches of its function a call (or an assignment, or a guard's code) is in
        (FileFacts.branches: every if and else, case, `?:` arm and right side of `&&` and `||`,
        whether or not a guard was kept)."""
        fn = self.function_at(call.span.path, call.function)
        return frozenset(branch for branch in self._branches_from(fn.span, call.span)
                         if branch.contains(call.span)) if fn is not None else frozenset()

    def _ends_process(self, call: Call, enders: set[tuple[str, str]]) -> bool:
        """Whether every function a call may run is one of these."""
        return all((path, fn.qualified) in enders for path, fn in self.resolve(call))

    @cached_property
    def _paced_loops(self) -> set[tuple[str, int]]:
        """The loops that wait on every iteration (frequency.waits: a sleep, a timed wait, a
        join, a select on no descriptor, a prompt for a person): in their body, or through a
        function of the program that always waits when it runs (varnish's VTIM_sleep calls
        nanosleep; sqlite's sleep through its VFS's xSleep field), its wait under no condition
        of the functions on the way.  A wait in a `while` loop nested in the loop, which waits
        while a condition holds and may not run at all, paces that loop only: a writer that
        waits only while its queue is empty (`while (q->count == 0)
        pthread_cond_timedwait(...)`) never waits under load."""
        paced = set()
        for call in itertools.chain(self.calls(*frequency.WAITS, *frequency.SLEEPING_POLLS, *frequency.PROMPTS,
                                               *frequency.KEY_READS),
                                    self.written_calls(*frequency.TIMED_WAIT_METHODS)):     # `cv.wait_for(...)`
            if not self._waits(call):
                continue
            if any(self.guards_over(step) or step.loops for step in call.via[1:]):
                continue    # waits only sometimes
            paced.update((call.span.path, loop_id) for loop_id in call.loops if not self._waits_while(call, loop_id))
        return paced

    def _waits_while(self, call: Call, loop_id: int) -> bool:
        """Whether a wait in a loop sits in a `while` loop nested in it (not an endless one)."""
        path, nested = call.span.path, call.loops[call.loops.index(loop_id) + 1:]
        return any(self.loop(path, inner).kind == "while" and not frequency.endless(self.loop(path, inner), self.constant)
                   for inner in nested)

    @cached_property
    def _prompt_wrappers(self) -> set[str]:
        """Functions of the program that prompt a person on every iteration of a loop of their
        own (a REPL's `while ((line = linenoise(prompt)) != NULL)`): running them waits for the
        person."""
        return {function.rsplit("::", 1)[-1] for _, function in
                self._always_calling(frequency.PROMPTS, self._waits)}

    def _waits(self, call: Call) -> bool:
        """Whether a call is one of the library's waits (frequency.waits): a call that runs a
        function of the program is not, whatever its name (a test client's own `readline(fd)`
        reads a socket, which under load returns at once); it waits where its body does.  A
        line editor the program carries itself (linenoise, bundled) is still a prompt when it
        reads the standard input."""
        if not frequency.waits(call):
            return False
        defined = self.resolve(call)
        return not defined or call.callee in frequency.PROMPTS and any(
            self._reads_standard_input(path, fn.qualified) for path, fn in defined)

    def _reads_standard_input(self, path: str, function: str, depth: int = 2) -> bool:
        """Whether a function hands the standard input (stdin, STDIN_FILENO) to a call, itself
        or in the functions it calls, `depth` calls down."""
        calls = self._calls_in.get((path, function), ())
        if any(names & _STANDARD_INPUT for c in calls for arg in c.args or () if (names := arg.names())):
            return True
        return depth > 0 and any(self._reads_standard_input(where, fn.qualified, depth - 1)
                                 for c in calls for where, fn in self.resolve(c))

    def _parses_options(self, path: str, loop_id: int) -> bool:
        """Whether a loop reads the command-line options: a call in it is handed argc or argv,
        or a parser state a call was handed by address together with argv
        (`optparse_init(&opts, argv); while ((c = optparse_long(&opts, longopts, NULL)) != -1)`);
        not any value passed beside argv (`append(fd, argv[i])` makes fd no parser), nor an object
        made from one argument (`journal_open(&j, argv[1])`: a path the command line names).
        An `argv` the function declares in its body is a vector of its own (a request line split
        into words and handed to a command's handler), not the command line."""
        loop = self.loop(path, loop_id)
        inside = self.calls_inside(loop)
        if not inside:
            return False
        hands, states, parsers = self._option_parsers(path, loop.function)
        asked = {node.op for node in loop.condition.walk() if node.kind == CALL} if loop.condition is not None else set()
        return any(hands(arg) or self.key(_object(arg), path, loop.function) in states
                   for c in inside for arg in c.args or ()) \
            or any(c.callee in asked and self.key(c.receiver, path, loop.function) in parsers for c in inside)

    def _option_parsers(self, path: str, function: str | None) -> tuple[Callable[[Expr], bool], set, set]:
        """For _parses_options, per function (a large one has many loops): whether an argument
        hands the command line on, the parser states its calls are handed with it, and the
        objects made from it (`Parser parser(argc, argv)`), which a loop asks in its condition
        when it walks the arguments (`for (; parser.has_args_left(); parser.advance())`)."""
        known = self._parsers.get((path, function))
        if known is not None:
            return known
        fn = self.function_at(path, function)
        own = fn.locals - set(fn.params) if fn is not None else frozenset()

        def hands(arg: Expr) -> bool:
            return any((name := _command_line(value)) is not None and name not in own for value in alternatives(arg))
        given = [c for c in self._calls_in.get((path, function), ()) if c.args and any(hands(a) for a in c.args)]
        states = {key for c in given for a in c.args if _object(a) is not strip(a)
                  and (key := self.key(_object(a), path, function)) is not None}
        parsers = {self.key(c.result, path, function) for c in given} - {None}
        known = self._parsers[(path, function)] = (hands, states, parsers)
        return known

    @cached_property
    def _parsers(self) -> dict[tuple[str, str | None], tuple[Callable[[Expr], bool], set, set]]:
        return {}

    def _always_calling(self, callees: frozenset[str], which: Callable[[Call], bool]) -> set[tuple[str, str]]:
        """The functions that make one of these calls (those `which` accepts) whenever they
        run: outside ifs, in a loop or not."""
        return {(call.span.path, call.function) for callee in callees for call in self.written_calls(callee)
                if call.function is not None and which(call)
                and all(g.preprocessor for g in self.guards_over(call))}

    def _hot_loop(self, path: str, loops: tuple[int, ...], skip: Callable[[int], bool] = lambda loop_id: False) \
            -> Loop | None:
        """The innermost of these loops that repeats work: loops that run a handful of times
        inside it, and those `skip` names, do not count; a paced loop around the place makes
        it run at the pace of the wait."""
        for loop_id in reversed(loops):
            if skip(loop_id):
                continue
            kind = self.loop_class(path, loop_id)
            if kind == WORK:
                return self.loop(path, loop_id)
            if kind == PACED:
                return None
        return None

    def _hot_functions(self, every_iteration: bool) -> dict[tuple[str, str], tuple[Call, ...]]:
        """Functions run once per iteration of some loop, with the shortest call chain from it
        (with every_iteration, not through calls a loop makes only every N iterations).

        Breadth-first from the calls that sit inside loops, so each chain is a shortest one and
        recursion terminates.  Chains stop at MAX_CALL_DEPTH calls: fio's I/O loop reaches
        its sync through td_io_queue, an engine's queue callback and do_io_u_sync; deeper, the
        path from a loop usually crosses a dispatcher or a setup phase (fio's thread loop
        reaches its option parser), and "per iteration" stops meaning "per operation".  A call
        made by a wrapper (a function whose body only returns another's call) does not count:
        it adds no dispatch and no phase.  Without every_iteration (a leak, which grows with
        every repetition however coarse: once per phase or per keystroke as well as per
        operation) chains have no length limit: bemenu's event loop leaks a mapping six calls
        away, through its renderer's callback and a buffer swap."""
        if every_iteration in self._hot:
            return self._hot[every_iteration]
        hot: dict[tuple[str, str], tuple[Call, ...]] = {}
        queue: deque[tuple[str, str]] = deque()
        for calls in self._calls_in.values():
            for call in calls:
                if (self._hot_loop(call.span.path, call.loops) is not None and not self.leaves_loop(call)
                        and not (every_iteration and self.batched(call))):
                    self._mark_targets(call, (call,), hot, queue)
        self._spread(hot, queue, every_iteration)
        self._hot[every_iteration] = hot
        return hot

    def _spread(self, hot: dict[tuple[str, str], tuple[Call, ...]], queue: deque[tuple[str, str]],
                every_iteration: bool) -> None:
        """Follow the calls of the functions queued, up to MAX_CALL_DEPTH with every_iteration
        (see _hot_functions)."""
        while queue:
            fn = queue.popleft()
            if every_iteration and self.depth(hot[fn]) >= MAX_CALL_DEPTH:
                continue
            for call in self._calls_in.get(fn, ()):
                # on its way out (a forked child's work before its _exit): once in its process
                if not (every_iteration and self.batched(call)) and not self._on_way_out(call):
                    self._mark_targets(call, hot[fn] + (call,), hot, queue)

    def depth(self, chain: tuple[Call, ...]) -> int:
        """How deep a call chain reaches: its calls, less those a wrapper makes."""
        return sum(1 for call in chain if not self.forwards(call.span.path, call.function))

    def forwards(self, path: str, function: str | None) -> bool:
        """Whether a function is a wrapper: its body only hands its work to another's call."""
        fn = self.function_at(path, function)
        return fn is not None and fn.forwards

    def function_at(self, path: str, function: str | None) -> Function | None:
        """The definition of a function of this file by its qualified name."""
        return self._definitions.get((path, function))

    @cached_property
    def _definitions(self) -> dict[tuple[str, str | None], Function]:
        return {(path, fn.qualified): fn for defined in self._functions.values() for path, fn in defined}

    def run_per_iteration(self, loop: Loop) -> dict[tuple[str, str], tuple[Call, ...]]:
        """The functions one loop runs once per iteration through calls, each with its shortest
        chain (counted and cut as _hot_functions does; not through calls made every N iterations)."""
        hot: dict[tuple[str, str], tuple[Call, ...]] = {}
        queue: deque[tuple[str, str]] = deque()
        for call in self.calls_inside(loop):
            if not self.leaves_loop(call) and not self.batched(call):
                self._mark_targets(call, (call,), hot, queue)
        self._spread(hot, queue, True)
        return hot

    def loops_reaching(self, path: str, function: str | None) -> list[HotPath]:
        """Every loop that runs this function once per iteration through calls, with its
        shortest chain: the callers' loops _hot_functions would find, not only the nearest
        (worked out once per function: a walk up every caller)."""
        known = self._reaching.get((path, function))
        if known is None:
            known = self._reaching[(path, function)] = self._loops_reaching(path, function)
        return known

    @cached_property
    def _reaching(self) -> dict[tuple[str, str | None], list[HotPath]]:
        return {}

    def _loops_reaching(self, path: str, function: str | None) -> list[HotPath]:
        found: dict[tuple[str, int], HotPath] = {}
        best = {(path, function): 0}
        frontier: list[tuple[tuple[str, str | None], tuple[Call, ...]]] = [((path, function), ())]
        while frontier:
            following = []
            for target, chain in frontier:
                for call in self._callers.get(target, ()):
                    route = (call,) + chain
                    if self.depth(route) > MAX_CALL_DEPTH or self.batched(call):
                        continue
                    loop = self._hot_loop(call.span.path, call.loops)
                    if loop is not None and not self.leaves_loop(call):
                        found.setdefault((loop.span.path, loop.id), HotPath(loop, route))
                    caller = (call.span.path, call.function)
                    if call.function is not None and best.get(caller, MAX_CALL_DEPTH + 1) > self.depth(route):
                        best[caller] = self.depth(route)
                        following.append((caller, route))
            frontier = following
        return list(found.values())

    @cached_property
    def _callers(self) -> dict[tuple[str, str], list[Call]]:
        """The calls that may run each function (resolved as resolve() does)."""
        callers: dict[tuple[str, str], list[Call]] = defaultdict(list)
        for calls in self._calls_in.values():
            for call in calls:
                for path, fn in self.resolve(call):
                    callers[(path, fn.qualified)].append(call)
        return callers

    def callers_of(self, path: str, function: str | None) -> list[Call]:
        return self._callers.get((path, function), [])

    @cached_property
    def command_handlers(self) -> frozenset[tuple[str, str]]:
        """The functions of the program a `main` hands its own command line, its argc and argv
        in that order (`exit(HandleInputLine(argc, argv, stderr))`): each call of one elsewhere
        runs a whole command, as a run of the program would (a batch mode that splits each line
        of its input into arguments and runs them)."""
        handlers = set()
        for path, main in self._functions.get("main", ()):
            if len(main.params) < 2:
                continue
            for call in self._calls_in.get((path, main.qualified), ()):
                if call.args is not None and [a.text for a in call.args[:2]] == list(main.params[:2]):
                    handlers.update((where, fn.qualified) for where, fn in self.resolve(call))
        return frozenset(handlers)

    @cached_property
    def _hot(self) -> dict[bool, dict[tuple[str, str], tuple[Call, ...]]]:
        """_hot_functions' answers, by every_iteration."""
        return {}

    def _mark_targets(self, call, chain, hot, queue) -> None:
        for path, fn in self.resolve(call):
            target = (path, fn.qualified)
            if target not in hot:
                hot[target] = chain
                queue.append(target)

    def per_iteration(self, span_path: str, function: str | None, loops: tuple[int, ...],
                      every_iteration: bool = True) -> HotPath | None:
        """Whether code at this place runs once per iteration of a loop, and through what."""
        if loops:
            loop = self._hot_loop(span_path, loops)
            return HotPath(loop) if loop is not None else None
        chain = self._hot_functions(every_iteration).get((span_path, function)) if function else None
        if chain is None:
            return None
        first = chain[0]
        return HotPath(self._hot_loop(first.span.path, first.loops), chain)

    def call_per_iteration(self, call: Call, every_iteration: bool = True,
                           skip: Callable[[Call, int], bool] = lambda call, loop_id: False,
                           batches: bool = True) -> HotPath | None:
        """The loop that runs this call once per iteration: the innermost loop around the call
        as written that repeats work, or, for a call a function of the program makes (an
        instance, summaries.py), the loop around the call of that function, with the calls
        leading to the operation.  `skip` names loops that do not count (a loop that only
        retries the call).  Not when a function on the way ends the process, or makes the
        call on its way out or once (a flag); with every_iteration (costs paid per call, not
        leaks), not when a call on the way runs only every N iterations (unless not
        `batches`: a rule that tells such a call from a batch itself), nor through more than
        MAX_CALL_DEPTH calls.  Deeper calls inside a loop of their own function that
        repeats work belong to that loop (its own finding), not to this one."""
        site = call.via[0] if call.via else call
        skip_batches = every_iteration and batches
        if (skip_batches and self.batched(site)) or self.leaves_loop(site):
            return None
        loop = self._hot_loop(site.span.path, site.loops, lambda loop_id: skip(site, loop_id))
        if loop is None:
            return None
        chain, operation = call.via[:-1], call.operation
        if chain and every_iteration and self.depth(chain) > MAX_CALL_DEPTH:
            return None
        if any(self._in_test_build(c) for c in (site, *call.via[1:])):
            return None
        for level, deeper in enumerate(call.via[1:], 1):
            if self._in_own_loop(deeper, skip) or self.ends_process(deeper.span.path, deeper.function) \
                    or self._on_way_out(deeper) or self._gives_up(deeper) or (skip_batches and self.batched(deeper)) \
                    or self._ruled_out(call.via, level):
                return None
        if any(self.runs_once(c, loop) for c in (*chain, operation)) or self.runs_unmade_class(loop.span.path, call.via) \
                or self.runs_in_another_program(loop.span.path, call.via):
            return None
        return HotPath(loop, chain, operation if chain else None)

    def _in_test_build(self, call: Call) -> bool:
        """Whether a call is in a preprocessor group that only a test build compiles
        (frequency.test_build: `#ifdef TEST`, `#if defined(SQLITE_TEST)`): not the program the
        ordinary build makes, which clang, given the ordinary build's flags, does not see.  A
        profiling or debugging build's groups stay: what they cost is what that build measures
        (sqlite's VDBE_PROFILE reopens its log at every statement reset)."""
        return any(guard.preprocessor and frequency.test_build(guard.condition) for guard in self.guards_over(call))

    def _ruled_out(self, via: tuple[Call, ...], level: int) -> bool:
        """Whether what the calls on the way pass rules out a call: a guard around it that is
        false with those values (`createVFile(name, 0)` of a helper that opens only `if
        (zDiskFile)`), or an early return before it that is taken with them (`if (nBuf == 0)
        return 0;` handed 0), unless that return sits inside another branch (taken only when
        that branch's condition holds too, which the values do not say).  Not a guard on a
        parameter the function assigns: it no longer holds what the call passed."""
        call = via[level]
        where = (call.span.path, call.function)
        for guard in (*self._guards.get(where, ()), *self._parameter_guards.get(where, ())):
            if guard.preprocessor or self._reassigns_parameter(where, guard.condition):
                continue
            around = guard.span.contains(call.span)
            if not around and not (guard.leaves and not guard.nested and guard.span < call.span and not any(
                    loop.span.contains(guard.span) for loop in self._loops_in.get((call.span.path, call.function), ()))):
                continue    # neither around the call nor a return from the function before it
            holds = truth(self.summaries.lift(guard.condition, via, level), self._global_constant)
            if (around and holds is False) or (not around and holds is True):
                return True
        return False

    def _reassigns_parameter(self, where: tuple[str, str | None], condition: Expr) -> bool:
        """Whether a condition reads a parameter its function assigns."""
        fn = self.function_at(*where)
        return fn is not None and any(self.assignments_to(("local", *where, name))
                                      for name in condition.names() & set(fn.params))

    def _gives_up(self, call: Call) -> bool:
        """Whether a call of a function the loop runs is on that function's way out: in a branch
        that returns, jumps away or ends the process (`if (err) { report(); return -1; }`), the
        path an error takes, not the one each call takes; not the value such a branch returns
        (`if (ops->sync) return ops->sync(f);` dispatches), nor a branch that returns what a
        loop of its own counted up (`if (mapped) { while (len) { ...; total += n; } return
        total; }`: the function's work, done one of its ways), nor one whose condition declares
        what it found (`if (const auto *put = std::get_if<Put>(&cmd)) { log(put); return "OK"; }`:
        the work for that kind of request)."""
        returns = self.summaries.returns_in(call.span.path, call.function)
        return any(guard.leaves and not guard.preprocessor and not guard.declares
                   and not self._returns_count(guard, returns) for guard in self.guards_over(call)) \
            and not any(r.span.contains(call.span) for r in returns)

    def _returns_count(self, guard: Guard, returns: list[Return]) -> bool:
        """Whether a branch returns a variable a loop inside it counts up."""
        where = (guard.span.path, guard.function)
        loops = [loop for loop in self._loops_in.get(where, ()) if guard.span.contains(loop.span)]
        return any(guard.span.contains(r.span) and any(
            a.op in ("+=", "++") and any(loop.id in a.loops and loop.span.contains(a.span) for loop in loops)
            for a in self.assignments_to(self.key(r.value, *where))) for r in returns)

    def _in_own_loop(self, call: Call, skip: Callable[[Call, int], bool]) -> bool:
        """Whether a call sits in a loop of its own function that does not run a handful of times."""
        return any(not skip(call, loop_id) and self.loop_class(call.span.path, loop_id) != HANDFUL
                   for loop_id in call.loops)

    def _on_way_out(self, call: Call) -> bool:
        """Whether a call that ends the process (`_exit`, `exit`, `abort`, or a function of the
        program that always ends it: ends_process) follows this one in its function, in the same
        loops, under no condition this one is not under, with nothing between them that may
        go past it (_straight_to): the call runs once in the process it belongs to (a forked
        child's set-up before `execvp(); _exit(1);`, an error message before `die()`)."""
        ends = [end for end in self._process_ends_in.get((call.span.path, call.function), ())
                if call.span < end.span and end.loops == call.loops]
        if not ends:
            return False
        mine, around = self.guards_over(call), self._branches_around(call)
        return any(all(guard in mine for guard in self.guards_over(end))
                   and self._branches_around(end) <= around and self._straight_to(call, end) for end in ends)

    def _straight_to(self, call: Call, later: Call) -> bool:
        """Whether nothing between a call and a later one of its function may go past the
        later one: no return between them, and, in a loop, no branch (which may `continue`:
        mptest's loop does `if (rc == SQLITE_DONE) { ...; continue; }` before the
        `fatalError()` that ends it) but in a loop of its own that runs between them.  The
        else-branches of a branch the call is in do not count: they run instead of it (redis's
        rdbReportError runs the checker in one branch of an else-if chain, then exits after the
        chain)."""
        fn = self.function_at(call.span.path, call.function)
        if fn is None:
            return False
        path, after, before = call.span.path, (call.span.end_line, call.span.end_column), (later.span.line, later.span.column)
        instead = [other for then, other in self.files[path].alternatives if then.contains(call.span)]

        def between(span: Span) -> bool:
            return after < (span.line, span.column) < before and not any(other.contains(span) for other in instead)
        returns = [r.span for r in self.summaries.returns_in(path, call.function)] + [
            r for r in self.files[path].bare_returns if fn.span.contains(r)]
        if any(between(r) for r in returns):
            return False
        if not call.loops:
            return True
        inner = [loop.span for loop in self._loops_in.get((path, call.function), ())
                 if after < (loop.span.line, loop.span.column) and (loop.span.end_line, loop.span.end_column) < before]
        return not any(between(branch) and not branch.contains(later.span) and not any(loop.contains(branch) for loop in inner)
                       for branch in self._branches_from(fn.span, later.span))

    @cached_property
    def _process_ends_in(self) -> dict[tuple[str, str | None], list[Call]]:
        """Per function, its calls that end the process: of the C library, and of the program's
        functions that always end it."""
        return self._ending[1]

    def runs_once(self, call: Call, loop: Loop | None = None) -> bool:
        """Whether the call is guarded by a flag that stops it after one run: the guarded code
        flips the flag whenever it runs (`if (!seeded) { ...; seeded = 1; }`, `if (first) { ...;
        first = 0; }`, or code right after it on every path through it, `if (!err) report();
        err = TRUE;`; not `if (dir_sync) { if (fsync(d)) dir_sync = 0; }`, once per failure)
        or initialises what it tests (`if (!screen) screen = initscr();`), itself or in a
        function of the program it calls that always does (`if (dump_state) output_state();`,
        which sets `dump_state = 0` first: once per request a signal handler makes), or `loop`
        sets it on every iteration and nothing clears it (a latch: `if (!polled) reopen();`
        while each iteration's poll sets `polled = true`).  In a loop, the guard must be inside
        the loop (a guard around the loop says nothing of its iterations).  So does a call in no
        loop of its function, after an early return on a flag the function then sets
        (_after_once_return: `if (inited) return; inited = 1; tty = fopen(...);`)."""
        inner = self._innermost(call)
        if inner is None and any(self._after_once_return(guard, call)
                                 for guard in self._once_returns.get((call.span.path, call.function), ())):
            return True
        for guard in self.guards_over(call):
            flag = frequency.once_flag(guard.condition) if not guard.preprocessor else None
            if flag is None or (inner is not None and not inner.span.contains(guard.span)):
                continue
            target, runs_while_set = flag
            key = self.key(target, call.span.path, call.function)
            assignments = self.assignments_to(key)
            # code after the guard, or a callee, clears a variable only, a callee a program-wide
            # one: a field (`if (leaf->dirty) save(leaf);`) may be another object's on every
            # iteration
            if any(self._turns_off(a, runs_while_set) and (
                    guard.span.contains(a.span) and self._on_success(guard, a)
                    or key is not None and key[0] != "field" and self._follows(guard, a)
                    or key is not None and key[0] == "global" and self._made_by_callee(guard, a))
                   for a in assignments) \
                    and not (inner is not None and self._cleared_in(assignments, guard, inner, runs_while_set)):
                return True
            if loop is not None and not runs_while_set and self._latched(assignments, loop):
                return True
        return False

    def _follows(self, guard: Guard, assignment: Assignment) -> bool:
        """Whether an assignment of a constant comes after the guarded code on every path
        through it: later in its function, in the same loops and in no branch the guard's `if`
        is not in (qdbm's `if (!err) report(...); err = TRUE;`; not git's `if (file) { if
        (!from_stream) read_marks(); } from_stream = from;`, a value the caller passes)."""
        if self.constant(assignment.value) is None:
            return False
        if not (assignment.span.path == guard.span.path and assignment.function == guard.function
                and guard.span < assignment.span and not guard.span.contains(assignment.span)):
            return False
        loops = self._loops_in.get((guard.span.path, guard.function), ())
        return {loop.id for loop in loops if loop.span.contains(guard.span)} == set(assignment.loops) \
            and self._branches_around(assignment) <= self._branches_around(guard)

    @cached_property
    def _once_returns(self) -> dict[tuple[str, str | None], list[Guard]]:
        """Per function, its early returns on a flag (frequency.once_flag: `if (inited)
        return;`)."""
        return self._early_returns(lambda guard: frequency.once_flag(guard.condition) is not None)

    def _after_once_return(self, guard: Guard, call: Call) -> bool:
        """Whether a call comes after an early return that its function's first run past it
        makes taken from then on: the function sets the flag after the return, in no loop and
        in no branch, to what takes the return (`if (inited) return; inited = 1;`), gives it
        no value before the return (redis's `c->argv = args(...); if (c->argv == NULL)
        return;` tests what this call made; `int done = 0;` is cleared at every call, and a
        `static int done = 0;` reads the same), and no code but a declaration outside any
        function gives it back the value that passes (kyotocabinet's `if (tran_) return
        false; ...; tran_ = true;` is undone by end_transaction: a state, not a first run)."""
        if not guard.span < call.span or guard.span.contains(call.span):
            return False
        target, runs_while_set = frequency.once_flag(guard.condition)
        after = not runs_while_set      # what follows the return runs while the flag is set
        key = self.key(target, call.span.path, call.function)
        if key is None:
            return False
        given = self.assignments_to(key)
        mine = [a for a in given if self._in_function_of(a, guard)]
        return not any(a.span < guard.span for a in mine) \
            and all(a.function is None or self._turns_off(a, after) for a in given) \
            and any(guard.span < a.span and not a.loops and not self._branches_around(a) for a in mine)

    def _made_by_callee(self, guard: Guard, assignment: Assignment) -> bool:
        """Whether an assignment of a constant (a flag cleared, not an object made, which code
        elsewhere may drop again) is made, in no loop and in no branch (FileFacts.branches: an
        `if (asked()) flag = 0;` too, which holds no call and keeps no guard), by a function of
        the program that a call under the guard runs (written there outside any nested branch).
        An `#if` group is no branch here: it decides what the build holds, not when it runs
        (zlib's `if (crc_table_empty) make_crc_table();`, the whole table code under `#ifdef
        DYNAMIC_CRC_TABLE`, as tree-sitter reads every group)."""
        if assignment.loops or self.constant(assignment.value) is None or self._branches_around(assignment):
            return False
        home = (assignment.span.path, assignment.function)
        return any(guard.span.contains(c.span) and not any(
                       g is not guard and guard.span.contains(g.span) for g in self._run_time_guards(c.span, c.function))
                   and any((where, fn.qualified) == home for where, fn in self.resolve(c))
                   for c in self._calls_in.get((guard.span.path, guard.function), ()))

    def _run_time_guards(self, span: Span, function: str | None) -> list[Guard]:
        """The guards code at this place runs under, less the preprocessor's groups."""
        return [g for g in self.guards_of(span, function) if not g.preprocessor]

    def _turns_off(self, assignment: Assignment, runs_while_set: bool) -> bool:
        """Whether an assignment leaves a flag so that the code it guards stops running: a
        constant of the other truth, or, for code that runs while the flag is unset, any value
        but a constant zero (the object the guarded code creates)."""
        if assignment.op != "=":
            return False
        value = self.constant(assignment.value)
        if value is None:
            return not runs_while_set
        return (value == 0) == runs_while_set

    def _cleared_in(self, assignments: list[Assignment], guard: Guard, loop: Loop, runs_while_set: bool) -> bool:
        """Whether the loop's own body gives the flag back the value the guard runs on, outside
        the guard (`if (!f) f = fopen(...); ...; fclose(f); f = NULL;`), or a value of its own
        (`rc = put(...); if (rc == 0) rc = sync(...);`: the status of this iteration's step, not
        a flag a run of the guarded code set): the guard decides per iteration."""
        return any(self.made_in(a, loop) and not guard.span.contains(a.span) and a.op == "="
                   and (self.constant(a.value) is None or not self._turns_off(a, runs_while_set)) for a in assignments)

    def _latched(self, assignments: list[Assignment], loop: Loop) -> bool:
        """Whether a flag is only ever set (to a nonzero constant; a declaration before the loop
        may clear it) and the loop sets it on every iteration: code run while it is unset runs
        once, or not at all, per run of the loop."""
        # the cheap test first: a flag given a value of its own (`rc = put(...)`) is no latch
        return all((self._in_function_of(a, loop) and loop.id not in a.loops)
                   or (a.op == "=" and self.constant(a.value) not in (None, 0)) for a in assignments) \
            and any(self._sets_every_iteration(a, loop) for a in assignments)

    @staticmethod
    def made_in(assignment: Assignment, loop: Loop) -> bool:
        """Whether an assignment is made inside the loop, nested loops included (a loop's id is
        unique only within its file)."""
        return assignment.span.path == loop.span.path and loop.id in assignment.loops

    @staticmethod
    def _in_function_of(assignment: Assignment, loop: Loop | Guard) -> bool:
        """Whether an assignment is in the loop's (or guard's) function, inside it or not."""
        return assignment.span.path == loop.span.path and assignment.function == loop.function

    def _sets_every_iteration(self, assignment: Assignment, loop: Loop) -> bool:
        """Whether an assignment runs, in no branch of its function, on every iteration of a
        loop: in the loop itself, or in a function the loop runs once per iteration."""
        if self._branches_around(assignment):
            return False
        if self._in_function_of(assignment, loop):
            return loop.id in assignment.loops
        return not assignment.loops and any(
            hot.loop == loop for hot in self.loops_reaching(assignment.span.path, assignment.function))


def _decrements(op: str, value: Expr | None) -> bool:
    value = strip(value)
    return op == "-=" or (op == "=" and value is not None and value.kind == BINARY and value.op == "-")
