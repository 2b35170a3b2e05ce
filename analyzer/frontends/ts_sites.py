"""The fact-bearing nodes of one syntax tree (a file, or a macro body), read
from the facts query's captures: loops with the byte range that counts as
inside them, calls, and assignment-like nodes with their parts."""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from tree_sitter import Node

from ..facts import RANGE_ELEMENT
from ..frequency import WALKS
from .ts_expr import call_cast, int_literal, unwrap
from .ts_names import Nest, declared_identifier

_LOOP_KINDS = {"loop.for": "for", "loop.while": "while", "loop.do": "do",
              "loop.range-for": "range-for"}


class AssignSite(NamedTuple):    # a tuple: files have thousands
    start: int                # byte range of the fact's span
    end: int
    target: Node
    op: str
    value: Node | None
    # a brace list's item: the field of the target it sets, by name (a designator) or by
    # position (the struct's declaration names it); None: the target itself
    field: str | int | None = None


class ConstructSite(NamedTuple):
    """An object made with arguments as written: a call of its class's constructor."""
    start: int                # byte range of the call: `log(path)`, `LogFile(path)` after new
    end: int
    type: Node                # the class, as the declaration or the new spells it
    # an argument list, the braces of `LogFile log{path}`, or the parameter list tree-sitter
    # reads `LogFile log(path);` as (a prototype: the ambiguity C++ resolves by what path is)
    arguments: Node
    declared: str | None      # the variable a declaration makes (none for new)


@dataclass
class Sites:
    loops: list[tuple[Node, str]]         # (statement, kind), source order
    loop_nest: Nest                       # over the loops' inside ranges, same indices
    calls: list[Node]
    assignments: list[AssignSite]
    results: dict[tuple[int, int], Node]  # call byte range -> target it is assigned to
    guards: list[Node]                    # if statements
    element_calls: list[Node] = ()        # a function named to an algorithm or a walk: called per element
    manipulators: list[Node] = ()         # `out << ... << std::endl`
    constructions: list[ConstructSite] = ()

    @classmethod
    def read(cls, captures: dict[str, list[Node]]) -> "Sites":
        algorithms = [(callable_, kind) for name in ("algorithm", "walk") for call in captures.get(name, ())
                      if (found := _element_callable(call)) is not None for callable_, kind in [found]]
        loops = sorted([(node, kind) for name, kind in _LOOP_KINDS.items()
                        for node in captures.get(name, ()) if not _runs_once(node, kind)] + algorithms,
                       key=lambda loop: (loop[0].start_byte, -loop[0].end_byte))
        assignments = _assignments(captures)
        results = {}
        for site in assignments:
            if site.op == "=" and site.value is not None and site.field is None:
                value = unwrap(site.value)
                if value.type == "call_expression":
                    results[value.start_byte, value.end_byte] = site.target
        return cls(loops=loops,
                   loop_nest=Nest([_inside(node, kind) for node, kind in loops]),
                   calls=[node for node in captures.get("call", ()) if call_cast(node) is None],
                   assignments=assignments, results=results, guards=captures.get("guard", []),
                   element_calls=[node for node, _ in algorithms if node.type != "lambda_expression"],
                   manipulators=captures.get("manipulator", []), constructions=_constructions(captures))


def _constructions(captures: dict[str, list[Node]]) -> list[ConstructSite]:
    """`LogFile log(path)`, `LogFile log{path}`, `new LogFile(path)` and
    `std::make_unique<LogFile>(path)`: objects made with
    arguments (`LogFile(path)` is a call already; `LogFile log = {path}` and a C struct's
    `= {...}` initialise no object a constructor makes here)."""
    sites = []
    for node in captures.get("init", ()):
        value, declaration = node.child_by_field_name("value"), node.parent
        if value is not None and declaration is not None and value.named_child_count and (
                value.type == "argument_list"
                or value.type == "initializer_list" and (value.prev_sibling is None or value.prev_sibling.type != "=")):
            kind = declaration.child_by_field_name("type")
            if kind is not None:
                sites.append(ConstructSite(node.start_byte, node.end_byte, kind, value, _declared(node)))
    for node in captures.get("local", ()):
        declaration = node.parent
        if node.type == "function_declarator" and declaration.type == "declaration" \
                and declaration.parent is not None and declaration.parent.type == "compound_statement":
            parameters, kind = node.child_by_field_name("parameters"), declaration.child_by_field_name("type")
            if parameters is not None and parameters.named_child_count and kind is not None:
                sites.append(ConstructSite(node.start_byte, node.end_byte, kind, parameters, _declared(node)))
    for kind in captures.get("constructed", ()):
        made = kind.parent
        if made.type == "type_descriptor":     # std::make_unique<Blob>(path): the factory's call
            made = made.parent.parent
            while made is not None and made.type != "call_expression":
                made = made.parent
        arguments = made.child_by_field_name("arguments") if made is not None else None
        if arguments is not None and arguments.named_child_count:
            start = kind.start_byte if made.type == "new_expression" else made.start_byte
            sites.append(ConstructSite(start, made.end_byte, kind, arguments, None))
    return sites


def _declared(declarator: Node) -> str | None:
    name = declarator.child_by_field_name("declarator")
    return name.text.decode("utf-8", "replace") if name is not None and name.type == "identifier" else None


def _element_callable(call: Node) -> tuple[Node, str] | None:
    """The lambda or function a call of a standard algorithm (its last argument) or of a
    walk of the C library (the argument WALKS says) is handed, and the loop kind it makes
    (`std::for_each`, `nftw`)."""
    name = call.child_by_field_name("function").text.decode("utf-8", "replace")
    arguments = call.child_by_field_name("arguments")
    given = arguments.named_children if arguments is not None else []
    index = WALKS.get(name, -1)
    handed = given[index] if -len(given) <= index < len(given) else None
    while handed is not None and handed.type == "pointer_expression":      # &flush_one
        handed = handed.child_by_field_name("argument")
    if handed is None or handed.type not in ("lambda_expression", "identifier", "qualified_identifier"):
        return None
    if name in WALKS:
        return handed, name
    if handed.type != "lambda_expression" and not name.startswith("std::"):
        return None     # `for_each(list, fn)` may be the program's own: a lambda says it is not C
    return handed, "std::" + name.rsplit("::", 1)[-1]


def _field_sites(target: Node, value: Node) -> list[AssignSite]:
    """What a brace list gives each field of the struct it initialises (`struct region r =
    {.base = p, .len = n}`, `r = (struct region){...}`, `Segment s{p, n}`): one assignment of
    the target's field per item, by its designator when the list has any (one field each:
    `.a.b = x` and `[i] = x` are left out), else by its position.  Not a list with a
    preprocessor group or a syntax error among its items (positions would shift), nor one
    whose item is itself a list."""
    value = unwrap(value)
    if value.type == "compound_literal_expression":
        value = value.child_by_field_name("value")
    if value is None or value.type != "initializer_list":
        return []
    items = [item for item in value.named_children if item.type != "comment"]
    if any(item.type == "ERROR" or item.type.startswith("preproc") or item.type == "initializer_list"
           for item in items):
        return []
    if not any(item.type == "initializer_pair" for item in items):
        return [AssignSite(item.start_byte, item.end_byte, target, "=", item, position)
                for position, item in enumerate(items)]
    sites = []
    for item in items:
        designators, given = item.children_by_field_name("designator"), item.child_by_field_name("value")
        if item.type != "initializer_pair" or len(designators) != 1 or given is None:
            continue
        field = designators[0]
        if field.type == "field_designator" and field.named_child_count:
            field = field.named_children[0]
        if field.type == "field_identifier" and given.type != "initializer_list":
            sites.append(AssignSite(item.start_byte, item.end_byte, target, "=", given, field.text.decode("utf-8", "replace")))
    return sites


def _variable_start(init: Node) -> int:
    """Where clang starts an initialised variable: the first of a declaration
    at the declaration's start (its type), later ones at their name."""
    declaration = init.parent if init.type == "init_declarator" else None
    if declaration is None:
        return init.start_byte
    first = declaration.child_by_field_name("declarator")
    return declaration.start_byte if first is not None and first.start_byte == init.start_byte \
        else init.start_byte


def _range_variable(loop: Node) -> tuple[int, int]:
    """Byte range clang gives a range-for's variable: from after `(` through `:`."""
    children = loop.children
    kinds = [child.type for child in children]
    start = children[kinds.index("(") + 1].start_byte if "(" in kinds[:-1] else loop.start_byte
    end = children[kinds.index(":")].end_byte if ":" in kinds else loop.end_byte
    return start, end


LOOP_NODES = frozenset({"for_statement", "while_statement", "do_statement", "for_range_loop"})
_LEAVING_NODES = frozenset({"return_statement", "break_statement", "goto_statement"})


def continues(loop: Node) -> list[tuple[Node | None, Node]] | None:
    """Where a loop whose body ends by leaving it (its last statement a return, a break or a
    goto) goes round again: for each `continue` of its own (none of a nested loop's), the
    condition of the innermost if whose then-branch holds it (None: under no if, or in an
    else), and the continue.  None when the body runs to its end (Loop.repeats_when)."""
    body = loop.child_by_field_name("body")
    statements = [child for child in body.named_children if child.type != "comment"] \
        if body is not None and body.type == "compound_statement" else [body]
    if not statements or statements[-1] is None or statements[-1].type not in _LEAVING_NODES:
        return None
    found: list[tuple[Node | None, Node]] = []
    pending = statements[::-1]      # a stack, popped in source order
    while pending:
        node = pending.pop()
        if node.type == "continue_statement":
            found.append((_continued_when(node, body), node))
        elif node.type not in LOOP_NODES and node.type != "lambda_expression":
            pending.extend(reversed(node.named_children))
    return found


def _continued_when(statement: Node, body: Node) -> Node | None:
    """The condition of the innermost if (inside the loop's body) whose then-branch holds a
    continue; None when it is under no if, or in an else."""
    node = statement
    while node.parent is not None and node != body:
        parent = node.parent
        if parent.type == "if_statement":
            if parent.child_by_field_name("consequence") == node:
                return parent.child_by_field_name("condition")
            if parent.child_by_field_name("alternative") == node:
                return None
        node = parent
    return None


def _runs_once(loop: Node, kind: str) -> bool:
    """`do { ... } while (0)`, a statement macro's wrapper, is no loop."""
    condition = loop.child_by_field_name("condition") if kind == "do" else None
    if condition is None:
        return False
    value = unwrap(condition)
    return (value.type == "false" or value.type == "number_literal"
            and int_literal(value.text.decode("ascii", "replace")) == 0)


def _inside(loop: Node, kind: str) -> tuple[int, int]:
    """The part of a loop that runs per iteration: all but a for-loop's init clause."""
    init = loop.child_by_field_name("initializer") if kind == "for" else None
    return (init.end_byte if init is not None else loop.start_byte), loop.end_byte


def _assignments(captures: dict[str, list[Node]]) -> list[AssignSite]:
    sites = []
    for node in captures.get("assign", ()):
        target, op = node.child_by_field_name("left"), node.child_by_field_name("operator")
        if target is not None and op is not None:
            value = node.child_by_field_name("right")
            sites.append(AssignSite(node.start_byte, node.end_byte, target, op.type, value))
            if op.type == "=" and value is not None:
                sites.extend(_field_sites(target, value))
    for node in captures.get("update", ()):
        target, op = node.child_by_field_name("argument"), node.child_by_field_name("operator")
        if target is not None and op is not None:
            sites.append(AssignSite(node.start_byte, node.end_byte, target, op.type, None))
    for loop in captures.get("loop.range-for", ()):
        # The loop variable takes each element of the range in turn.
        declarator = loop.child_by_field_name("declarator")
        target = declared_identifier(declarator) if declarator is not None else None
        if target is not None:
            start, end = _range_variable(loop)
            sites.append(AssignSite(start, end, target, RANGE_ELEMENT, loop.child_by_field_name("right")))
    for node in captures.get("member_init", ()):
        # `fd_(value)` of a constructor's initialiser list: one value in parentheses sets the member
        member = node.named_children[0] if node.named_child_count else None
        given = node.named_children[-1] if node.named_child_count > 1 else None
        if member is not None and member.type == "field_identifier" and given is not None \
                and given.type == "argument_list" and given.named_child_count == 1:
            sites.append(AssignSite(node.start_byte, node.end_byte, member, "=", given.named_children[0]))
    for node in captures.get("init", ()):
        declarator, value = node.child_by_field_name("declarator"), node.child_by_field_name("value")
        target = declared_identifier(declarator) if declarator is not None else None
        # `Arena arena(3, len)` constructs an object: no assignment, as clang sees it.
        if target is not None and (value is None or value.type != "argument_list"):
            sites.append(AssignSite(_variable_start(node), node.end_byte, target, "=", value))
            if value is not None:
                sites.extend(_field_sites(target, value))
    sites.sort(key=lambda site: (site.start, site.end))   # declarators of one declaration share a start
    return sites
