"""The fact model: what a frontend knows about one source file.

Both frontends (libclang and tree-sitter) produce exactly these objects, and
rules only ever read them (through :mod:`mmaplint.analyzer.program`), never a
syntax tree.  Everything here is a frozen dataclass of plain values so that a
worker process can pickle a file's facts back to the parent.

Conventions every frontend follows:

* Lines and columns are 1-based; a location inside a macro expansion is the
  expansion site (the line a user reads and where `// expect:` markers sit).
* Parentheses are dropped from expressions; casts are kept as ``cast`` nodes
  (rules look through them with :func:`strip`).
* A call is recorded for every call expression; its ``args`` are converted only
  when its callee is one of the names the enabled rules asked for
  (``FrontendOptions.argument_callees``), which keeps big files cheap, or for
  every call when a rule asked for EVERY_CALL (it follows values into the
  program's own functions).
* ``loops`` lists the ids of the loops enclosing a fact *within its function*,
  outermost first.  A for-loop's init clause is outside the loop; its
  condition, increment and body are inside it.  `do { ... } while (0)`, the
  wrapper of statement-like macros, runs once and is not a loop.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator


@dataclass(frozen=True, order=True)
class Span:
    """A source range: 1-based lines and columns; end is inclusive of the last character."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int

    def contains(self, other: "Span") -> bool:
        """Whether the other range lies within this one (the path is not compared)."""
        return ((self.line, self.column) <= (other.line, other.column)
                and (other.end_line, other.end_column) <= (self.end_line, self.end_column))


# Expression node kinds.  `op` carries the identifying string of each kind.
INT = "int"            # integer literal; value set
IDENTIFIER = "name"          # identifier (variable, enumerator or macro); op = identifier
CALL = "call"          # op = unqualified callee name; children = arguments
BINARY = "binary"      # op = "+", "|", "%", "<<", ...; children = (left, right)
UNARY = "unary"        # op = "-", "~", "!", "*" (deref), "&" (address-of), "++", "--"
SUBSCRIPT = "subscript"  # children = (base, index)
MEMBER = "member"      # op = field name; children = (object,); field_of = its struct, when known
CAST = "cast"          # children = (operand,); op = the type's spelling, or an accessor's name (CONTENTS)
COND = "cond"          # children = (condition, then, else)
STRING = "string"      # string literal
OTHER = "other"        # anything else (lambdas, ...); op = "sizeof" for sizeof, "new" for new, BRACES for a
                       # brace list, the operator ("=", "+=", ...) for an assignment used as a value: children = (target, value)
# OTHER's op for a brace list (`{p, n}`, `(struct span){p, n}`, `Span{p, n}`): children = the values
# of its items, in order (a designated item's value, a nested list as a brace list)
BRACES = "{}"
# Methods of the standard library's strings, paths, vectors and spans (CONTENTS_CLASSES) that
# hand back what the object holds, as another type: a call of one without arguments on such an
# object (`path.c_str()`, `buf.data()`) is the object seen through a conversion, CAST with the
# method's name for op, so that the file a path names and the memory a span views flow through
# it as through a cast.  A class of the program's own with a `data()` is called, its body read.
CONTENTS = frozenset({"c_str", "data", "string", "native"})
CONTENTS_CLASSES = frozenset({"basic_string", "string", "basic_string_view", "string_view", "path", "vector",
                              "array", "span"})


# An expression's text is its source spelling, up to TEXT_LIMIT characters; a longer one keeps
# its head and its tail around ELISION.  Messages show it, and rules read only its ends (a
# `->field`, a string's prefix, a brace): a text per node, each a copy of its subtree's
# source, would make the facts of nested calls or operators quadratic in the file's size.
TEXT_LIMIT = 200
ELISION = " … "


def shortened(text: str) -> str:
    """A text as an expression keeps it."""
    if len(text) <= TEXT_LIMIT:
        return text
    half = TEXT_LIMIT // 2
    return text[:half] + ELISION + text[-half:]


def spelled(source: bytes, start: int, end: int) -> str:
    """The text of source[start:end] (bytes) as an expression keeps it, without decoding the
    middle of a long range."""
    if end - start <= TEXT_LIMIT:
        return source[start:end].decode("utf-8", "replace")
    half = TEXT_LIMIT // 2
    return (source[start:start + half].decode("utf-8", "replace") + ELISION
            + source[end - half:end].decode("utf-8", "replace"))


@dataclass(frozen=True)
class Expr:
    """A frontend-neutral expression tree; `text` as `spelled` gives it."""

    kind: str
    text: str
    op: str = ""
    children: tuple["Expr", ...] = ()
    value: int | None = None
    # MEMBER: the struct or class the field belongs to, when the frontend knows it (clang: the
    # declaring struct; tree-sitter: the declared type of the object), so that `t->slots` of a
    # table and `h->slots` of a heap object are two fields, not one name
    field_of: str | None = None

    def walk(self) -> Iterator["Expr"]:
        yield self
        for child in self.children:
            yield from child.walk()

    def names(self) -> set[str]:
        """Every identifier the expression mentions."""
        return {node.op for node in self.walk() if node.kind == IDENTIFIER}


@dataclass(frozen=True)
class Scoped(Expr):
    """A variable (or a field access) of another function, carried into a caller by a summary
    (summaries.py): `fd` of a helper that opens and syncs its own descriptor, seen at the
    call of the helper.  Its identity is taken in its own function, `home` (path, qualified
    name), never in the function whose call it now appears in."""

    home: tuple[str, str | None] = ("", None)


def strip(expr: Expr | None) -> Expr | None:
    """The expression with casts (and the unary + no-op) looked through."""
    while expr is not None and (expr.kind == CAST or (expr.kind == UNARY and expr.op == "+")):
        expr = expr.children[0] if expr.children else None
    return expr


@dataclass(frozen=True)
class Function:
    """A function or C++ method definition (a body, not a declaration)."""

    name: str                 # unqualified: "flush_page"
    qualified: str            # "Mapping::flush_page" in C++, the name in C; unique within a file
    span: Span
    locals: frozenset[str] = frozenset()   # parameters and local variable names
    params: tuple[str, ...] = ()           # the parameters in order ("" for an unnamed one)
    forwards: bool = False    # a wrapper: its body is one `return g(...);` or `g(...);` (per #if branch)
    # a header's function-like macro (the tolerant frontend: its body's facts sit at the
    # definition; header_macros.py makes a one-call body's invocations that call)
    macro: bool = False


@dataclass(frozen=True)
class Loop:
    id: int                   # unique within the file
    kind: str                 # "for", "while", "do", "range-for"
    span: Span                # the loop statement (its keyword starts it)
    function: str | None      # qualified name of the enclosing function
    condition: Expr | None = None   # what decides another iteration; None for range-for and `for (;;)`
    # When the body ends by leaving the loop (its last statement a return, a break out of it, a
    # goto): it goes round again only at a `continue`, under these conditions, one per continue
    # (the innermost if holding it in its then-branch; OTHER for one under no if or in an else).
    # None: the body runs to its end and the loop goes round as its condition says.
    repeats_when: tuple[Expr, ...] | None = None
    continued_at: tuple[Span, ...] = ()     # where each of those continues is written


@dataclass(frozen=True)
class Call:
    callee: str               # unqualified name; for calls through a field, the field name
    span: Span                # the call expression (expansion site for macros)
    function: str | None      # qualified name of the enclosing function
    loops: tuple[int, ...] = ()
    args: tuple[Expr, ...] | None = None   # None when arguments were not requested
    result: Expr | None = None             # lvalue the result is assigned/initialised to
    macro: str | None = None               # function-like macro the call was expanded from
    via_field: bool = False                # called through a struct field / pointer (ops->queue())
    target: str | None = None              # qualified name of the callee, when the frontend resolved it
    receiver: Expr | None = None           # the object of `obj.f()` / `obj->f()`
    # via_field: the struct or class declaring the field, when known; a frontend that knows only
    # the struct of an object the field is reached through writes the path ("tokenizer.pModule":
    # the type of the pModule field of struct tokenizer), for the program's declarations to end
    field_of: str | None = None
    # Filled by summaries.py, never by a frontend: for a call of the C library made inside a
    # function of the program, as seen where that function is called.  The calls from here
    # down to the operation: the call written at this place first, the operation as written
    # last.  Empty for a call written as such.
    via: tuple["Call", ...] = ()

    def arg(self, index: int) -> Expr | None:
        """The index-th argument, when arguments were recorded and there are enough."""
        return self.args[index] if self.args is not None and len(self.args) > index else None

    @property
    def operation(self) -> "Call":
        """The call as written in the source: itself, or the end of the calls it is made through."""
        return self.via[-1] if self.via else self


# In FrontendOptions.argument_callees: record the arguments of every call.
EVERY_CALL = "*"


# Assignment.op of a range-for's variable, bound to each element of the range in turn.
RANGE_ELEMENT = ":"
# Assignment.ops that step a counter or a cursor by an amount (`i++`, `p += n`).
STEP_OPS = frozenset({"++", "--", "+=", "-="})


@dataclass(frozen=True)
class Assignment:
    """`target op value`: plain and compound assignments, initialised declarations
    (op "="), ++/-- (op "++"/"--", value None), a range-for's variable
    (`for (auto x : v)`: target x, op RANGE_ELEMENT, value v, inside the loop), and, in a
    function, each field a brace list sets (`struct region r = {.base = p}`, `r =
    (struct region){p, n}`, `Segment s{p, n}`: target `r.base`, value p, at the item)."""

    target: Expr
    op: str
    value: Expr | None
    span: Span
    function: str | None
    loops: tuple[int, ...] = ()


@dataclass(frozen=True)
class Return:
    """`return value;`: what a function hands its caller (a bare `return;` has none)."""

    value: Expr
    span: Span
    function: str


@dataclass(frozen=True)
class Guard:
    """Code that runs only when a condition holds: the then-branch of an `if`, or (tree-sitter,
    which reads every preprocessor group) an `#if`/`#ifdef` group.  Else-branches are not
    guards: their condition is the negation, which no rule needs.  A condition whose text
    cannot batch or switch on a trace (frequency.may_matter) is kept as OTHER, unbuilt."""

    condition: Expr
    span: Span                # the guarded code
    function: str | None
    preprocessor: bool = False
    leaves: bool = False      # ends in a return, a goto, a break out of its loop or exit(): runs once per loop run
    nested: bool = False      # the if sits inside another if (or else) or a switch of its function
    # the condition declares the object it tests (`if (const auto *put = std::get_if<Put>(&cmd))`):
    # the branch works on what was found, one of the ways its function does its work
    declares: bool = False


@dataclass(frozen=True)
class FieldBinding:
    """A function stored into a struct field: by an initialiser (`.queue = mmap_queue`), or,
    from a frontend that knows the field's struct (clang), by an assignment (`ops->queue =
    mmap_queue`, table None)."""

    field: str
    function: str
    span: Span
    table: str | None = None  # the file-scope variable the initialiser is of (`ops` of `T ops = {...}`)
    struct: str | None = None  # the struct declaring the field, when known (None: the table's type is not)


@dataclass(frozen=True)
class TableEntry:
    """A function at a position of a file-scope table initialised without designators
    (`T kv_methods = {1, kv_close, kv_read};`), from a frontend that does not know the
    struct's fields (tree-sitter): the struct's declaration (StructFields, maybe from
    another file) names the field at that position."""

    table: str                # the variable
    struct: str               # its type's name: a struct tag or a typedef name
    position: int             # 0-based, counting every entry of the list
    function: str
    span: Span


@dataclass(frozen=True)
class StructFields:
    """A struct declaration's fields in order ("" for an unnamed one), under its tag and the
    typedef names it is declared with (tree-sitter; clang names a table's fields itself).
    Only the fields up to the first preprocessor group or nested anonymous member:
    positions after those depend on the configuration."""

    names: tuple[str, ...]
    fields: tuple[str, ...]
    types: tuple[str, ...] = ()   # per field, the struct or typedef name it is declared with ("": none)


@dataclass(frozen=True)
class ClassBases:
    """A C++ class (or struct) defined in the file, and the classes it derives from: a call of a
    virtual method on a base may run a derived class's override.  Every class with a body is
    recorded, with no bases too.  A class is named with the classes it is nested in, without
    namespaces (`CacheDB::Cursor`: each database's Cursor is a class of its own); its bases as
    the code names them, qualifiers kept (the program resolves them, Iteration.class_named)."""

    name: str
    bases: tuple[str, ...]


@dataclass(frozen=True)
class Template:
    """A C++ class or function template defined in the file, and its parameters' names in
    order: a member or local declared with one (`BASEDB db_;` in `template <class BASEDB, ...>
    class PlantDB`, `PROTODB db;` in `template <class PROTODB> int64_t procorder(...)`) holds an
    object of the class a use of the template gives in that place."""

    name: str
    parameters: tuple[str, ...]     # "" for a parameter that is not a type's


@dataclass(frozen=True)
class TemplateUse:
    """A C++ template named with its arguments: a class template by an alias (`typedef
    PlantDB<CacheDB, TYPEGRASS> GrassDB;`, `using GrassDB = ...`) or as the class of an object
    the file makes (`Layered<Disk> db;`, `new Layered<Disk>`: made), a function template by a
    call (`procorder<kc::ProtoTreeDB>(...)`)."""

    template: str
    arguments: tuple[str, ...]      # each argument's class or typedef name ("" for any other argument)
    alias: str | None = None
    made: bool = False


@dataclass(frozen=True)
class StatementNames:
    """A file's statements by the names their text spells (provenance.py asks which
    statements read or write a name): the statements are the file's assignments, then its
    returns, then its calls, numbered in that order.  Worked out from the facts where they are
    made, in the worker that parsed the file, and kept with them in the facts cache, so that a
    question about one name does not walk every expression of the program."""

    readers: dict[str, tuple[int, ...]]
    writers: dict[str, tuple[int, ...]]
    # (function, name) of each variable whose address a statement takes (`&x`, casts looked
    # through): provenance.Definitions takes such a variable whole.  None: not worked out
    addressed: frozenset[tuple[str | None, str]] | None = None


@dataclass(frozen=True)
class FileFacts:
    path: str
    frontend: str             # "clang" or "tree-sitter"
    reason: str               # why this frontend ran, for -v
    language: str             # "c" or "c++"
    functions: tuple[Function, ...] = ()
    loops: tuple[Loop, ...] = ()
    calls: tuple[Call, ...] = ()
    assignments: tuple[Assignment, ...] = ()
    returns: tuple[Return, ...] = ()
    field_bindings: tuple[FieldBinding, ...] = ()
    table_entries: tuple[TableEntry, ...] = ()
    struct_fields: tuple[StructFields, ...] = ()
    # (typedef name, the struct or typedef name it stands for, through pointers and arrays):
    # `typedef MDB_ID2 *MDB_ID2L;` makes `dl[x].mptr` of a MDB_ID2L dl a field of MDB_ID2
    # (tree-sitter; clang resolves typedefs itself)
    type_aliases: tuple[tuple[str, str], ...] = ()
    classes: tuple[ClassBases, ...] = ()
    # C++: the classes the file makes objects of (by value, `new`), qualifiers kept, and a bare
    # name made inside a class that nests a class of that name in this file named as that one
    constructs: tuple[str, ...] = ()
    templates: tuple[Template, ...] = ()
    template_uses: tuple[TemplateUse, ...] = ()
    guards: tuple[Guard, ...] = ()
    # the then-branches with a call inside whose condition reads a parameter of their function
    # and that no other question keeps (frequency.parameter_guards): what a caller passes may
    # decide them
    parameter_guards: tuple[Guard, ...] = ()
    # Code that runs on some paths through its function only: the then- and else-branches of
    # an `if`, each case of a `switch` (from its label to the next), the arms of `?:`, the
    # right side of `&&` and `||` (loops are the loops): an assignment there does not replace,
    # on every path, what the variable held before it (provenance.py)
    branches: tuple[Span, ...] = ()
    # `return;` statements (Return is a value handed back): ways out of a function that returns none
    bare_returns: tuple[Span, ...] = ()
    # (then, else) of each `if` with an else and each `?:`: code in one never runs after code
    # in the other, though the else follows the then in the text
    alternatives: tuple[tuple[Span, Span], ...] = ()
    # (line, comment text) for each comment line that may hold a suppression directive
    # (suppressions.may_hold_directive): what the run reads of comments
    comments: tuple[tuple[int, str], ...] = ()
    lines: int = 0
    includes: tuple[str, ...] = ()   # the other files read to make these facts (clang: headers)
    # derived from the rest (provenance.statement_names); None: worked out when asked
    names: StatementNames | None = field(default=None, compare=False)


@dataclass
class FrontendOptions:
    """What the driver tells a frontend about one file."""

    argument_callees: frozenset[str] = frozenset()
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    compile_args: tuple[str, ...] | None = None   # from compile_commands.json, when there is an entry
    language: str = "c"                           # "c" or "c++"


class FrontendError(Exception):
    """A file the frontend cannot turn into facts; the message is one line for the user."""


__all__ = [
    "Span", "Expr", "TEXT_LIMIT", "shortened", "spelled", "Scoped", "Function", "EVERY_CALL", "Loop", "Call", "Assignment", "FieldBinding", "TableEntry",
    "StructFields", "ClassBases", "Template", "TemplateUse", "StatementNames", "FileFacts",
    "FrontendOptions", "FrontendError", "strip", "RANGE_ELEMENT", "STEP_OPS", "CONTENTS", "CONTENTS_CLASSES",
    "INT", "IDENTIFIER", "CALL", "BINARY", "UNARY", "SUBSCRIPT", "MEMBER", "CAST", "COND", "STRING", "OTHER",
]
