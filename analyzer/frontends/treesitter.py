"""The tolerant frontend: facts from tree-sitter syntax trees.

Needs no compilation database or headers and survives syntax errors (facts
come from whatever parses).  For speed, the nodes facts come from are found
by one compiled query per tree (run in C), and enclosing functions and loops
are looked up by byte ranges rather than by walking parents."""
from __future__ import annotations

import gc
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, replace
from functools import cached_property
from itertools import accumulate, count
from operator import itemgetter
from typing import Iterator

from tree_sitter import Node

from ..facts import (BINARY, CALL, EVERY_CALL, ClassBases, Template, TemplateUse, IDENTIFIER, INT, MEMBER, OTHER, Assignment, Call, Expr, FieldBinding, FileFacts,
                     FrontendError, Guard, FrontendOptions, Function, Loop, Return, Span, StructFields, TableEntry,
                     shortened)
from ..frequency import (CLOCKS, PROCESS_ENDS, STREAM_CLASSES, kept_without_call, may_bound, may_matter, may_time,
                         parameter_guards, relevant_guards, test_build, trace_switch)
from ..discovery import HEADERS, source_suffix
from ..suppressions import may_hold_directive
from .ts_expr import Bindings, Converter, MacroConverter, called_field, unwrap
from .ts_grammar import Grammar, grammar, parse as parse_text
from .ts_headers import Headers
from .ts_macros import Macro, Macros
from .ts_preproc import Group, groups
from .ts_names import (Nest, declared_name, definition_name, function_declarator,
                       parameter_names, scope_name, text)
from .ts_recover import recover
from .ts_sites import LOOP_NODES, AssignSite, ConstructSite, Sites, continues
from .ts_types import STANDARD_STREAMS, DeclaredTypes, qualified_type_name, template_arguments, type_name

_MAX_MACRO_DEPTH = 8


def parse(path: str, source: bytes, options: FrontendOptions) -> FileFacts:
    # Reading a file allocates many small objects that all survive; cyclic
    # garbage collection passes over them would cost about a third of the time.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _parse(path, source, options)
    except RecursionError:
        # Expressions are bounded in depth, but nested macro arguments multiply it.
        raise FrontendError(f"{path}: expressions nested too deeply for tree-sitter") from None
    finally:
        if collecting:
            gc.enable()


def with_macros(facts: FileFacts, source: bytes, options: FrontendOptions) -> FileFacts:
    """A header's facts from the clang frontend, with the header's function-like macros as
    this frontend reads them (_FileReader._macro_functions): clang's preprocessor expands
    them in the files clang parses, but a file only this frontend can parse (a generated
    header it includes is missing) sees calls of the macros' names."""
    try:
        mine = parse(facts.path, source, options)
    except FrontendError:
        return facts
    defined = {fn.name for fn in facts.functions}
    macros = {fn.qualified: fn for fn in mine.functions if fn.macro and fn.name not in defined}
    if not macros:
        return facts
    offset = max((loop.id for loop in facts.loops), default=-1) + 1     # loop ids are the file's

    def moved(loops: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(loop + offset for loop in loops)
    definitions = {fn.span for fn in macros.values()}
    return replace(
        facts, functions=facts.functions + tuple(macros.values()),
        loops=facts.loops + tuple(replace(loop, id=loop.id + offset) for loop in mine.loops if loop.function in macros),
        calls=facts.calls + tuple(replace(call, loops=moved(call.loops)) for call in mine.calls if call.function in macros),
        assignments=facts.assignments + tuple(replace(a, loops=moved(a.loops)) for a in mine.assignments
                                              if a.function in macros),
        guards=facts.guards + tuple(guard for guard in mine.guards if guard.function in macros),
        branches=facts.branches + tuple(branch for branch in mine.branches if branch in definitions))


# the characters bytes that are not UTF-8 decode to with "surrogateescape", each to one "?"
_NOT_UTF8 = {code: "?" for code in range(0xDC80, 0xDD00)}


def _utf8(source: bytes) -> bytes:
    """The source with each byte that is not UTF-8 replaced by "?", one for one, for the parser
    and the recovery's parses of pieces (every offset holds, and the facts' texts come from the
    source as it is): the query's #match? predicates decode the text they test, and fail (a
    SystemError, or a segmentation fault) on such bytes."""
    try:
        source.decode("utf-8")
    except UnicodeDecodeError:
        return source.decode("utf-8", "surrogateescape").translate(_NOT_UTF8).encode("utf-8")
    return source


def _parse(path: str, source: bytes, options: FrontendOptions) -> FileFacts:
    lang = grammar(options.language)
    parsed = _utf8(source)
    tree = parse_text(parsed, options.language)
    if tree is None:
        raise FrontendError(f"{path}: tree-sitter could not parse the file")
    captures = lang.captures(lang.facts, tree.root_node)
    lines = _Lines(source)
    if tree.root_node.has_error:
        captures = recover(lang, parsed, tree, captures, lines.starts)
    captures, conditional = _without_disabled_code(source, captures, options.language)
    headers = Headers(lang, path, tree.root_node, options.include_dirs)
    facts = _FileReader(path, source, options, lang, captures, lines, conditional, headers)
    reason = "tree-sitter: syntax errors skipped" if tree.root_node.has_error else "tree-sitter"
    return facts.file_facts(reason)


def _without_disabled_code(source: bytes, captures: dict[str, list[Node]],
                           language: str) -> tuple[dict[str, list[Node]], list[Group]]:
    """The captures outside preprocessor groups no Linux compiler sees (`#if 0`, Windows-only
    code, ...), which clang never sees either; and the other groups, each a guard."""
    disabled, conditional = groups(source, captures.pop("conditional", []),
                                   captures.pop("directive", []) + captures.get("macro", []), language)
    if disabled:
        off = Nest([(group.start, group.end) for group in disabled])     # groups nest like the directives
        captures = {kind: [node for node in nodes if off.innermost(node.start_byte) < 0]
                    for kind, nodes in captures.items()}
        conditional = [group for group in conditional if off.innermost(group.start) < 0]
    return captures, conditional


# A branch ending in one of these leaves the loop it is in (a break, unless it leaves a switch).
_LEAVING = {"return_statement", "goto_statement"}
_LOOPS = {"for_statement", "while_statement", "do_statement", "for_range_loop"}


def _last_statement(body: Node) -> Node:
    """A branch's last statement (the branch itself if it is not a block, or an empty block)."""
    if body.type == "compound_statement":
        statements = [child for child in body.named_children if child.type != "comment"]
        return statements[-1] if statements else body
    return body


# Statements whose parts run only on some paths: an if inside one runs only when they let it.
_BRANCHING = frozenset({"if_statement", "else_clause", "switch_statement", "case_statement"})
_FUNCTION_BOUNDS = frozenset({"function_definition", "lambda_expression"})


def _nested(statement: Node) -> bool:
    """Whether an if sits inside another if (its then or else branch) or a switch of its function."""
    node = statement.parent
    while node is not None and node.type not in _FUNCTION_BOUNDS:
        if node.type in _BRANCHING:
            return True
        node = node.parent
    return False


def _function_named(source: bytes, value: Node) -> str | None:
    """The function an initialiser's value names, when it is a name or a name's address: `f`,
    `&f`, or `&C::f` of a static member function (by its own name, as the program's
    definitions go)."""
    if value.type == "pointer_expression" and value.child_by_field_name("operator") is not None \
            and text(source, value.child_by_field_name("operator")) == "&":
        value = value.child_by_field_name("argument")
    if value is not None and value.type == "qualified_identifier":
        value = value.child_by_field_name("name")
        while value is not None and value.type == "qualified_identifier":
            value = value.child_by_field_name("name")
    return text(source, value) if value is not None and value.type == "identifier" else None


def _element_list(item: Node) -> Node | None:
    """An array initialiser's element, when it is a brace list: `{1, f}`, also given by index
    (`[ST_DATA] = {"data", st_data}`, an array of handlers indexed by an enum): positional for
    the element's struct either way."""
    if item.type == "initializer_pair" and item.children_by_field_name("designator") and all(
            d.type == "subscript_designator" for d in item.children_by_field_name("designator")):
        item = item.child_by_field_name("value")
    return item if item is not None and item.type == "initializer_list" else None


def _declares(condition: Node) -> bool:
    """Whether an if's condition declares the object it tests (`if (auto *p = find(k))`)."""
    value = condition.child_by_field_name("value") if condition.type == "condition_clause" else None
    return value is not None and value.type == "declaration"


def _leaves(body: Node) -> bool:
    """Whether a branch ends in a return, a goto, a break out of a loop, or an exit() (mptest's
    `if (waited > 30000) { errorMessage(...); exit(1); }`: its loop never comes back)."""
    last = _last_statement(body)
    if last.type == "compound_statement":
        return False
    if last.type == "break_statement":
        return _breaks_loop(body)
    if last.type == "expression_statement" and last.named_children:
        call = last.named_children[0]
        callee = call.child_by_field_name("function") if call.type == "call_expression" else None
        return callee is not None and callee.type == "identifier" and callee.text.decode() in PROCESS_ENDS
    return last.type in _LEAVING


_BRANCHES = {"preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef"}
_BRANCH_HEADS = {"condition", "name", "alternative"}


def _forwards(body: Node | None) -> bool:
    """Whether a function body only hands its work to another function: one `return g(...);` or
    `g(...);`, or one such statement in each branch of the `#if` around it (gdbm's
    gdbm_file_write calls _gdbm_mapped_write, or write() without mmap)."""
    if body is None:
        return False
    statements = [child for child in body.named_children if child.type != "comment"]
    if body.type in _BRANCHES:
        heads = {body.child_by_field_name(field) for field in _BRANCH_HEADS} - {None}
        statements = [child for child in statements if child not in heads]
        alternative = body.child_by_field_name("alternative")
        if alternative is not None and not _forwards(alternative):
            return False
    if len(statements) != 1:
        return False
    statement = statements[0]
    if statement.type in _BRANCHES:
        return _forwards(statement)
    if statement.type not in ("return_statement", "expression_statement") or statement.named_child_count != 1:
        return False
    value = statement.named_children[0]
    while value.type in ("parenthesized_expression", "cast_expression"):
        value = value.child_by_field_name("value") or value.named_children[-1]
    return value.type == "call_expression"


def _breaks_loop(node: Node) -> bool:
    """Whether a break here leaves a loop: the nearest enclosing loop or switch is a loop."""
    node = node.parent
    while node is not None:
        if node.type in _LOOPS:
            return True
        if node.type == "switch_statement" or node.type == "function_definition":
            return False
        node = node.parent
    return False


def _unnamed(declarator: Node | None) -> bool:
    """Whether a parameter's declarator names nothing: none, or `[1]` of `argv[1]` read as a type."""
    return declarator is None or declarator.type.startswith("abstract_")


def _holder_name(source: bytes, holder: Node) -> str:
    """The name of what a lambda is given to: the variable declared (`auto persist = [&]...`),
    or the variable or field assigned (`cb = [&]...`, `b.on_event = [&]...`: the field's name)."""
    if holder.type == "assignment_expression":
        left = holder.child_by_field_name("left")
        name = left.child_by_field_name("field") if left.type == "field_expression" else left
        return text(source, name)
    return text(source, holder.child_by_field_name("declarator"))


def _has_arguments(call: Node) -> bool:
    arguments = call.child_by_field_name("arguments")
    return arguments is not None and arguments.named_child_count > 0


def _statement_end(source: bytes, loop: Node) -> int:
    """Where clang ends a loop: before its final `;` (`while (x) step();`,
    `do ... while (x);`) unless that is the whole body (`while (x) ;`)."""
    end = loop.end_byte
    if source[end - 1:end] != b";":
        return end
    body = loop.child_by_field_name("body")
    empty = loop.type != "do_statement" and body is not None and body.named_child_count == 0 \
        and body.type == "expression_statement"
    return end if empty else end - 1


class _Lines:
    """Byte offset to 1-based line and column."""

    def __init__(self, source: bytes) -> None:
        pieces = source.split(b"\n")
        self.starts = list(accumulate((len(piece) + 1 for piece in pieces[:-1]), initial=0))
        self.count = len(pieces) - (1 if pieces[-1] == b"" else 0)

    def span(self, path: str, start: int, end: int) -> Span:
        last = max(end - 1, start)      # Span ends are inclusive
        starts = self.starts
        line = bisect_right(starts, start)
        end_line = bisect_right(starts, last)
        return Span(path, line, start - starts[line - 1] + 1,
                    end_line, last - starts[end_line - 1] + 1)


@dataclass(eq=False)
class _LoopRecord:
    """A loop before ids are given (macro expansions add loops out of order)."""

    key: tuple[int, int]
    kind: str
    span: Span
    function: str | None
    condition: Expr | None = None
    repeats_when: tuple[Expr, ...] | None = None
    continued_at: tuple[Span, ...] = ()
    id: int = -1


@dataclass(frozen=True)
class _Anchor:
    """Where facts from a macro body are placed: at the outermost invocation."""

    function: str | None
    loops: tuple[_LoopRecord, ...]
    span: Span
    pos: int


@dataclass(frozen=True)
class _Frame:
    """One tree whose sites are being turned into facts: the file itself, or a
    macro body expanded at an anchor."""

    sites: Sites
    conv: Converter
    loops: list[_LoopRecord]              # one per sites.loops
    anchor: _Anchor | None = None
    macro: str | None = None
    active: frozenset[str] = frozenset()  # macros being expanded (never re-expanded, as in cpp)
    top_call: tuple[int, int] | None = None
    top_result: Expr | None = None


_Context = tuple[str | None, tuple[_LoopRecord, ...]]             # function, enclosing loops
_Place = tuple[str | None, tuple[_LoopRecord, ...], Span, tuple[int, int]]   # ..., span, sort key


class _FileReader:
    """Turns one file's captures into its facts."""

    def __init__(self, path: str, source: bytes, options: FrontendOptions, lang: Grammar,
                 captures: dict[str, list[Node]], lines: _Lines, conditional: list[Group] = (),
                 headers: Headers | None = None) -> None:
        self.path, self.source, self.options, self.captures = path, source, options, captures
        self.headers = headers
        self.conditional = conditional
        self.lines = lines
        self.lang = lang
        # the definitions of a debug, trace or test build give way to the ordinary build's
        tracing = [group for group in conditional if trace_switch(group.condition) or test_build(group.condition)]
        self.macros = Macros(lang, source, captures.get("macro", []),
                             lambda node: any(g.start <= node.start_byte < g.end for g in tracing))
        self.seq = count()
        self.loop_records: list[_LoopRecord] = []
        self.pending_calls: list[tuple] = []
        # the calls written in the global scope (`::write(fd, p, n)`): the free function of
        # that name (its Call.target, as clang gives it), never a method of a class
        self.global_calls: set[tuple] = set()
        self.pending_assignments: list[tuple] = []
        self.macro_guards: list[Guard] = []
        self.macro_branches: list[Span] = []    # FileFacts.branches of _macro_functions
        self._contexts: dict[tuple[int, int], _Context] = {}
        # definitions, and lambdas a variable holds (`auto persist = [&](size_t off) {...};`):
        # a call of the variable runs the lambda's body, a function of its own
        nodes = sorted(captures.get("function", []) + captures.get("lambda", []), key=lambda node: node.start_byte)
        self.function_nodes = nodes
        self.function_nest = Nest([(node.start_byte, node.end_byte) for node in nodes])
        scopes = [(node, node.child_by_field_name("name")) for node in captures.get("scope", ())]
        self.qualified = self._qualified_names(nodes, scopes)
        self._held_lambdas = {node.start_byte: qualified for node, (qualified, _) in zip(nodes, self.qualified)
                              if node.type == "lambda_expression"}
        self._params: dict[int, frozenset[str]] = {}
        self._variables: dict[int, frozenset[str]] = {}     # per function: its parameters and locals
        self._constructed: list[Node] = []      # the classes of the objects made with arguments
        self.types = DeclaredTypes(source, nodes, self.function_nest, self.qualified,
                                   captures.get("local", []),
                                   captures.get("struct", []) + [node for node in captures.get("scope", ())
                                                                  if node.type == "class_specifier"], headers)
        # the classes of this file: `Record()` makes a value, not a call (clang: a construction
        # without arguments, which it records as none)
        self._class_scopes = [(node, name) for node, name in scopes
                              if name is not None and node.type != "namespace_definition"]
        self.classes = {scope_name(source, name) for _, name in self._class_scopes}
        # each one's name with the classes it is nested in (ClassBases)
        nest = Nest([(node.start_byte, node.end_byte) for node, _ in self._class_scopes])
        self._class_paths = ["::".join(scope_name(source, self._class_scopes[i][1]) for i in nest.chain(node.start_byte))
                             for node, _ in self._class_scopes]

    def span(self, node: Node) -> Span:
        return self.lines.span(self.path, node.start_byte, node.end_byte)

    def function_at(self, pos: int) -> str | None:
        index = self.function_nest.innermost(pos)
        return self.qualified[index][0] if index >= 0 else None

    def _qualified_names(self, nodes: list[Node],
                         scopes: list[tuple[Node, Node | None]]) -> list[tuple[str, str]]:
        """(qualified, unqualified) name per function definition; a lambda a variable holds is
        named by the variable, within the function it is written in (`main.persist`, both
        names: no call elsewhere names it)."""
        nest = Nest([(node.start_byte, node.end_byte) for node, _ in scopes])
        names = []
        for index, node in enumerate(nodes):
            if node.type == "lambda_expression":
                variable = _holder_name(self.source, node.parent)
                within = self.function_nest.chain(node.start_byte)[:-1]
                qualified = f"{names[within[-1]][0]}.{variable}" if within else variable
                names.append((qualified, qualified))
                continue
            prefix = [scope_name(self.source, scopes[i][1]) for i in nest.chain(node.start_byte)
                      if scopes[i][1] is not None]
            parts = definition_name(self.source, function_declarator(node))
            names.append(("::".join(prefix + parts), parts[-1]))
        return names

    # -- facts from trees -------------------------------------------------

    def _frame_loops(self, sites: Sites, anchor: _Anchor | None, conv: Converter | None = None) -> list[_LoopRecord]:
        records = []
        for node, kind in sites.loops:
            if anchor is None:
                condition = node.child_by_field_name("condition") if kind != "range-for" else None
                # an algorithm's lambda is called per element, whatever its body ends with
                going_round = continues(node) if conv is not None and node.type in LOOP_NODES else None
                record = _LoopRecord((node.start_byte, next(self.seq)), kind,
                                     self.lines.span(self.path, node.start_byte,
                                                     _statement_end(self.source, node)),
                                     self.function_at(node.start_byte),
                                     conv.expr(condition) if condition is not None and conv else None,
                                     None if going_round is None else tuple(
                                         conv.expr(c) if c is not None else Expr(OTHER, "continue")
                                         for c, _ in going_round),
                                     tuple(self.lines.span(self.path, at.start_byte, at.end_byte)
                                           for _, at in going_round or ()))
            else:
                record = _LoopRecord((anchor.pos, next(self.seq)), kind, anchor.span, anchor.function)
            records.append(record)
        self.loop_records.extend(records)
        return records

    def _place(self, frame: _Frame, pos: int, end: int) -> _Place:
        """Function, enclosing loops, span and sort key of a fact from these bytes."""
        anchor = frame.anchor
        if anchor is None:
            function, loops = self._file_context(frame, pos)
            return function, loops, self.lines.span(self.path, pos, end), (pos, next(self.seq))
        inner = tuple(frame.loops[i] for i in frame.sites.loop_nest.chain(pos)) if frame.loops else ()
        return anchor.function, anchor.loops + inner, anchor.span, (anchor.pos, next(self.seq))

    def _file_context(self, frame: _Frame, pos: int) -> _Context:
        """Memoised by innermost function and loop: most facts share a handful."""
        key = (self.function_nest.innermost(pos), frame.sites.loop_nest.innermost(pos))
        context = self._contexts.get(key)
        if context is None:
            function = self.qualified[key[0]][0] if key[0] >= 0 else None
            loops = tuple(loop for loop in (frame.loops[i] for i in frame.sites.loop_nest.chain(pos))
                          if loop.function == function)
            context = self._contexts[key] = (function, loops)
        return context

    def emit(self, frame: _Frame) -> None:
        wanted = self.options.argument_callees
        for node in frame.sites.calls:
            fn = node.child_by_field_name("function")
            if fn is None:
                continue
            callee, via_field = frame.conv.callee(fn)
            if callee in self.classes and not via_field and not _has_arguments(node):
                continue    # `Record()`: a value made without arguments, as clang records none
            owner = self._member_called(fn, callee, frame)
            byte_range = (node.start_byte, node.end_byte)
            if byte_range == frame.top_call:
                result = frame.top_result
            else:
                target = frame.sites.results.get(byte_range)
                result = frame.conv.expr(target) if target is not None else None
            function, loops, span, key = self._place(frame, node.start_byte, node.end_byte)
            if (fn.type == "identifier" and callee in self.macros and callee not in frame.active
                    and len(frame.active) < _MAX_MACRO_DEPTH):
                pos = frame.anchor.pos if frame.anchor else node.start_byte
                anchor = _Anchor(function, loops, span, pos)
                self._expand(frame, node, callee, anchor, result)
                continue
            args = None
            if callee in wanted or frame.macro in wanted or EVERY_CALL in wanted:
                args = frame.conv.arguments(node.child_by_field_name("arguments"))
            field = called_field(fn)
            receiver = field.child_by_field_name("argument") if field is not None else None
            # a macro body's names are the invocation's to give: no declared type there
            field_of = self.types.class_of(receiver, node.start_byte) if via_field and frame.anchor is None else owner
            if owner is None and (parameter := self._type_parameter_scope(fn)) is not None:
                # `Policy::commit(fd)`: a static method of each class the template's uses give
                # Policy, as `policy_.commit(fd)` of a `Policy policy_` member
                receiver, field_of = parameter, text(self.source, parameter)
            via_field = via_field or field_of is not None
            if callee == "flush" and field_of is not None and field_of.rsplit("::", 1)[-1] in STREAM_CLASSES:
                # out.flush() is out << std::flush
                self.pending_calls.append((key, "std::flush", span, function, loops, (frame.conv.expr(receiver),),
                                           None, frame.macro, False, None, None))
                continue
            if fn.type == "qualified_identifier" and fn.child_by_field_name("scope") is None:
                self.global_calls.add(key)
            self.pending_calls.append((key, callee, span, function, loops, args, result,
                                       frame.macro, via_field,
                                       frame.conv.expr(receiver) if receiver is not None else None, field_of))
        for site in frame.sites.constructions if frame.anchor is None else ():
            self._construction(frame, site)
        for node in frame.sites.element_calls:      # std::for_each(b, e, flush_one)
            function, loops, span, key = self._place(frame, node.start_byte, node.end_byte)
            self.pending_calls.append((key, text(self.source, node).rsplit("::", 1)[-1], span, function, loops,
                                       (), None, frame.macro, False, None, None))
        for node in frame.sites.manipulators:       # out << x << std::endl
            stream = node.child_by_field_name("left")
            while stream is not None and stream.type == "binary_expression" \
                    and stream.child_by_field_name("operator").type == "<<":
                stream = stream.child_by_field_name("left")
            if stream is None:
                continue
            name = text(self.source, node.child_by_field_name("right")).rsplit("::", 1)[-1]
            function, loops, span, key = self._place(frame, node.start_byte, node.end_byte)
            self.pending_calls.append((key, f"std::{name}", span, function, loops, (frame.conv.expr(stream),),
                                       None, frame.macro, False, None, None))
        if frame.anchor is not None:
            self._macro_guards(frame)
        for site in frame.sites.assignments:
            function, loops, span, key = self._place(frame, site.start, site.end)
            target = frame.conv.expr(site.target)
            if site.field is not None and (target := self._field_set(frame, site, target, function)) is None:
                continue
            if site.value is not None and site.value.start_byte in self._held_lambdas and (
                    target.kind == MEMBER or target.kind == IDENTIFIER
                    and self.types.is_field(self.function_nest.innermost(site.start), target.op)):
                # a lambda a field holds (also a member set on the implicit this, `on_commit_ =
                # [this] { ... }`) is the function it makes (_qualified_names): the field's
                # calls run it, as a function stored in a field
                held = self._held_lambdas[site.value.start_byte]
                value = Expr(IDENTIFIER, held, held)
            else:
                # an invocation of one of the file's macros is what it expands to, a call
                # (`JOURNAL_OPEN(path)`) or any other value (`container_of(sink, struct
                # file_sink, sink)`: a pointer computed from `sink`), as clang reads it
                value = (self._expanded(frame.conv, site.value, frame.active, call=True)
                         or self._expanded(frame.conv, site.value, frame.active, call=False, headers=False)
                         or frame.conv.expr(site.value)) if site.value is not None else None
            self.pending_assignments.append((key, target, site.op, value, span, function, loops))

    def _type_parameter_scope(self, fn: Node) -> Node | None:
        """The scope of a call `P::f(...)` when P is a type parameter of a template the call
        is written in."""
        scope = fn.child_by_field_name("scope") if fn.type == "qualified_identifier" else None
        if scope is None or scope.type not in ("namespace_identifier", "type_identifier"):
            return None
        name, at = text(self.source, scope), fn.start_byte
        return scope if any(start <= at < end and name in parameters
                            for start, end, parameters in self._template_parameters) else None

    @cached_property
    def _template_parameters(self) -> list[tuple[int, int, frozenset[str]]]:
        """(start, end, its type parameters' names) of each template declaration."""
        return [(node.start_byte, node.end_byte, frozenset(self._parameter_names(node)))
                for node in self.captures.get("template", ())]

    def _member_called(self, fn: Node, callee: str, frame: _Frame) -> str | None:
        """In a method, the class of a data member called on the implicit this (`on_event(e)` of a
        std::function member, a function pointer member): a call through that field."""
        if fn.type != "identifier" or frame.anchor is not None:
            return None
        index = self.function_nest.innermost(fn.start_byte)
        return self.types.owner_at(index) if self.types.is_field(index, callee) else None

    def _field_set(self, frame: _Frame, site: AssignSite, target: Expr, function: str | None) -> Expr | None:
        """The field of the target a brace list's item sets (AssignSite.field); None where it is
        not known, or at file scope: a file-scope list holds constants and functions
        (FieldBinding, TableEntry), not memory a value flows into.  By position, the field of a
        struct of plain fields the file declares (a struct declared elsewhere, or with member
        functions, static members or bases, may not take its list in that order)."""
        if function is None:
            return None
        struct = frame.conv.types.of(site.target, site.start) if frame.conv.types is not None else None
        field = site.field
        if isinstance(field, int):
            fields = self._aggregates.get(struct, ()) if struct is not None else ()
            if field >= len(fields) or not fields[field]:
                return None
            field = fields[field]
        return Expr(MEMBER, f"{target.text}.{field}", field, (target,), field_of=struct)

    def _expanded(self, conv: Converter, node: Node, active: frozenset[str], call: bool,
                  headers: bool = True) -> Expr | None:
        """The value of an invocation of one of the file's function-like macros whose body is
        one expression, as clang reads it, with the invocation's arguments: a call (with `call`;
        `JOURNAL_OPEN(path)` of `#define JOURNAL_OPEN(p) open((p), FLAGS, 0600)` is that open,
        whose facts are the expansion's already) or, without, any other value (`END_OF_GROUP(i)`
        of `#define END_OF_GROUP(i) ((i) % GROUP == GROUP - 1)`: what a condition so spelled tests).
        `headers`: whether a header's value macro may stand for a name the file does not
        define (read for conditions: _header_value)."""
        if node.type == "condition_clause":      # C++'s `if (cond)`: the condition it holds
            node = node.child_by_field_name("value") or node
        value = unwrap(node)
        function = value.child_by_field_name("function") if value.type == "call_expression" else None
        name = conv.text(function) if function is not None and function.type == "identifier" else None
        if name is None or name in active:
            return None
        macro = self.macros[name] if name in self.macros else self._header_value(name, call) if headers else None
        if macro is None or macro.value is None or (macro.value.type == "call_expression") != call:
            return None
        items = conv.argument_items(value.child_by_field_name("arguments"))
        return MacroConverter(macro.source, Bindings(macro.params, macro.variadic, items), macro.holes,
                              macro.hole_at).expr(macro.value)

    def _header_value(self, name: str, call: bool) -> Macro | None:
        """A value macro a header the file includes defines (ts_headers.py), for a condition
        spelled as a call of a name the file does not define; a call macro's invocations are
        the whole program's to make (header_macros.py)."""
        if call or self.headers is None or name in self._defined_functions:
            return None
        return self.headers.value_macro(name)

    @cached_property
    def _defined_functions(self) -> set[str]:
        return {name for _, name in self.qualified}

    def _condition(self, conv: Converter, node: Node, active: frozenset[str] = frozenset(),
                   at: int | None = None) -> Expr:
        """A guard's condition as the rules read it: built when its text could batch or switch
        on a trace (frequency.may_matter) or, for a guard `at` a place of a function, names one
        of its parameters; else only its text, shortened.  A condition spelled as a macro
        invocation is judged by the macro's value (_expanded)."""
        value = self._expanded(conv, node, active, call=False)
        spelled = value.text if value is not None else conv.text(node)
        if not (may_matter(spelled) or (at is not None and self._names_parameter(spelled, at))):
            return Expr(OTHER, shortened(spelled))
        return value if value is not None else self._calls_expanded(conv, node, active, conv.expr(node))

    def _calls_expanded(self, conv: Converter, node: Node, active: frozenset[str], built: Expr) -> Expr:
        """A condition as built, with each invocation of one of the file's call macros in it
        the call it expands to, as clang reads it and as the file's calls record it: the
        condition `FSYNC(fd) < 0` of `#define FSYNC(fd) fdatasync(fd)` makes the fdatasync
        (a macro's guard spans its invocation, and a call its condition makes is no call it guards)."""
        expansions = {}
        pending = [node]
        while pending:
            child = pending.pop()
            if child.type == "call_expression" and (call := self._expanded(conv, child, active, call=True)) is not None:
                expansions[conv.text(child)] = call
            pending.extend(child.named_children)
        if not expansions:
            return built

        def expanded(expr: Expr) -> Expr:
            if expr.kind == CALL and expr.text in expansions:
                return expansions[expr.text]
            return replace(expr, children=tuple(expanded(child) for child in expr.children)) if expr.children else expr
        return expanded(built)

    def _construction(self, frame: _Frame, site: ConstructSite) -> None:
        """An object made with arguments: a call of its class's constructor, named like the
        class as C++ names constructors, its result the variable declared."""
        name = type_name(self.source, site.type)
        if name is None:
            return
        conv, arguments = frame.conv, site.arguments
        if arguments.type == "parameter_list":
            if not self._names_variables(arguments):
                return      # a prototype declared in a block
            conv, arguments = self._as_arguments(arguments)
        wanted = self.options.argument_callees
        args = conv.arguments(arguments) if name in wanted or EVERY_CALL in wanted else None
        self._constructed.append(site.type)
        function, loops, span, key = self._place(frame, site.start, site.end)
        result = Expr(IDENTIFIER, site.declared, site.declared) if site.declared else None
        self.pending_calls.append((key, name, span, function, loops, args, result, frame.macro, False, None, None))

    def _names_variables(self, parameters: Node) -> bool:
        """Whether a block's "prototype" names a variable where a parameter's type should be
        (`SegmentView v(fd, off, len);`): an object made from those variables.  A variable
        of the function, of the file, or in a method a field of its class the file declares;
        or a standard stream (`TextReporter rep(std::cout);`)."""
        index = self.function_nest.innermost(parameters.start_byte)
        if index < 0:
            return False
        variables = self._variables.get(index)
        if variables is None:
            variables = self._variables[index] = self._params_at(parameters.start_byte) | self.types.members(index).keys() | {
                name for declarator in self.captures.get("local", ())
                if self.function_nest.innermost(declarator.start_byte) in (index, -1)
                and (name := declared_name(self.source, declarator)) is not None}
        # a standard stream is an object, never a type: `TextReporter rep(std::cout);`
        return any(p.type == "parameter_declaration" and _unnamed(p.child_by_field_name("declarator"))
                   and (kind := p.child_by_field_name("type")) is not None
                   and (kind.type == "type_identifier" and text(self.source, kind) in variables
                        or kind.type == "qualified_identifier" and text(self.source, kind) in STANDARD_STREAMS)
                   for p in parameters.named_children)

    def _as_arguments(self, parameters: Node) -> tuple[Converter, Node]:
        """A parameter list's text read again as a call's arguments."""
        wrapped = b"void __mmaplint_construct__() { __mmaplint_construct__" \
            + self.source[parameters.start_byte:parameters.end_byte] + b"; }"
        body = self.lang.parser.parse(wrapped).root_node.named_children[0].child_by_field_name("body")
        call = body.named_children[0].named_children[0] if body is not None and body.named_child_count else None
        return Converter(wrapped), call.child_by_field_name("arguments") if call is not None else None

    def _macro_guards(self, frame: _Frame) -> None:
        """An `if` of a macro body around all of the body's calls (`#define LOG(level, ...)
        if ((level) <= log_level) do_log(__VA_ARGS__)`) guards the invocation: its facts
        all sit at the invocation, and all of its calls run only when the condition holds."""
        calls = [(node.start_byte, node.end_byte) for node in frame.sites.calls]
        for node in frame.sites.guards:
            condition, body = node.child_by_field_name("condition"), node.child_by_field_name("consequence")
            if condition is None or body is None:
                continue
            # the condition's own calls (`if (unlikely(!(e)))`) run whatever it decides
            guarded = [(start, end) for start, end in calls
                       if not (condition.start_byte <= start and end <= condition.end_byte)]
            if not guarded or not all(body.start_byte <= start and end <= body.end_byte for start, end in guarded):
                continue
            self.macro_guards.append(Guard(
                self._condition(frame.conv, condition, frame.active), frame.anchor.span, frame.anchor.function,
                # a break may leave the body's own `do { } while (0)`, not the invocation's loop
                leaves=_leaves(body) and _last_statement(body).type != "break_statement"))

    def _expand(self, frame: _Frame, invocation: Node, name: str, anchor: _Anchor,
                result: Expr | None) -> None:
        macro = self.macros[name]
        if not macro.has_facts:
            return
        items = frame.conv.argument_items(invocation.child_by_field_name("arguments"))
        env = Bindings(macro.params, macro.variadic, items)
        conv = MacroConverter(macro.source, env, macro.holes, macro.hole_at)
        self.emit(_Frame(sites=macro.sites, conv=conv,
                         loops=self._frame_loops(macro.sites, anchor), anchor=anchor,
                         macro=frame.macro or name, active=frame.active | {name},
                         top_call=macro.top_call, top_result=result))

    def _macro_functions(self) -> list[Function]:
        """A header's function-like macros that make calls, each as a function of its name:
        to the files that include the header (whose own parse sees no definition), an
        invocation is a call of it.  rsync's `exit_cleanup(code)`, in rsync.h, runs
        `_exit_cleanup(code, __FILE__, __LINE__)`, which ends the process.  The body's facts
        are placed at the definition, as an expansion's are at its invocation; the header's
        own invocations are expanded where they are, as in any file."""
        defined = {name for _, name in self.qualified}
        functions = []
        for name, node in self.macros.definitions():
            if name in defined or not self.macros[name].sites.calls:
                continue
            macro = self.macros[name]
            anchor = _Anchor(name, (), self.span(node), node.start_byte)
            if macro.branches:      # which of its calls a branch holds, the definition's place cannot say
                self.macro_branches.append(anchor.span)
            self.emit(_Frame(sites=macro.sites, conv=Converter(macro.source),
                             loops=self._frame_loops(macro.sites, anchor), anchor=anchor,
                             active=frozenset({name}), top_call=macro.top_call))
            functions.append(Function(name, name, anchor.span, frozenset(macro.params), macro.params,
                                      forwards=macro.top_call is not None, macro=True))
        return functions

    # -- file-level facts -------------------------------------------------

    def _functions(self) -> list[Function]:
        local_names: list[list[str]] = [[] for _ in self.function_nodes]
        for declarator in self.captures.get("local", ()):
            index = self.function_nest.innermost(declarator.start_byte)
            name = declared_name(self.source, declarator, prototypes=True) if index >= 0 else None
            if name is not None:
                local_names[index].append(name)
        functions = []
        for node, (qualified, name), names in zip(self.function_nodes, self.qualified, local_names):
            declarator = function_declarator(node)
            params = parameter_names(self.source, declarator) if declarator is not None else []
            functions.append(Function(name, qualified, self.span(node), frozenset(params + names) - {""},
                                      tuple(params), _forwards(node.child_by_field_name("body"))))
        return functions

    def _field_bindings(self) -> list[FieldBinding]:
        bindings = []
        for pair in self.captures.get("binding", ()):
            designators = pair.children_by_field_name("designator")
            value = pair.child_by_field_name("value")
            if not designators or value is None or (function := _function_named(self.source, value)) is None:
                continue
            field = designators[-1]
            if field.type == "field_designator" and field.named_child_count:
                field = field.named_children[0]
            if field.type == "field_identifier":
                table = self._table_of(pair.parent)
                bindings.append(FieldBinding(text(self.source, field), function, self.span(pair), table,
                                             self.types.of_variable(table) if table is not None else None))
        return bindings

    def _table_of(self, items: Node | None) -> str | None:
        """The file-scope variable a brace list initialises (itself, or as an element of an
        array of tables)."""
        if items is not None and items.parent is not None and items.parent.type == "initializer_list":
            items = items.parent        # `T tables[] = {{...}, {...}}`
        declarator = items.parent if items is not None else None
        if declarator is None or declarator.type != "init_declarator" or self.function_at(declarator.start_byte):
            return None
        name = declared_name(self.source, declarator.child_by_field_name("declarator"))
        return name or None

    def _table_entries(self) -> list[TableEntry]:
        """The functions in file-scope tables initialised without designators (`T t = {1, f, g};`,
        `T t[] = {{1, f}, {2, g}}`), by position, for T's declaration to name.  Not a list
        with a preprocessor group or a syntax error among its entries: positions would shift."""
        entries = []
        for init in self.captures.get("init", ()):
            value = init.child_by_field_name("value")
            name = self._table_of(value) if value is not None and value.type == "initializer_list" else None
            if name is None:
                continue
            declaration = init.parent
            kind = declaration.child_by_field_name("type") if declaration is not None else None
            if kind is not None and kind.type == "struct_specifier":
                kind = kind.child_by_field_name("name")
            if kind is None or kind.type != "type_identifier":
                continue
            struct = text(self.source, kind)
            lists = [value]
            if init.child_by_field_name("declarator").type == "array_declarator":
                lists = [element for item in value.named_children if (element := _element_list(item)) is not None]
            for items in lists:
                items = [item for item in items.named_children if item.type != "comment"]
                if any(item.type == "initializer_pair" or item.type == "ERROR" or item.type.startswith("preproc")
                       for item in items):
                    continue        # designated (_field_bindings reads it), or positions unsure
                entries.extend(TableEntry(name, struct, position, function, self.span(item))
                               for position, item in enumerate(items)
                               if (function := _function_named(self.source, item)) is not None)
        return entries

    def _struct_fields(self) -> list[StructFields]:
        return [fields for _, fields in self._structs]

    @cached_property
    def _aggregates(self) -> dict[str, tuple[str, ...]]:
        """The fields in order of the file's structs of plain fields, by tag and typedef name:
        those a brace list without designators fills by position."""
        return {name: fields.fields for node, fields in self._structs if _plain_fields(node) for name in fields.names}

    @cached_property
    def _structs(self) -> list[tuple[Node, StructFields]]:
        """Each struct declaration's fields in order, under its tag and typedef names."""
        found = []
        for node in self.captures.get("struct", ()):
            names = [text(self.source, name)] if (name := node.child_by_field_name("name")) else []
            if node.parent is not None and node.parent.type == "type_definition":
                names += [text(self.source, d) for d in node.parent.children_by_field_name("declarator")
                          if d.type == "type_identifier"]
            fields: list[str] = []
            types: list[str] = []
            for member in node.child_by_field_name("body").named_children:
                if member.type == "comment":
                    continue
                declarators = member.children_by_field_name("declarator") if member.type == "field_declaration" else []
                if not declarators:
                    break       # a preprocessor group, an anonymous struct or union, an error
                fields += [declared_name(self.source, d, prototypes=True) or "" for d in declarators]
                types += [type_name(self.source, member.child_by_field_name("type")) or ""] * len(declarators)
            if names and fields:
                found.append((node, StructFields(tuple(names), tuple(fields), tuple(types))))
        return found

    def _type_aliases(self) -> list[tuple[str, str]]:
        """Each typedef name with the struct or typedef name it stands for, through pointers
        and arrays (`typedef MDB_ID2 *MDB_ID2L;`, `typedef struct { ... } env_t, *env_p;`);
        a function type's is none."""
        found = []
        for node in self.captures.get("typedef", ()):
            names = []
            for d in node.children_by_field_name("declarator"):
                while d is not None and d.type in ("pointer_declarator", "array_declarator", "attributed_declarator"):
                    d = d.child_by_field_name("declarator")
                if d is not None and d.type == "type_identifier":
                    names.append(text(self.source, d))
            target = type_name(self.source, node.child_by_field_name("type")) or next(iter(names), None)
            found += [(name, target) for name in names if target is not None and name != target]
        return found

    def _constructs(self) -> tuple[str, ...]:
        """C++: the classes the file makes objects of, a variable declared by value
        (`kc::CacheDB db;`) or `new T`: which overrides a call on a base class can reach."""
        if self.options.language != "c++":
            return ()
        defined = frozenset(self._class_paths)
        return tuple(sorted({self._class_made(node, defined) for node in self._made_types()} - {None}))

    def _class_made(self, node: Node, defined: frozenset[str]) -> str | None:
        """The class a type node of a made object names, qualified as written; a bare name made
        in a method of a class that this file nests a class of that name in is that one (`new
        Cursor(this)` in CacheDB::cursor() makes a CacheDB::Cursor)."""
        written = qualified_type_name(self.source, node)
        function = self.function_at(node.start_byte)
        if written is None or "::" in written or function is None:
            return written
        scope = function.split("::")[:-1]
        return next((nested for end in range(len(scope), 0, -1) for start in range(end)
                     if (nested := "::".join([*scope[start:end], written])) in defined), written)

    def _made_types(self) -> Iterator[Node]:
        """The type nodes of the objects the file makes: variables declared by value, `new T`."""
        for declarator in self.captures.get("local", ()):
            named = declarator.child_by_field_name("declarator") if declarator.type == "init_declarator" else declarator
            if named is not None and named.type == "identifier" and declarator.parent is not None:
                yield declarator.parent.child_by_field_name("type")
        yield from self.captures.get("constructed", ())
        yield from self._constructed        # `LazyBackend be(argv[1]);`, which parses as a prototype

    def _templates(self) -> list[Template]:
        """Each class or function template and its parameters' names."""
        found = []
        for declaration in self.captures.get("template", ()):
            defined = next(c for c in declaration.named_children
                           if c.type in ("class_specifier", "struct_specifier", "function_definition"))
            name = defined.child_by_field_name("name") if defined.type != "function_definition" else \
                function_declarator(defined)
            if name is not None and name.type == "function_declarator":
                name = name.child_by_field_name("declarator")
            if name is not None:
                found.append(Template(scope_name(self.source, name).split("::")[-1], self._parameter_names(declaration)))
        return found

    def _parameter_names(self, declaration: Node) -> tuple[str, ...]:
        """A template's parameters' names in order, "" for one that is not a type's (a type's
        is declared `class P`, `typename P`, or with a concept of the file: `Storage P`)."""
        names = []
        for p in declaration.child_by_field_name("parameters").named_children:
            if "type_parameter" in p.type:
                names.append(p.child_by_field_name("name")
                             or next((c for c in p.named_children if c.type == "type_identifier"), None))
            elif p.type == "parameter_declaration" and type_name(self.source, p.child_by_field_name("type")) \
                    in self._concepts:
                names.append(p.child_by_field_name("declarator"))
            else:
                names.append(None)
        return tuple(text(self.source, n) if n is not None and n.type in ("identifier", "type_identifier") else ""
                     for n in names)

    @cached_property
    def _concepts(self) -> frozenset[str]:
        return frozenset(text(self.source, node) for node in self.captures.get("concept", ()))

    def _template_uses(self) -> list[TemplateUse]:
        """The aliases of class templates with their arguments, and the objects made of one."""
        found = []
        for node in self.captures.get("alias", ()):
            if node.type == "type_definition":
                kind, alias = node.child_by_field_name("type"), node.child_by_field_name("declarator")
            else:       # `using Alias = Template<...>;`: the type is inside a type_descriptor
                kind, alias = node.child_by_field_name("type").child_by_field_name("type"), node.child_by_field_name("name")
            if alias is not None and (use := template_arguments(self.source, kind)) is not None:
                found.append(TemplateUse(use[0], use[1:], text(self.source, alias)))
        for node in self._made_types():
            if (use := template_arguments(self.source, node)) is not None:
                found.append(TemplateUse(use[0], use[1:], made=True))
        for node in self.captures.get("template.call", ()):
            if (use := template_arguments(self.source, node)) is not None:
                found.append(TemplateUse(use[0], use[1:]))
        return found

    def _classes(self) -> list[ClassBases]:
        """Each class defined with a body, named with the classes it is nested in, and its
        bases as written."""
        found = []
        for (node, _), path in zip(self._class_scopes, self._class_paths):
            clause = next((child for child in node.named_children if child.type == "base_class_clause"), None)
            bases = () if clause is None else tuple(
                base for child in clause.named_children if (base := qualified_type_name(self.source, child)) is not None)
            found.append(ClassBases(path, bases))
        return found

    def _guards(self, conv: Converter) -> list[Guard]:
        """The guards with a call inside (no question is asked of the others, but whether a
        function bounds its index by a table's size): preprocessor groups, then the
        then-branches of ifs."""
        calls = sorted(key[0] for key, *_ in self.pending_calls)

        def has_call(start: int, end: int) -> bool:
            first = bisect_left(calls, start)
            return first < len(calls) and calls[first] < end

        guards = [Guard(group.condition, self.lines.span(self.path, group.start, group.end),
                        self.function_at(group.start), preprocessor=True)
                  for group in self.conditional if has_call(group.start, group.end)]
        for node in self.captures.get("guard", ()):
            condition, body = node.child_by_field_name("condition"), node.child_by_field_name("consequence")
            if condition is None:
                continue
            if has_call(body.start_byte, body.end_byte):
                leaves = _leaves(body)
                guards.append(Guard(self._condition(conv, condition, at=node.start_byte), self.span(body),
                                    self.function_at(node.start_byte), leaves=leaves, nested=leaves and _nested(node),
                                    declares=_declares(condition)))
            elif _leaves(body) and ((timed := may_time(spelled := conv.text(condition))
                                     and self._reads_clock(node.start_byte))
                                    or self._may_rule_out(spelled, node.start_byte)) \
                    and kept_without_call(built := conv.expr(condition), self._params_at(node.start_byte), timed,
                                          lambda name: self._set_after(name, node)):
                guards.append(Guard(built, self.span(body), self.function_at(node.start_byte), leaves=True,
                                    nested=_nested(node)))
        # the right of `a && f()` runs only when the left holds (`if (++n % 64 == 0 && fsync(fd))`)
        for node in self.captures.get("conjunction", ()):
            condition, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if condition is not None and right is not None and has_call(right.start_byte, right.end_byte):
                guards.append(Guard(self._condition(conv, condition), self.span(right), self.function_at(node.start_byte)))
        return guards + self._leaving_cases(conv, has_call) + self.macro_guards

    def _leaving_cases(self, conv: Converter, has_call) -> list[Guard]:
        """The cases of a switch that end by leaving (a return, a goto, exit()): what runs from
        their label on runs on the way out, as under an if that returns (`case ST_COMMIT:
        fsync(fd); return 0;` in a loop's state machine), guarded by `value == label`."""
        guards = []
        for node in self.captures.get("branch", ()):
            value = node.child_by_field_name("value") if node.type == "case_statement" else None
            statements = [child for child in node.named_children if child != value and child.type != "comment"]
            switch = node.parent.parent if node.parent is not None else None
            if value is None or not statements or switch is None or switch.type != "switch_statement" \
                    or not has_call(statements[0].start_byte, statements[-1].end_byte) or not _leaves(statements[-1]):
                continue
            subject = switch.child_by_field_name("condition")
            if subject is not None and subject.type == "condition_clause":
                subject = subject.child_by_field_name("value")
            if subject is None:
                continue
            compared = conv.expr(subject), conv.expr(value)
            guards.append(Guard(Expr(BINARY, f"{compared[0].text} == {compared[1].text}", "==", compared),
                                self.lines.span(self.path, statements[0].start_byte, statements[-1].end_byte),
                                self.function_at(node.start_byte), leaves=True, nested=True))
        return guards

    def _reads_clock(self, pos: int) -> bool:
        """Whether the function around a byte calls a clock (frequency.CLOCKS)."""
        return self.function_at(pos) in self._clock_readers

    @cached_property
    def _clock_readers(self) -> set[str | None]:
        return {function for _, callee, _, function, *_ in self.pending_calls if callee in CLOCKS}

    def _set_after(self, name: str, statement: Node) -> bool:
        """Whether the function around a statement assigns a variable or field of this name
        (`=`) after it."""
        function = self.function_at(statement.start_byte)
        return any(start > statement.end_byte for start in self._plain_settings.get((function, name), ()))

    @cached_property
    def _plain_settings(self) -> dict[tuple[str | None, str], list[int]]:
        """Where each function assigns (`=`) each variable or field name: (function, name) to
        the assignments' starting bytes."""
        found: dict[tuple[str | None, str], list[int]] = {}
        for key, target, op, _, _, function, _ in self.pending_assignments:
            if op == "=" and target.kind in (IDENTIFIER, MEMBER):
                found.setdefault((function, target.op), []).append(key[0])
        return found

    def _may_rule_out(self, condition: str, pos: int) -> bool:
        """A cheap first test, on a leaving guard's text, for the conditions kept without a
        call inside: a bound, a trace switch, a parameter's name (the built condition decides)."""
        return may_bound(condition) or may_matter(condition) or self._names_parameter(condition, pos)

    def _names_parameter(self, condition: str, pos: int) -> bool:
        """Whether a condition's text spells the name of a parameter of the function around it
        (a cheap first test: the built condition's names decide)."""
        return any(p in condition for p in self._params_at(pos))

    def _params_at(self, pos: int) -> frozenset[str]:
        """The parameters of the function around a byte."""
        index = self.function_nest.innermost(pos)
        if index < 0:
            return frozenset()
        found = self._params.get(index)
        if found is None:
            declarator = function_declarator(self.function_nodes[index])
            found = self._params[index] = frozenset(
                parameter_names(self.source, declarator) if declarator is not None else ()) - {""}
        return found

    def _returns(self, conv: Converter) -> tuple[list[Return], list[Span]]:
        """`return value;` statements of function bodies, with the value returned; and where
        the bare `return;` statements are."""
        returns, bare = [], []
        for node in self.captures.get("return", ()):
            value = next((child for child in node.named_children if child.type != "comment"), None)
            function = self.function_at(node.start_byte)
            if value is not None and function is not None:
                returns.append(Return(conv.expr(value), self.span(node), function))
            elif function is not None:
                bare.append(self.span(node))
        return returns, bare

    def _comments(self) -> list[tuple[int, str]]:
        """(line, text) of each comment line that may hold a suppression directive."""
        comments = []
        for node in self.captures.get("comment", ()):
            first = bisect_right(self.lines.starts, node.start_byte)
            for offset, line in enumerate(text(self.source, node).split("\n")):
                if may_hold_directive(line):
                    comments.append((first + offset, line.rstrip("\r")))
        return comments

    def _constants(self) -> None:
        """Object-like macros of this file (`#define SEG (4 << 20)`, `#define MODE MAP_SHARED`)
        become file-scope assignments: with no preprocessor, that is how a rule following a
        name to its value (flags, sizes) sees through them, as it does with clang's values."""
        for node in self.captures.get("constant", ()):
            name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            wrapped = (b"long __mmaplint_constant__ = (" + self.source[value.start_byte:value.end_byte]
                       + b"\n);")
            root = self.lang.parser.parse(wrapped).root_node
            declarator = root.named_children[0].child_by_field_name("declarator") \
                if root.named_child_count and not root.has_error else None
            init = declarator.child_by_field_name("value") if declarator is not None else None
            if init is None:
                continue        # a body that is not one expression (a statement, a type)
            spelled = text(self.source, name)
            self.pending_assignments.append(((node.start_byte, next(self.seq)), Expr(IDENTIFIER, spelled, spelled),
                                             "=", Converter(wrapped).expr(init), self.span(node), None, ()))
        self._enumerators()

    def _enumerators(self) -> None:
        """Enumerators (`enum { UNIT = 10 << 20, NEXT };`) become file-scope assignments of their
        values, as object-like macros do: clang knows an enumerator's value at each use.  One
        without an initialiser is the previous one's value plus one (0 for the first)."""
        conv = Converter(self.source)
        for node in self.captures.get("enumerators", ()):
            base, offset = None, 0
            for item in node.named_children:
                name, value = item.child_by_field_name("name"), item.child_by_field_name("value")
                if item.type != "enumerator" or name is None:
                    continue
                if value is not None:
                    base, offset = conv.expr(value), 0
                step = Expr(INT, str(offset), value=offset)
                found = step if base is None else base if offset == 0 else \
                    Expr(BINARY, f"{base.text} + {offset}", "+", (base, step))
                spelled = text(self.source, name)
                self.pending_assignments.append(((item.start_byte, next(self.seq)), Expr(IDENTIFIER, spelled, spelled),
                                                 "=", found, self.span(item), None, ()))
                offset += 1

    def file_facts(self, reason: str) -> FileFacts:
        self._constants()
        sites = Sites.read(self.captures)
        conv = Converter(self.source, self.types)
        self.emit(_Frame(sites=sites, conv=conv, loops=self._frame_loops(sites, None, conv)))
        macro_functions = self._macro_functions() if source_suffix(self.path) in HEADERS else []
        self.loop_records.sort(key=lambda record: record.key)
        for number, record in enumerate(self.loop_records):
            record.id = number
        self.pending_calls.sort(key=itemgetter(0))
        self.pending_assignments.sort(key=itemgetter(0))
        ids: dict[tuple[_LoopRecord, ...], tuple[int, ...]] = {}   # few distinct loop nests

        def loop_ids(loops: tuple[_LoopRecord, ...]) -> tuple[int, ...]:
            found = ids.get(loops)
            if found is None:
                found = ids[loops] = tuple(loop.id for loop in loops)
            return found

        calls = [Call(callee, span, function, loop_ids(loops), args, result, macro, via_field, receiver=receiver,
                      field_of=field_of, target=callee if key in self.global_calls else None)
                 for key, callee, span, function, loops, args, result, macro, via_field, receiver, field_of
                 in self.pending_calls]
        assignments = [Assignment(target, op, value, span, function, loop_ids(loops))
                       for _, target, op, value, span, function, loops in self.pending_assignments]
        loops = [Loop(record.id, record.kind, record.span, record.function, record.condition, record.repeats_when,
                      record.continued_at)
                 for record in self.loop_records]
        functions, guards = self._functions() + macro_functions, self._guards(conv)
        returns, bare_returns = self._returns(conv)
        kept = relevant_guards(guards, calls, assignments, functions)
        return FileFacts(
            path=self.path, frontend="tree-sitter", reason=reason, language=self.options.language,
            functions=tuple(functions), loops=tuple(loops), calls=tuple(calls),
            assignments=tuple(assignments), returns=tuple(returns), bare_returns=tuple(bare_returns),
            field_bindings=tuple(self._field_bindings()),
            table_entries=tuple(self._table_entries()), struct_fields=tuple(self._struct_fields()),
            type_aliases=tuple(self._type_aliases()),
            classes=tuple(self._classes()), constructs=self._constructs(),
            templates=tuple(self._templates()), template_uses=tuple(dict.fromkeys(self._template_uses())),
            guards=kept, parameter_guards=parameter_guards(guards, kept, functions),
            branches=tuple(self.span(node) for node in self.captures.get("branch", ())) + tuple(self.macro_branches),
            alternatives=tuple((self.span(then), self.span(node)) for node in self.captures.get("alternative", ())
                               if (then := node.parent.child_by_field_name("consequence")) is not None),
            comments=tuple(self._comments()), lines=self.lines.count,
            includes=self.headers.read if self.headers is not None else ())


def _plain_fields(struct: Node) -> bool:
    """Whether a struct's body is fields alone, each one a list fills in turn: no member
    function, static member, access label, base, nested anonymous member or preprocessor group."""
    if any(child.type == "base_class_clause" for child in struct.children):
        return False
    for member in struct.child_by_field_name("body").named_children:
        if member.type == "comment":
            continue
        declarators = member.children_by_field_name("declarator") if member.type == "field_declaration" else []
        if not declarators or any(d.type == "function_declarator" for d in declarators) or any(
                child.type == "storage_class_specifier" for child in member.children):
            return False
    return True
