"""Pointer provenance: where the value a pointer holds may come from.

A store lands in a file mapping only when the pointer it goes through points into one, and
names do not say that: `t->slots` of a table kept in a mapping and `h->slots` of a heap
object are two fields, and a cursor walked down a list (`mc = mc->next`) is heap memory
however its fields are named.  The sources of a value are:

* a mapping: the result of an mmap, as written, or as a call of a function of the program
  that returns one makes it (the instance summaries.py gives that call, with the caller's
  protection and flags);
* an allocation (malloc, calloc, realloc, strdup, `new`, ...: heap memory), a string literal
  or the address of a global (static memory), the address of a local (the stack);
* nothing known: the result of a function the program does not define, a parameter no call
  of the program passes.  Unknown is no source: it neither makes nor spoils a mapping.

Values flow through assignments (declarations included), casts and pointer arithmetic (a
pointer computed from another keeps its sources), `?:`, parameters (what every call of the
program passes), returns (what a call's callee hands back), fields (what the program stores
in that field of that struct: the frontends name a field's struct where they know it, and a
field whose struct is not known is one per file and name) and the memory a pointer points to
(`*out = page` in a function handed `&np`, `mc->pages[top] = mp`).  The flow is a graph with
one edge per assignment, argument and return value, solved as it grows (each place passes on
what it gains); it is built only as far as mappings reach, and back from where a question
finds one (Provenance): linear in what it holds, times the few sources there are.
"""
from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from functools import cached_property
from typing import TYPE_CHECKING, Iterable

from .expressions import address_of, through_pointer
from .facts import (BINARY, CALL, CAST, COND, IDENTIFIER, INT, MEMBER, OTHER, RANGE_ELEMENT, STRING, SUBSCRIPT,
                    UNARY, Assignment, Call, Expr, FileFacts, Function, Loop, Return, Scoped, Span, StatementNames, strip)
from .iteration import lambda_home

if TYPE_CHECKING:
    from .program import Mapping, Program

# Sources that are not a mapping.  Mapping k is two sources: its start, FIRST_MAPPING + 2k
# (the pointer mmap returned, passed on as it is), and a place inside it, the next one (a
# pointer computed from it: `base + off`, `&slots[h]`).
HEAP, STATIC, STACK = 0, 1, 2
FIRST_MAPPING = 3
NOT_MAPPED = frozenset({HEAP, STATIC, STACK})

# C library calls whose result is newly allocated heap memory, and those that hand it back
# through an out-parameter (by the argument's index).
ALLOCATORS = frozenset({"malloc", "calloc", "realloc", "reallocarray", "aligned_alloc", "memalign", "valloc",
                        "pvalloc", "strdup", "strndup", "asprintf", "alloca", "new"})
ALLOCATING_INTO = {"posix_memalign": 0, "asprintf": 0, "vasprintf": 0, "getline": 0, "getdelim": 0}
# C library calls that return a pointer they were handed (by index): memcpy returns its
# destination; mremap moves a mapping of the same file.
RETURNS_ARGUMENT = {"memcpy": 0, "memmove": 0, "memset": 0, "strcpy": 0, "strncpy": 0, "strcat": 0,
                    "strncat": 0, "stpcpy": 0, "mremap": 0}
MMAP_CALLS = frozenset({"mmap"})
# A C++ container's methods (the library's: no definition in the program) that put their
# arguments into it, and those that hand back one of its elements.
CONTAINER_INSERTS = frozenset({"push_back", "emplace_back", "push_front", "emplace_front", "insert", "push",
                               "emplace"})
CONTAINER_ELEMENTS = frozenset({"back", "front", "at", "top"})
NULL_NAMES = frozenset({"NULL", "nullptr", "false", "true"})
NAMING = frozenset({IDENTIFIER, MEMBER, CALL})      # the expressions that read a place by its name

# A place in the flow graph: a variable (Program.key), a field ("member", struct, name), or
# ("member?", path, name) when its struct is not known, ("members", name) for the field of
# every struct, what a place points to ("*", place), what a function returns ("return", path,
# function), what a local's assignment gives it ("=", the assignment's identity, the local's name,
# (path, function)).
Node = tuple
# What a value read from a place goes through on its way: a substitution (a call of a function
# that returns a mapping it made, with the caller's flags: that call's instance of it), and
# whether it moves inside the mapping (pointer arithmetic).  None: neither.
Step = tuple[dict[int, int] | None, bool] | None
# An atom of a value: a source, or a place with the step its value goes through.
Atom = int | tuple[Node, Step]
# Where a name's statements are looked for: a local variable's (path, function), or None
# for every file (a global, a field, what a function returns).
Scope = tuple[str, str] | None


class Provenance:
    """The flow graph, built on demand.  Most of a program never holds a mapping's address
    (sqlite's 120k places: 5 do), so the graph is not built for it all: first every statement
    that mmaps, then, each time a place first holds a mapping, every statement that reads a
    place of its name (a statement reads only what its text names: a variable, a field, a
    function it calls), until no place gains a mapping; the places that may hold one are then
    all known, with every mapping they may hold.  What else such a place may hold (heap memory
    makes a pointer no mapping's) is completed when a question needs it: every statement that
    writes a place of its name, and so on back along what flows into them."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self.mappings: list[Mapping] = list(program.mappings)
        self._ids = {_identity(m.call): FIRST_MAPPING + 2 * i for i, m in enumerate(self.mappings)}
        self._edges: dict[Node, list[tuple[Node, Step]]] = defaultdict(list)
        self._into: dict[Node, set[Node]] = defaultdict(set)       # the places flowing into each
        self._sources: dict[Node, set[int]] = defaultdict(set)
        self._definitions = Definitions(program)
        self._added: set[int] = set()               # the statements in the graph, by identity
        self._complete: set[Node] = set()           # places whose every writer is in the graph
        self._reached: list[Node] = []              # places that have just gained a mapping
        # the names of those places, and mmap's: an expression naming none holds no mapping
        self._mapped_names: set[str] = set()
        self._read: set[tuple[str, Scope]] = set()       # names (in their scope) whose readers are added
        self._written: set[tuple[str, Scope]] = set()    # and those whose writers are
        if self.mappings:
            spelled = MMAP_CALLS | {name for name, model in self.program.models.items() if model.callee in MMAP_CALLS}
            self._add_readers([(name, None) for name in sorted(spelled)
                               if self._library(name) in MMAP_CALLS and self._statements.readers(name)])

    # -- what a pointer points into ----------------------------------------------------------

    def sources(self, expr: Expr | None, path: str, function: str | None, span: Span | None = None,
                place: bool = False) -> set[int]:
        """Every known source of an expression's value, in a function (span: the statement it is
        in, where it holds calls); with `place`, of the address of the place the expression
        stores to (`p[i]`, `p->f`: p's; `t->slots[i]` of an array the struct holds: t's).
        Heap, static or stack memory are among them only when a mapping is too: nothing else
        asks about them."""
        names = _names_in(expr)
        if self._mapped_names.isdisjoint(names) and CONTAINER_ELEMENTS.isdisjoint(names):
            return set()        # no place it reads holds a mapping (nor calls mmap)
        atoms = (self._address if place and expr is not None else self._value)(expr, path, function, span)
        found = self._gathered(atoms)
        if found - NOT_MAPPED:
            self._complete_back([atom[0] for atom in atoms if not isinstance(atom, int)])
            found = self._gathered(atoms)
        return found

    def _gathered(self, atoms: list[Atom]) -> set[int]:
        found: set[int] = set()
        for atom in atoms:
            if isinstance(atom, int):
                found.add(atom)
            else:
                found |= _substituted(self._sources.get(atom[0], ()), atom[1])
        return found

    def pointees(self, pointer: Expr | None, path: str, function: str | None,
                 span: Span | None = None, place: bool = False) -> tuple[tuple[Mapping, ...], bool]:
        """The mappings a pointer may point into (or a pointer computed from them), and, when
        there are any, whether it may point to other memory too (heap, static or stack); with
        `place`, those a store to the expression writes into (sources)."""
        found = self.sources(pointer, path, function, span, place)
        indexes = sorted({(i - FIRST_MAPPING) // 2 for i in found - NOT_MAPPED})
        return tuple(self.mappings[i] for i in indexes), bool(found & NOT_MAPPED)

    def at_start(self, pointer: Expr | None, path: str, function: str | None) -> bool:
        """Whether a pointer holds the start of a mapping, as mmap returned it (maybe of
        another mapping of the file each time the file is mapped again), and nothing else
        known: the place offsets into the mapping are counted from."""
        found = self.sources(pointer, path, function)
        return bool(found) and all(i >= FIRST_MAPPING and (i - FIRST_MAPPING) % 2 == 0 for i in found)

    def mappings_into(self, pointer: Expr | None, path: str, function: str | None,
                      span: Span | None = None, place: bool = False) -> tuple[Mapping, ...]:
        """The mappings a pointer points into when every known source of its value is one (or a
        pointer computed from one); none when it may be heap, static or stack memory."""
        mappings, elsewhere = self.pointees(pointer, path, function, span, place)
        return () if elsewhere else mappings

    # -- the graph, as far as it is needed ---------------------------------------------------

    @cached_property
    def _statements(self) -> Statements:
        return Statements(self.program)

    @cached_property
    def _fields_set(self) -> frozenset[str]:
        """The names of the fields the program gives a value: assigned (`t->slots = p`, a C++
        method's `slots_ = p`), or handed by address to a call (`init(&t->slots)`).  A store
        into an element (`t->slots[i].n = 0`) sets the element, not the field."""
        found = {strip(a.target).op for facts in self.program.files.values() for a in facts.assignments
                 if strip(a.target) is not None and strip(a.target).kind in (MEMBER, IDENTIFIER)}
        return frozenset(found) | self.program.handed_by_address(MEMBER)

    def _add_readers(self, names: Iterable[tuple[str, Scope]]) -> None:
        """Add the statements reading these names, then those reading each place that gains a
        mapping through them, until none does (a name's readers are added once per scope)."""
        pending = list(names)
        while pending or self._reached:
            if not pending:
                pending.extend(self._names(self._reached.pop()))
                continue
            name, scope = pending.pop()
            if (name, scope) not in self._read:
                self._read.add((name, scope))
                self._mapped_names.add(name)
                for statement in self._statements.readers(name, scope):
                    self._add(statement)

    def _complete_back(self, places: list[Node]) -> None:
        """Add every statement that may write these places, and those writing what flows into
        them, back to where their values are made (a name's writers are added once per scope)."""
        pending = list(places)
        while pending:
            place = pending.pop()
            if place in self._complete:
                continue
            self._complete.add(place)
            for named in self._names(place):
                if named not in self._written:
                    self._written.add(named)
                    for statement in self._statements.writers(*named):
                        self._add(statement)
            pending.extend(self._into.get(place, ()))
        self._add_readers(())

    def _names(self, place: Node) -> Iterable[tuple[str, Scope]]:
        """The names a statement reading or writing this place spells, each with where such
        statements are: a local variable's (or what its assignment gives it) in its function,
        a global's, a field's or a function's (or the name of a call that runs it:
        `s->fetch(...)`) anywhere."""
        kind = place[0]
        if kind in ("*", "entry"):
            return self._names(place[1])
        if kind == "=":
            return ((place[2], place[3]),)
        if kind == "return":
            return ((name, None) for name in {place[2].rsplit("::", 1)[-1]}
                    | {call.callee for call in self.program.callers_of(place[1], place[2])})
        if kind in ("global", "members"):
            return ((place[1], None),)
        if kind == "local":
            return ((place[3], (place[1], place[2])),)
        return ((place[2], None),)              # "member", "member?", "field"

    def _add(self, statement: Assignment | Return | Call) -> None:
        if id(statement) in self._added:
            return
        self._added.add(id(statement))
        if isinstance(statement, Call):
            self._arguments(statement)
        elif isinstance(statement, Return):
            self._flow([("return", statement.span.path, statement.function)],
                       self._value(statement.value, statement.span.path, statement.function, statement.span))
        else:
            a = statement
            value = self._value(a.value, a.span.path, a.function, a.span)
            if a.op == RANGE_ELEMENT:       # each element of the range in turn
                value = self._pointee(value)
            if self._definitions.tracks(a):
                # what this assignment gives its local; the variable as a whole holds it too
                self._flow([_definition(a)], value)
                self._flow([self.program.key(a.target, a.span.path, a.function)], [(_definition(a), None)])
            else:
                self._flow(self._places(a.target, a.span.path, a.function), value)

    def _arguments(self, call: Call) -> None:
        """A call's arguments flow into the parameters of each function it may run; a function
        that stores through a parameter (`*out = page`) stores into what the caller handed
        (`&np`); an allocator handing back memory through one fills it with heap memory."""
        args = call.args or ()
        where = (call.span.path, call.function, call.span)
        targets = self._targets.get(id(call), ())
        if not targets and call.receiver is not None and call.callee in CONTAINER_INSERTS:
            self._flow([("*", place) for place in self._places(call.receiver, call.span.path, call.function)],
                       [atom for arg in args for atom in self._value(arg, *where)])
        if not targets and self._library(call.callee) in ALLOCATING_INTO:
            index = ALLOCATING_INTO[self._library(call.callee)]
            if index < len(args) and (out := address_of(args[index])) is not None:
                self._flow(self._places(out, call.span.path, call.function), [HEAP])
        for path, fn in targets:
            for index, name in enumerate(fn.params):
                if not name or index >= len(args):
                    continue
                param = ("local", path, fn.qualified, name)
                if ("entry", param) not in self._edges:     # what it comes in with, it holds
                    self._flow([param], [(("entry", param), None)])
                self._flow([("entry", param)], self._value(args[index], *where))
                if (out := address_of(args[index])) is not None:
                    self._flow(self._places(out, call.span.path, call.function), [(("*", param), None)])

    def _flow(self, places: Iterable[Node], atoms: list[Atom]) -> None:
        """Edges from the atoms' places to these places (and their sources), with what the
        sources already known flow into at once."""
        for place in places:
            for atom in atoms:
                if isinstance(atom, int):
                    self._gain(place, {atom})
                elif atom[0] != place:
                    self._edges[atom[0]].append((place, atom[1]))
                    self._into[place].add(atom[0])
                    if self._sources.get(atom[0]):
                        self._gain(place, _substituted(self._sources[atom[0]], atom[1]))

    def _gain(self, place: Node, new: set[int]) -> None:
        """A place gains sources, and passes on what it gained along its edges; a place that
        gains its first mapping is reached (its readers are added next)."""
        pending = [(place, new)]
        while pending:
            place, new = pending.pop()
            have = self._sources[place]
            new = new - have
            if not new:
                continue
            if not have - NOT_MAPPED and new - NOT_MAPPED:
                self._reached.append(place)
            have |= new
            for target, step in self._edges.get(place, ()):
                pending.append((target, _substituted(new, step)))

    # -- places and values -------------------------------------------------------------------

    def _places(self, lvalue: Expr | None, path: str, function: str | None) -> list[Node]:
        """Where an assignment to this lvalue stores its value."""
        lvalue, path, function = _at_home(lvalue, path, function)
        if lvalue is None:
            return []
        if lvalue.kind == IDENTIFIER:
            place = self._variable(lvalue, path, function)[:1]
            return place + [("members", lvalue.op)] if place and place[0][0] == "member" else place
        if lvalue.kind == MEMBER:
            field = self._field(lvalue, path)
            return [field, ("members", lvalue.op)] if field[0] == "member" else [field]
        if lvalue.kind in (SUBSCRIPT, UNARY) and lvalue.children and (lvalue.kind == SUBSCRIPT or lvalue.op == "*"):
            base = strip(lvalue.children[0])
            if base is not None and base.kind in (IDENTIFIER, MEMBER):     # what the variable or field points to
                return [("*", place) for place in self._places(base, path, function)[:1]]
            pointer = self._value(base, path, function, None)
            return [("*", atom[0]) for atom in pointer if not isinstance(atom, int)]
        return []

    def _value(self, expr: Expr | None, path: str, function: str | None, span: Span | None) -> list[Atom]:
        """The atoms of an expression's value: the sources it is made of, the places it is read from."""
        expr, path, function = _at_home(expr, path, function)
        if expr is None or expr.kind == INT or expr.value is not None:
            return []
        kind, kids = expr.kind, expr.children
        if kind == IDENTIFIER:
            if expr.op in NULL_NAMES:
                return []
            return [(place, None) for place in self._variable(expr, path, function, span)]
        if kind == MEMBER:
            field = self._field(expr, path)
            if field[0] == "member":    # a store of the field whose struct is not known, in this file
                return [(field, None), (("member?", path, expr.op), None)]
            return [(field, None), (("members", expr.op), None)]
        if kind == STRING:
            return [STATIC]
        if kind == CAST:
            return self._value(kids[0], path, function, span) if kids else []
        if kind == COND and len(kids) == 3:
            return self._value(kids[1], path, function, span) + self._value(kids[2], path, function, span)
        if kind == BINARY and len(kids) == 2:
            # an operand cast to a pointer type is the pointer, the other a number, whatever
            # that number was computed from (`(char *)region + pos`, pos a difference of pointers)
            pointers = [_pointer_typed(k) for k in kids]
            if expr.op in ("+", "&", "|"):      # pointer + offset, offset + pointer, an aligned pointer
                operands = [k for k, typed in zip(kids, pointers) if typed] if pointers.count(True) == 1 else kids
                return _moved([atom for k in operands for atom in self._value(k, path, function, span)])
            if expr.op == "-" and not pointers[1]:      # pointer - offset; a difference of pointers is a number
                return _moved(self._value(kids[0], path, function, span))
            return []
        if kind == SUBSCRIPT and kids:
            return self._pointee(self._value(kids[0], path, function, span))
        if kind == UNARY and kids:
            if expr.op == "*":
                return self._pointee(self._value(kids[0], path, function, span))
            if expr.op == "&":
                return self._address(kids[0], path, function, span)
            if expr.op in ("++", "--"):
                return self._value(kids[0], path, function, span)
            return []
        if kind == CALL:
            return self._returned(expr, path, function, span)
        if kind == OTHER:
            return [HEAP] if expr.op == "new" else []
        return []

    def _address(self, operand: Expr, path: str, function: str | None, span: Span | None) -> list[Atom]:
        """`&x`: the stack for a local, static memory for a global; `&p[i]`, `&p->f`: a pointer
        computed from p; `&s.f`: the address of s."""
        operand, path, function = _at_home(operand, path, function)
        if operand is None:
            return []
        if operand.kind == IDENTIFIER:
            key = self.program.key(operand, path, function)
            return [STACK] if key is not None and key[0] == "local" else [STATIC] if key == ("global", operand.op) else []
        if operand.kind == UNARY and operand.op == "*":
            return self._value(operand.children[0], path, function, span)
        if operand.kind == SUBSCRIPT:
            table = strip(operand.children[0])
            if table is not None and table.kind == MEMBER and table.op not in self._fields_set:
                # a field the program never gives a value, indexed: an array the struct holds
                # (`&tbl->slots[id % n]` of `struct slot slots[]`), inside the object
                return _moved(self._address(table, path, function, span))
            return _moved(self._value(operand.children[0], path, function, span))
        if operand.kind == MEMBER:
            inner = operand.children[0]
            if through_pointer(operand):
                return _moved(self._value(inner, path, function, span))
            return _moved(self._address(inner, path, function, span))
        return []

    @staticmethod
    def _pointee(atoms: list[Atom]) -> list[Atom]:
        """What the pointers of these atoms point to: what the program stores through them."""
        return [(("*", atom[0]), None) for atom in atoms if not isinstance(atom, int)]

    def _returned(self, expr: Expr, path: str, function: str | None, span: Span | None) -> list[Atom]:
        """A call's value: what the functions it runs return (a mapping they make, as this call
        makes it), a mapping, heap memory, a pointer it was handed, or nothing known."""
        calls = self._calls_at(path, function, span, expr.op)
        atoms: list[Atom] = []
        for call in calls:
            targets = self._targets.get(id(call), ())
            if targets:
                substitution = self._instances_at.get(call.span)
                step = (substitution, False) if substitution else None
                atoms.extend((("return", where, fn.qualified), step) for where, fn in targets)
                continue
            if call.receiver is not None and call.callee in CONTAINER_ELEMENTS:
                atoms.extend(self._pointee(self._value(call.receiver, path, function, span)))
                continue
            atoms.extend(self._library_value(call.callee, call.args or expr.children, path, function, span,
                                             call.span))
        if not calls:
            defined = self.program.defined_names.get(expr.op, ())
            local = [d for d in defined if d[0] == path] or list(defined)
            atoms.extend((("return", where, fn.qualified), None) for where, fn in local)
            if not local:
                atoms.extend(self._library_value(expr.op, expr.children, path, function, span, None))
        return atoms

    def _library_value(self, callee: str, args: tuple[Expr, ...], path: str, function: str | None,
                       span: Span | None, at: Span | None) -> list[Atom]:
        callee = self._library(callee)
        if callee in MMAP_CALLS:
            made = self._ids.get((at,)) if at is not None else None
            return [made] if made is not None else []
        if callee in ALLOCATORS:
            return [HEAP]
        index = RETURNS_ARGUMENT.get(callee)
        if index is not None and index < len(args):
            return self._value(args[index], path, function, span)
        return []

    def _library(self, callee: str) -> str:
        """The C library function a call of a function the program does not define stands for
        (by its model: mmap64 is mmap, a configured xmalloc is malloc)."""
        model = self.program.models.get(callee)
        return model.callee if model is not None and callee not in self.program.defined_names else callee

    def _calls_at(self, path: str, function: str | None, span: Span | None, callee: str) -> list[Call]:
        """The calls of this name in a statement."""
        if span is None:
            return []
        return [call for line in range(span.line, span.end_line + 1)
                for call in self._calls_on_line.get((path, line), ())
                if call.callee == callee and call.function == function and span.contains(call.span)]

    @cached_property
    def _targets(self) -> dict[int, list[tuple[str, Function]]]:
        """The functions each call of the program may run, by the call's identity (the call
        graph's own resolution, read once)."""
        found: dict[int, list[tuple[str, Function]]] = defaultdict(list)
        for defined in self.program.defined_names.values():
            for path, fn in defined:
                for call in self.program.callers_of(path, fn.qualified):
                    found[id(call)].append((path, fn))
        return found

    @cached_property
    def _calls_on_line(self) -> dict[tuple[str, int], list[Call]]:
        found: dict[tuple[str, int], list[Call]] = defaultdict(list)
        for facts in self.program.files.values():
            for call in facts.calls:
                found[(call.span.path, call.span.line)].append(call)
        return found

    @cached_property
    def _instances_at(self) -> dict[Span, dict[int, int]]:
        """Per call of a function of the program that hands back a mapping it makes (maybe
        through further calls), that mapping as the function makes it there -> as this call
        makes it (with the caller's protection and flags)."""
        found: dict[Span, dict[int, int]] = defaultdict(dict)
        for mapping in self.mappings:
            chain = _identity(mapping.call)
            inner = self._ids.get(chain[1:])
            if len(chain) > 1 and inner is not None:
                found[chain[0]][inner] = self._ids[chain]            # its start
                found[chain[0]][inner + 1] = self._ids[chain] + 1    # a place inside it
        return found

    def _variable(self, name: Expr, path: str, function: str | None, span: Span | None = None) -> list[Node]:
        """A name's places: the variable (read in a statement, span: the assignments of it that
        may reach there); in a method, a name that is no local is a field of the object (and
        may be a global)."""
        key = self.program.key(name, path, function)
        if key is not None and key[0] == "field" and function is not None and "::" in function:
            owner = function.split("::")[-2]
            return [("member", self._struct(owner), name.op), ("global", name.op)]
        if key is not None and key[0] == "local" and span is not None and not isinstance(name, Scoped):
            reaching = self._definitions.reaching(key, span)
            if reaching is not None:
                return [_definition(a) if a is not None else ("entry", key) for a in reaching]
        return [key] if key is not None else []

    def _field(self, member: Expr, path: str) -> Node:
        if member.field_of is not None:
            return ("member", self._struct(member.field_of), member.op)
        return ("member?", path, member.op)

    def _struct(self, name: str) -> str:
        """One name for a struct's tag and the typedef names it is declared with."""
        return min(self.program.same_structs(name))


def _at_home(expr: Expr | None, path: str, function: str | None) -> tuple[Expr | None, str, str | None]:
    """The expression without casts, and the function its names belong to (a Scoped one's own)."""
    expr = strip(expr)
    if isinstance(expr, Scoped):
        path, function = expr.home
    return expr, path, function


def _definition(assignment: Assignment) -> Node:
    """The place a local's assignment fills (Definitions tracks it): the value it gives the
    local, which that assignment's reachers read, named by the local's name in its function."""
    return ("=", id(assignment), strip(assignment.target).op, (assignment.span.path, assignment.function))


def _identity(call: Call) -> tuple[Span, ...]:
    """A mapping call's identity: the calls it is made through, down to the mmap as written."""
    return tuple(c.span for c in call.via) if call.via else (call.span,)


def _substituted(sources: Iterable[int], step: Step) -> set[int]:
    if step is None:
        return set(sources)
    substitution, moved = step
    if substitution:
        sources = (substitution.get(s, s) for s in sources)
    return {_inside(s) for s in sources} if moved else set(sources)


def _inside(source: int) -> int:
    """A place inside the mapping a source is the start of (other sources stay as they are)."""
    return source + 1 if source >= FIRST_MAPPING and (source - FIRST_MAPPING) % 2 == 0 else source


def _moved(atoms: list[Atom]) -> list[Atom]:
    """The atoms of a pointer computed from these: a mapping's start becomes a place inside it."""
    return [_inside(atom) if isinstance(atom, int) else (atom[0], (atom[1][0] if atom[1] else None, True))
            for atom in atoms]


def _pointer_typed(expr: Expr) -> bool:
    """Whether an expression is cast to a pointer type, as written: `(char *)base`."""
    return expr.kind == CAST and expr.op.rstrip().endswith("*")


class Statements:
    """The statements a value flows through (assignments, returns, calls' arguments), by the
    names they read and the names they write: a statement reads only places its text names
    (a variable, a field, what a function it calls returns, what those point to), and writes
    only those too, or the parameters of the functions it calls.  Each file's own index
    (statement_names) is made with its facts; a question about a name looks it up in the files
    that spell it, or, for a local variable, in its own function's statements."""

    def __init__(self, program: Program) -> None:
        self._program = program
        # (path, name, readers or writers) -> the file's statements naming it, by function
        self._grouped: dict[tuple[str, str, bool], dict[str, list[Assignment | Return | Call]]] = {}

    def readers(self, name: str, scope: Scope = None) -> list[Assignment | Return | Call]:
        return self._named(name, True, scope)

    def writers(self, name: str, scope: Scope = None) -> list[Assignment | Return | Call]:
        return self._named(name, False, scope)

    def _named(self, name: str, readers: bool, scope: Scope) -> list[Assignment | Return | Call]:
        """The statements naming `name`; with a scope, a local variable's function, only
        those of that function (and of the lambdas written in it), and the calls of it when
        the name is one of its parameters: no other statement reads or writes that variable."""
        if scope is None:
            found = [_statement(facts, position) for facts, names in map(self._indexes.get, self._files_naming.get(name, ()))
                     for position in (names.readers if readers else names.writers).get(name, ())]
            return found + self._calls_by_parameter.get(name, [])
        path, function = scope
        found = list(self._by_function(path, name, readers).get(function, ()))
        fn = self._program.function_at(path, function)
        if fn is not None and name in fn.params:
            found += self._program.callers_of(path, function)
        return found

    def _by_function(self, path: str, name: str, readers: bool) -> dict[str, list[Assignment | Return | Call]]:
        """A file's statements naming `name`, by the function they are written in (a
        lambda's under its own name and each function it is written in)."""
        found = self._grouped.get((path, name, readers))
        if found is None:
            found = self._grouped[(path, name, readers)] = defaultdict(list)
            facts, names = self._indexes.get(path, (None, None))
            for position in (names.readers if readers else names.writers).get(name, ()) if names else ():
                statement = _statement(facts, position)
                function = statement.function
                while function is not None:
                    found[function].append(statement)
                    function = lambda_home(function)
        return found

    @cached_property
    def _indexes(self) -> dict[str, tuple[FileFacts, StatementNames]]:
        """Each file's index: as its facts came (header macros expanded make it anew)."""
        return {path: (facts, facts.names or statement_names(facts)) for path, facts in self._program.files.items()}

    @cached_property
    def _files_naming(self) -> dict[str, list[str]]:
        """The files whose statements read or write a name, by the name."""
        found: dict[str, list[str]] = defaultdict(list)
        for path, (_, names) in self._indexes.items():
            for name in names.readers.keys() | names.writers.keys():
                found[name].append(path)
        return found

    @cached_property
    def _calls_by_parameter(self) -> dict[str, list[Call]]:
        """The calls of the program's functions by the names of the parameters they pass."""
        found: dict[str, dict[int, Call]] = defaultdict(dict)
        for defined in self._program.defined_names.values():
            for path, fn in defined:
                for name in fn.params:
                    if name:
                        for call in self._program.callers_of(path, fn.qualified):
                            found[name][id(call)] = call
        return {name: list(calls.values()) for name, calls in found.items()}


def statement_names(facts: FileFacts, before: FileFacts | None = None) -> StatementNames:
    """The names each statement of a file reads and writes: an assignment reads its value's
    and writes its target's, a return reads its value's and writes its function's, a call
    reads and may write (`&x`, a pointer handed on) those of its arguments and its object.
    `v.back()` in a statement reads v: the object is no argument of the call it is in.
    `before`: an earlier version of the facts, with its index (header_macros.expanded makes
    some calls others and drops a macro's body): what it says of the statements both share
    is carried over, and only the others are read."""
    elements: dict[tuple[str, int], list[Expr]] = defaultdict(list)
    for call in facts.calls:
        if call.callee in CONTAINER_ELEMENTS and call.receiver is not None:
            elements[(call.span.path, call.span.line)].append(call.receiver)
    readers: dict[str, list[int]] = defaultdict(list)
    writers: dict[str, list[int]] = defaultdict(list)

    def index(position: int, exprs: Iterable[Expr | None], span: Span, *indexes: dict[str, list[int]]) -> None:
        names: set[str] = set()
        for expr in exprs:
            names |= _names_in(expr)
        if not CONTAINER_ELEMENTS.isdisjoint(names):
            for line in range(span.line, span.end_line + 1):
                for receiver in elements.get((span.path, line), ()):
                    names |= _names_in(receiver)
        for name in names:
            for found in indexes:
                found[name].append(position)

    shared = _carried(before, facts, readers, writers) if before is not None and before.names is not None else set()
    for position, a in enumerate(facts.assignments):
        if a.op in ("=", RANGE_ELEMENT) and position not in shared:
            index(position, [a.value], a.span, readers)
            index(position, [a.target], a.span, writers)
    first = len(facts.assignments)
    for position, r in enumerate(facts.returns, first):
        if position not in shared:
            index(position, [r.value], r.span, readers)
            writers[r.function.rsplit("::", 1)[-1]].append(position)
    first += len(facts.returns)
    for position, call in enumerate(facts.calls, first):
        if position not in shared:
            index(position, [*(call.args or ()), call.receiver], call.span, readers, writers)
    # a file made anew leaves its variables to Definitions, which asks only where it must
    return StatementNames({name: tuple(sorted(found)) for name, found in readers.items()},
                          {name: tuple(sorted(found)) for name, found in writers.items()},
                          _addressed(facts) if before is None else None)


def _addressed(facts: FileFacts) -> frozenset[tuple[str | None, str]]:
    """The variables whose address a statement of the file takes, with their functions."""
    exprs = [(a.function, e) for a in facts.assignments for e in (a.target, a.value) if e is not None]
    exprs += [(r.function, r.value) for r in facts.returns]
    exprs += [(call.function, arg) for call in facts.calls for arg in call.args or ()]
    return frozenset((function, name.op) for function, expr in exprs for node in expr.walk()
                     if node.kind == UNARY and node.op == "&" and node.children
                     and (name := strip(node.children[0])) is not None and name.kind == IDENTIFIER)


def _carried(before: FileFacts, facts: FileFacts, readers: dict[str, list[int]],
             writers: dict[str, list[int]]) -> set[int]:
    """Fill the indexes with what `before`'s says of the statements `facts` still has (the
    same objects), renumbered; their new numbers."""
    now = {id(statement): position for position, statement in enumerate(_statements(facts))}
    moved = [now.get(id(statement)) for statement in _statements(before)]
    for old, new in ((before.names.readers, readers), (before.names.writers, writers)):
        for name, positions in old.items():
            kept = [moved[p] for p in positions if moved[p] is not None]
            if kept:
                new[name].extend(kept)
    return {position for position in moved if position is not None}


def _statements(facts: FileFacts) -> Iterable[Assignment | Return | Call]:
    """A file's statements, numbered as StatementNames numbers them."""
    yield from facts.assignments
    yield from facts.returns
    yield from facts.calls


def _statement(facts: FileFacts, position: int) -> Assignment | Return | Call:
    """A file's statement by its number in StatementNames."""
    if position < len(facts.assignments):
        return facts.assignments[position]
    position -= len(facts.assignments)
    if position < len(facts.returns):
        return facts.returns[position]
    return facts.calls[position - len(facts.returns)]


def _names_in(expr: Expr | None) -> set[str]:
    """The names an expression spells: variables, fields, functions it calls."""
    names: set[str] = set()
    pending = [expr] if expr is not None else []
    while pending:
        node = pending.pop()
        if node.kind in NAMING:
            names.add(node.op)
        pending.extend(node.children)
    return names


class Definitions:
    """Which assignments of a local variable may reach a statement: those before it, back to
    one made on every path to it (outside any branch or loop that does not hold the
    statement too), or, if none is, the value it came in with (a parameter's argument); and
    those a loop around the statement makes later (its next iteration sees them).  qdbm's
    dpopen reads a scratch buffer into `map` (malloc, free), then maps the file into it: what
    it stores in the handle afterwards is the mapping.  A variable whose address is taken
    (`&x` handed to a function that writes it) is taken whole, every assignment at once.
    Worked out per file, for the files a question reaches."""

    SCAN = 64     # assignments looked at per statement; past it, the variable is taken whole

    def __init__(self, program: Program) -> None:
        self.program = program
        self._defs: dict[tuple, list[Assignment]] = defaultdict(list)
        self._region: dict[int, Span | None] = {}
        self._for: set[int] = set()       # assignments in a for loop (its increment runs after the body)
        self._loops: dict[tuple[str, str | None], list[Loop]] = defaultdict(list)
        self._tracked: set[int] = set()
        self._starts: dict[tuple, list[tuple[int, int]]] = {}
        self._read: set[str] = set()      # the files worked out

    def _file(self, path: str) -> None:
        if path in self._read or path not in self.program.files:
            return
        self._read.add(path)
        facts, program = self.program.files[path], self.program
        # the locals whose address is taken: as the worker that parsed the file found them,
        # unless the file was made anew since (header macros expanded)
        known = facts.names.addressed if facts.names is not None else None
        addressed = known if known is not None else _addressed(facts)
        for loop in facts.loops:
            self._loops[(facts.path, loop.function)].append(loop)
        kinds = {loop.id: loop.kind for loop in facts.loops}
        regions = sorted([*facts.branches, *(loop.span for loop in facts.loops)],
                         key=lambda r: (r.line, r.column, -r.end_line, -r.end_column))
        defs = sorted((a for a in facts.assignments if a.op in ("=", RANGE_ELEMENT) and a.function is not None),
                      key=lambda a: a.span)
        for a, region in zip(defs, _innermost(regions, [a.span for a in defs])):
            self._region[id(a)] = region
            if any(kinds.get(loop) == "for" for loop in a.loops):
                self._for.add(id(a))
        keys = set()
        for a in facts.assignments:
            if a.op in ("=", RANGE_ELEMENT) and id(a) in self._region:
                target = strip(a.target)
                key = program.key(target, a.span.path, a.function)
                if (target.kind == IDENTIFIER and key is not None and key[0] == "local"
                        and (a.function, target.op) not in addressed):
                    self._defs[key].append(a)
                    self._tracked.add(id(a))
                    keys.add(key)
        for key in keys:
            self._defs[key].sort(key=lambda a: a.span)
            self._starts[key] = [(a.span.line, a.span.column) for a in self._defs[key]]

    def tracks(self, assignment: Assignment) -> bool:
        """Whether an assignment is one of a local's this answers for."""
        self._file(assignment.span.path)
        return id(assignment) in self._tracked

    def reaching(self, key: tuple, use: Span) -> list[Assignment | None] | None:
        """The assignments of the local that may reach the statement (None in the list: the
        value it came in with); None when the variable is taken whole."""
        self._file(key[1])
        defs = self._defs.get(key)
        if defs is None:
            return None
        start = (use.line, use.column)
        first_after = bisect_left(self._starts[key], start)
        found: list[Assignment | None] = []
        covered = False
        for a in reversed(defs[max(0, first_after - self.SCAN):first_after]):
            if (a.span.end_line, a.span.end_column) >= start:
                continue        # holds the statement: the statement's own assignment
            found.append(a)
            region = self._region.get(id(a))
            if (region is None or region.contains(use)) and id(a) not in self._for:
                covered = True
                break
        else:
            if first_after > self.SCAN:
                return None
        if not covered:
            found.append(None)
        around = [loop for loop in self._loops.get((key[1], key[2]), ()) if loop.span.contains(use)]
        if around:
            ids = {loop.id for loop in around}
            end = max((loop.span.end_line, loop.span.end_column) for loop in around)
            later = [a for a in defs[first_after:first_after + self.SCAN]
                     if (a.span.line, a.span.column) <= end and ids & set(a.loops)]
            if len(defs) - first_after > self.SCAN and len(later) == self.SCAN:
                return None
            found += later
        return found


def _innermost(regions: list[Span], spans: list[Span]) -> list[Span | None]:
    """For each span (sorted), the smallest region holding it (regions sorted by start, the
    larger first where two start together; regions nest)."""
    found: list[Span | None] = []
    open_: list[Span] = []
    i = 0
    for span in spans:
        while i < len(regions) and (regions[i].line, regions[i].column) <= (span.line, span.column):
            while open_ and not open_[-1].contains(regions[i]):
                open_.pop()
            open_.append(regions[i])
            i += 1
        while open_ and not open_[-1].contains(span):
            open_.pop()
        found.append(open_[-1] if open_ else None)
    return found
