"""The facts of one translation unit's main file, gathered from libclang's AST.

Speed matters more here than anywhere else in the clang frontend: a big file
has tens of thousands of cursors, and every ctypes call costs about a
microsecond.  So top-level declarations from headers are skipped with one check
each, every definition is walked by a single recursive libclang visit with
one cheap Python callback per cursor (dispatching on the kind id), and loop
membership is decided afterwards from file offsets instead of from a parent
chain kept for every cursor.
"""
from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, replace
from typing import Callable

from clang.cindex import Cursor, CursorKind, TranslationUnit, TypeKind

from ..facts import (BINARY, EVERY_CALL, ClassBases, Template, IDENTIFIER, MEMBER, OTHER, RANGE_ELEMENT, Assignment, Call, Expr, FieldBinding, Function,
                     FrontendOptions, Guard, Loop, Return, Span, TemplateUse, shortened)
from ..frequency import (ALGORITHMS, CLOCKS, FACTORIES, FLUSHING_MANIPULATORS, PROCESS_ENDS, STREAM_CLASSES, WALKS,
                         kept_without_call, may_bound, may_matter, may_time)
from . import clang_native as native
from .clang_expr import (CallShape, ExprBuilder, added_by_compiler, call_shape, call_under, class_path,
                         dependent_member, is_assignment_operator, look_through, owner_of, struct_name,
                         template_use)

_K = CursorKind
_SCOPES = {kind.value for kind in (
    _K.NAMESPACE, _K.LINKAGE_SPEC, _K.CLASS_DECL, _K.STRUCT_DECL, _K.UNION_DECL, _K.CLASS_TEMPLATE,
    _K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION)}
_CLASSES = _SCOPES - {_K.NAMESPACE.value, _K.LINKAGE_SPEC.value}
_ALIASES = {_K.TYPEDEF_DECL.value, _K.TYPE_ALIAS_DECL.value}
_TEMPLATE_PARAMETERS = {kind.value for kind in (
    _K.TEMPLATE_TYPE_PARAMETER, _K.TEMPLATE_NON_TYPE_PARAMETER, _K.TEMPLATE_TEMPLATE_PARAMETER)}
_QUALIFIERS = _SCOPES - {_K.LINKAGE_SPEC.value}
_FUNCTIONS = {kind.value for kind in (
    _K.FUNCTION_DECL, _K.CXX_METHOD, _K.CONSTRUCTOR, _K.DESTRUCTOR, _K.CONVERSION_FUNCTION,
    _K.FUNCTION_TEMPLATE)}
_CALLABLE = {_K.FUNCTION_DECL.value, _K.CXX_METHOD.value, _K.FUNCTION_TEMPLATE.value}
_LOOP_KINDS = {_K.FOR_STMT.value: "for", _K.WHILE_STMT.value: "while", _K.DO_STMT.value: "do",
               _K.CXX_FOR_RANGE_STMT.value: "range-for"}
_CASE_LABELS = {_K.CASE_STMT.value, _K.DEFAULT_STMT.value}
# A branch ending in one of these leaves the loop it is in (a break, unless it leaves a switch).
_LEAVING = {_K.RETURN_STMT.value, _K.GOTO_STMT.value}
_BREAK = 0   # CXChildVisit_Break: stop after a handler failed


def _parameter_type(receiver: Cursor) -> str | None:
    """The template parameter an object is declared with (`BASEDB db_;` in a class template:
    BASEDB), whose class the template's uses give (Iteration); libclang leaves such a type
    unexposed, and only the declaration's type reference names the parameter."""
    if native.cursor_type(receiver)._kind_id != TypeKind.UNEXPOSED.value:
        return None     # a type libclang knows (int, a class, a pointer), not a parameter's
    declared = native.referenced(receiver)
    if declared._kind_id not in (_K.FIELD_DECL.value, _K.VAR_DECL.value, _K.PARM_DECL.value):
        return None
    for child in native.children(declared):
        if child._kind_id == _K.TYPE_REF.value:
            named = native.referenced(child)
            return native.spelling(named) if named._kind_id == _K.TEMPLATE_TYPE_PARAMETER.value else None
    return None


def _made_parameter_type(variable: Cursor) -> str | None:
    """The class a variable of a template is made of, named after the template parameter it is
    written with: `PROTODB db;` PROTODB, `typename PROTODB::Cursor cur(&db);` PROTODB::Cursor."""
    if (parameter := _parameter_type(variable)) is None:
        return None
    spelled = native.type_spelling(variable).removeprefix("typename ")
    return spelled if spelled.startswith(f"{parameter}::") and spelled.replace("::", "").isidentifier() else parameter


def _invokes_macro(condition: Cursor, text: str) -> bool:
    """Whether a condition is spelled as a call (`END_OF_GROUP(i)`) that clang's tree says is
    no call: a function-like macro's invocation, whose expansion the tree holds."""
    spelled = text.strip()
    while spelled.startswith("(") and _closing(spelled, 0) == len(spelled) - 1:
        spelled = spelled[1:-1].strip()
    name, parenthesis, _ = spelled.partition("(")
    return (bool(parenthesis) and name.strip().isidentifier() and _closing(spelled, len(name)) == len(spelled) - 1
            and look_through(condition)._kind_id != _K.CALL_EXPR.value)


def _closing(text: str, opening: int) -> int:
    """Where the parenthesis opened at `opening` closes in a condition's text (-1: not in it)."""
    depth = 0
    for index in range(opening, len(text)):
        depth += {"(": 1, ")": -1}.get(text[index], 0)
        if depth == 0:
            return index
    return -1


def _under_copies(value: Cursor) -> Cursor:
    """The value under the one-argument constructions that copy or convert it (a closure copied,
    a std::function made from a lambda)."""
    while value._kind_id == _K.CALL_EXPR.value and native.referenced(value)._kind_id == _K.CONSTRUCTOR.value \
            and len(kids := native.children(value)) == 1:
        value = look_through(kids[0])
    return value


def _forwards(parts: list[Cursor]) -> bool:
    """Whether a definition's body only hands its work to another function: one `return g(...);`
    or `g(...);` (a wrapper)."""
    body = parts[-1] if parts else None
    if body is None or body._kind_id != _K.COMPOUND_STMT.value:
        return False
    statements = native.children(body)
    if len(statements) != 1:
        return False
    statement = statements[0]
    if statement._kind_id == _K.RETURN_STMT.value:
        values = native.children(statement)
        if len(values) != 1:
            return False
        statement = values[0]
    return call_under(statement) is not None


def _continues(body: Cursor) -> list[tuple[Cursor | None, Cursor]] | None:
    """Where a loop whose body ends by leaving it (its last statement a return, a break or a
    goto) goes round again: for each `continue` of its own (none of a nested loop's or a
    lambda's), the condition of the innermost if whose then-branch holds it (None: under no
    if, or in an else), and the continue.  None when the body runs to its end (Loop.repeats_when)."""
    statements = native.children(body) if body._kind_id == _K.COMPOUND_STMT.value else [body]
    if not statements or statements[-1]._kind_id not in _LEAVING | {_K.BREAK_STMT.value}:
        return None
    found: list[tuple[Cursor | None, Cursor]] = []

    def visit(node: Cursor, condition: Cursor | None) -> None:
        kind = node._kind_id
        if kind == _K.CONTINUE_STMT.value:
            found.append((condition, node))
        elif kind == _K.IF_STMT.value:
            kids = [kid for kid in native.children(node) if kid._kind_id != _K.DECL_STMT.value]
            for index, branch in enumerate(kids[1:3]):
                visit(branch, kids[0] if index == 0 else None)
        elif kind not in _LOOP_KINDS and kind != _K.LAMBDA_EXPR.value:
            for kid in native.children(node):
                visit(kid, condition)
    for statement in statements:
        visit(statement, None)
    return found


@dataclass(frozen=True)
class _LoopRegion:
    """Offsets where a loop's repeated part lies: after a for-loop's init clause up to its end."""

    id: int
    start: int
    end: int


class FactWalker:
    def __init__(self, tu: TranslationUnit, path: str, source: bytes, options: FrontendOptions) -> None:
        self._tu = tu
        self._path = path
        self._wanted = options.argument_callees
        self._cpp = options.language == "c++"
        self._file = native.MainFile(tu, path, source)
        self.exprs = ExprBuilder(self._file, source, tu)
        self.functions: list[Function] = []
        self.loops: list[Loop] = []
        self.calls: list[Call] = []
        self.assignments: list[Assignment] = []
        self.returns: list[Return] = []
        self.bare_returns: list[Span] = []      # FileFacts.bare_returns
        self.field_bindings: list[FieldBinding] = []
        self.classes: list[ClassBases] = []
        self.constructs: set[str] = set()   # classes made by value or with new (FileFacts.constructs)
        self.templates: list[Template] = []
        self.template_uses: list[TemplateUse] = []
        self._table: str | None = None     # the file-scope variable being initialised
        self._table_lists: set[int] = set()  # the lists of its elements, when it is an array of tables
        self.guards: list[Guard] = []
        self.branches: list[Span] = []       # FileFacts.branches
        self.alternatives: list[tuple[Span, Span]] = []     # FileFacts.alternatives
        self._function: str | None = None
        self._locals: set[str] = set()
        self._params: list[str] = []
        self._regions: list[_LoopRegion] = []
        self._switches: list[tuple[int, int]] = []
        self._ifs: list[tuple[Cursor, Cursor, Cursor]] = []
        self._declaring: set[tuple[int, int]] = set()     # the ifs whose condition declares a variable
        self._cases: list[tuple[Cursor, Cursor, Span]] = []   # leaving cases: subject, label, statements
        self._results: dict[int, Expr] = {}
        self._held_lambdas: dict[int, str] = {}     # a lambda a variable holds: the variable
        self._failure: BaseException | None = None
        self._visitor = native.Visitor(self._visit)
        self._top_level_visitor = native.Visitor(self._top_level)
        self._handlers: dict[int, Callable[[Cursor, Cursor], int]] = {
            _K.CALL_EXPR.value: self._call,
            _K.CXX_NEW_EXPR.value: self._new,
            _K.BINARY_OPERATOR.value: self._binary,
            _K.COMPOUND_ASSIGNMENT_OPERATOR.value: self._binary,
            _K.UNARY_OPERATOR.value: self._unary,
            _K.RETURN_STMT.value: self._return,
            _K.VAR_DECL.value: self._variable,
            _K.LAMBDA_EXPR.value: self._lambda,
            _K.PARM_DECL.value: self._parameter,
            _K.INIT_LIST_EXPR.value: self._init_list,
            _K.IF_STMT.value: self._if,
            _K.SWITCH_STMT.value: self._switch,
            _K.CONDITIONAL_OPERATOR.value: self._conditional,
            **{kind: self._loop for kind in _LOOP_KINDS},
        }

    def walk(self) -> None:
        self._walk_children(self._tu.cursor, self._top_level_visitor)

    def _top_level(self, cursor: Cursor, _parent: Cursor, _data: int) -> int:
        """Most of a translation unit's top level is declarations from headers: one check each."""
        if self._file.contains(cursor):
            try:
                self._declaration(cursor)
            except Exception as failure:   # see _visit
                self._failure = failure
                return _BREAK
        return native.CONTINUE

    def _declaration(self, cursor: Cursor) -> None:
        kind = cursor._kind_id
        if kind in _SCOPES:
            children = native.children(cursor)
            if self._cpp and kind in _CLASSES and native.is_definition(cursor) and (name := class_path(cursor)):
                self.classes.append(ClassBases(name, tuple(
                    base for child in children if child._kind_id == _K.CXX_BASE_SPECIFIER.value
                    if (base := class_path(native.type_declaration(child))) is not None)))
            if kind == _K.CLASS_TEMPLATE.value:
                self._template(cursor, children)
            for child in children:
                self._declaration(child)
        elif kind in _FUNCTIONS and native.is_definition(cursor):
            if kind == _K.FUNCTION_TEMPLATE.value:
                self._template(cursor, native.children(cursor))
            self._definition(cursor)
        elif kind in _ALIASES:
            if (use := template_use(native.aliased_type(cursor))) is not None:
                self.template_uses.append(replace(use, alias=native.spelling(cursor)))
        elif kind == _K.VAR_DECL.value:
            self._table = native.spelling(cursor)     # a table's initialiser binds its fields
            self._walk_from(cursor)
            self._table, self._table_lists = None, set()

    def _template(self, cursor: Cursor, children: list[Cursor]) -> None:
        self.templates.append(Template(native.spelling(cursor), tuple(
            native.spelling(child) if child._kind_id == _K.TEMPLATE_TYPE_PARAMETER.value else ""
            for child in children if child._kind_id in _TEMPLATE_PARAMETERS)))

    def _definition(self, cursor: Cursor) -> None:
        name = native.spelling(cursor)
        self._function = self._qualified(cursor, name)
        self._locals, self._regions, self._switches, self._ifs, self._cases = set(), [], [], [], []
        self._params = []
        if cursor._kind_id == _K.CONSTRUCTOR.value:
            self._member_initialisers(native.children(cursor))
        first_call, first_assignment = len(self.calls), len(self.assignments)
        self._walk_children(cursor)
        self._guards_of_ifs(self.calls[first_call:], self.assignments[first_assignment:])
        self.functions.append(Function(name, self._function, self._span(cursor), frozenset(self._locals),
                                       tuple(self._params), _forwards(native.children(cursor))))
        self._function = None
        self._regions = []

    def _member_initialisers(self, children: list[Cursor]) -> None:
        """`fd_(::open(path, O_RDONLY))` of a constructor's initialiser list sets the member, as
        an assignment would (one value in parentheses; a member of a class type made from one
        value takes that value).  Recorded before the walk, so that the open's result is the member."""
        for member, value in zip(children, children[1:]):
            if member._kind_id != _K.MEMBER_REF.value or value._kind_id == _K.INIT_LIST_EXPR.value:
                continue
            made = look_through(value)
            if made._kind_id == _K.CALL_EXPR.value and native.referenced(made)._kind_id == _K.CONSTRUCTOR.value:
                # as written: not the defaults the constructor adds (`std::string(p)`'s allocator)
                arguments = [arg for arg in native.children(made) if self.exprs.build(arg).text]
                if len(arguments) != 1:
                    continue
                value = arguments[0]
            name = native.spelling(member)
            target = Expr(IDENTIFIER, name, name)
            start, end = self._file.extent(member)[0], self._file.extent(value)[1]
            self.assignments.append(Assignment(target, "=", self.exprs.build(value), self._span_of(start, end),
                                               self._function, ()))
            self._note_result(value, target)

    @staticmethod
    def _qualified(cursor: Cursor, name: str) -> str:
        """`ns::Class::name`: the enclosing namespaces and classes, anonymous ones left out."""
        names = [name]
        parent = native.semantic_parent(cursor)
        while parent is not None and parent._kind_id in _QUALIFIERS:
            if scope := native.spelling(parent):
                names.append(scope)
            parent = native.semantic_parent(parent)
        return "::".join(reversed(names))

    @staticmethod
    def _called(shape: CallShape) -> Cursor | None:
        """The declaration of the function a call resolves to."""
        if shape.name_cursor is None:
            return None
        function = native.referenced(shape.name_cursor)
        return function if function._kind_id in _FUNCTIONS else None

    def _walk_from(self, cursor: Cursor) -> None:
        """Handle a file-scope cursor itself, then what is under it."""
        if self._handlers[cursor._kind_id](cursor, self._tu.cursor) == native.RECURSE:
            self._walk_children(cursor)

    def _walk_children(self, cursor: Cursor, visitor: native.Visitor | None = None) -> None:
        native.visit(cursor, visitor or self._visitor)
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise failure

    def _visit(self, cursor: Cursor, parent: Cursor, _data: int) -> int:
        handler = self._handlers.get(cursor._kind_id)
        if handler is None:
            return native.RECURSE
        try:
            return handler(cursor, parent)
        except Exception as failure:   # ctypes would print and drop it; re-raised by _walk_children
            self._failure = failure
            return _BREAK

    # --- helpers -----------------------------------------------------------------------------

    def _span_of(self, start: native.Position, end: native.Position) -> Span:
        return Span(self._path, start[0], start[1], end[0], max(end[1] - 1, 1))

    def _span(self, cursor: Cursor) -> Span:
        return self._span_of(*self._file.extent(cursor))

    def _loops_at(self, offset: int) -> tuple[int, ...]:
        return tuple(region.id for region in self._regions if region.start <= offset < region.end)

    def _assign(self, cursor: Cursor, target: Expr, op: str, value: Expr | None) -> None:
        start, end = self._file.extent(cursor)
        self.assignments.append(Assignment(
            target, op, value, self._span_of(start, end), self._function, self._loops_at(start[2])))

    def _note_result(self, value: Cursor, target: Expr) -> None:
        call = call_under(value)
        if call is not None:
            self._results[native.identity(call)] = target

    # --- handlers: each returns RECURSE or CONTINUE ------------------------------------------

    def _call(self, cursor: Cursor, _parent: Cursor) -> int:
        shape = call_shape(cursor, self._tu)
        if shape is None:
            self._overloaded_assignment(cursor)
            self._manipulator(cursor)
            self._construction(cursor)
            return native.RECURSE
        target = None
        if (function := self._called(shape)) is not None:
            name = native.spelling(function)
            target = self._qualified(function, name)
            if self._cpp and function._kind_id == _K.FUNCTION_DECL.value:
                self._template_call(function, name, shape, cursor)
        if target is not None and target.startswith("std::") and shape.callee in ALGORITHMS and shape.arguments:
            self._element_loop(f"std::{shape.callee}", shape.arguments[-1])
        elif target == shape.callee and WALKS.get(target, len(shape.arguments)) < len(shape.arguments):
            self._element_loop(target, shape.arguments[WALKS[target]])
        start, end = self._file.extent(cursor)
        if shape.callee == "flush" and shape.receiver is not None and target is not None \
                and target.split("::")[0] == "std" and target.split("::")[-2] in STREAM_CLASSES:
            # out.flush() is out << std::flush
            self.calls.append(Call(callee="std::flush", span=self._span_of(start, end), function=self._function,
                                   loops=self._loops_at(start[2]), args=(self.exprs.build(shape.receiver),)))
            return native.RECURSE
        macro = self._macro_of(shape)
        wanted = shape.callee in self._wanted or (macro is not None and macro in self._wanted) \
            or EVERY_CALL in self._wanted
        self.calls.append(Call(
            callee=shape.callee,
            span=self._span_of(start, end),
            function=self._function,
            loops=self._loops_at(start[2]),
            args=tuple(self.exprs.build(arg) for arg in shape.arguments) if wanted else None,
            result=self._results.pop(native.identity(cursor), None),
            macro=macro,
            via_field=shape.via_field,
            target=target,
            receiver=self.exprs.build(shape.receiver) if shape.receiver is not None else None,
            field_of=self._field_of(shape) if shape.via_field else None,
        ))
        return native.RECURSE

    def _construction(self, cursor: Cursor) -> None:
        """An object made with arguments as written (`LogFile log(path)`, `LogFile{path}`,
        `new LogFile(path)`): a call of its class's constructor, named like the class as C++
        names constructors, its result the variable declared.  Not a conversion or copy the
        compiler adds (its one argument is all of its text)."""
        constructor = native.referenced(cursor)
        if constructor._kind_id != _K.CONSTRUCTOR.value:
            return
        arguments = native.children(cursor)
        if not arguments or added_by_compiler(cursor, arguments, self._file):
            return
        extent = self._file.extent(cursor)
        name = native.spelling(constructor)
        self._constructor_call(name, self._qualified(constructor, name), arguments, extent,
                               self._results.pop(native.identity(cursor), None))

    def _constructor_call(self, name: str, target: str, arguments: list[Cursor],
                          extent: tuple[native.Position, native.Position], result: Expr | None = None) -> None:
        """A call of class `name`'s constructor `target` with these arguments, over `extent`."""
        start, end = extent
        self.calls.append(Call(
            callee=name, span=self._span_of(start, end), function=self._function, loops=self._loops_at(start[2]),
            args=tuple(self.exprs.build(arg) for arg in arguments)
            if name in self._wanted or EVERY_CALL in self._wanted else None,
            result=result, target=target))

    def _template_call(self, function: Cursor, name: str, shape: CallShape, call: Cursor) -> None:
        """A call of a function template's specialization: the arguments it gives the template.
        One that is itself a class template's specialization is named by its spelling
        (`Layered<Disk>`), with an alias use saying its template and arguments, as a typedef's
        name would (libclang gives the argument's canonical type, not the typedef it was written as)."""
        if not (kinds := native.call_template_arguments(function)):
            return
        if name in FACTORIES and (made := class_path(declared := native.declaration_of(kinds[0]))) is not None:
            self._made(made, kinds[0])      # std::make_unique<T>(...): a T, as new T makes,
            spelled = native.spelling(declared)     # and a call of T's constructor there
            self._constructor_call(spelled, f"{self._qualified(declared, spelled)}::{spelled}", shape.arguments,
                                   self._file.extent(call))
        names = []
        for kind in kinds:
            if (use := template_use(kind)) is not None:
                names.append(native.canonical_spelling(kind))
                self.template_uses.append(replace(use, alias=names[-1]))
            else:
                names.append(struct_name(native.declaration_of(kind)) or "")
        self.template_uses.append(TemplateUse(name, tuple(names)))

    def _field_of(self, shape: CallShape) -> str | None:
        """The struct declaring the field a call goes through; for a method, the class of the
        object it is called on (`db_->set()` on a CacheDB runs CacheDB's set, or an override's)."""
        member = native.referenced(shape.name_cursor)
        if member._kind_id == _K.FIELD_DECL.value:
            return owner_of(member)
        if shape.receiver is None:
            return None
        if shape.receiver._kind_id == _K.TYPE_REF.value:
            # `Policy::commit(fd)` in a template: a static method of the classes its uses give
            # the parameter (its type is the parameter's, as for a `Policy policy_` member)
            named = native.referenced(shape.receiver)
            return native.spelling(named) if named._kind_id == _K.TEMPLATE_TYPE_PARAMETER.value else None
        return struct_name(native.object_declaration(shape.receiver)) or (
            _parameter_type(shape.receiver) if self._cpp else None)

    def _element_loop(self, kind: str, callable_: Cursor) -> None:
        """A standard algorithm or a walk of the C library handed a lambda or a function: the
        lambda's body is a loop's body (the region is added before the walk enters it), a named
        function (or a variable holding one: a lambda, a pointer) is called once per iteration
        of a loop over the range, recorded at the argument."""
        value = look_through(callable_)
        if value._kind_id == _K.UNARY_OPERATOR.value and native.unary_operator(value) == "&":
            value = look_through(native.children(value)[0])
        value = _under_copies(value)        # a copy of the closure a variable holds
        lambda_ = value._kind_id == _K.LAMBDA_EXPR.value
        referenced = native.referenced(value) if value._kind_id == _K.DECL_REF_EXPR.value else None
        if not lambda_ and (referenced is None or referenced._kind_id not in _CALLABLE | {_K.VAR_DECL.value}):
            return
        start, end = self._file.extent(value)
        loop_id = len(self.loops)
        self._regions.append(_LoopRegion(loop_id, start[2], end[2]))
        self.loops.append(Loop(loop_id, kind, self._span_of(start, end), self._function))
        if not lambda_:
            self.calls.append(Call(
                callee=native.spelling(value), span=self._span_of(start, end), function=self._function,
                loops=self._loops_at(start[2]), args=(),
                target=self._qualified(referenced, native.spelling(referenced))
                if referenced._kind_id in _CALLABLE else None))

    def _manipulator(self, cursor: Cursor) -> None:
        """`out << x << std::endl`: a flush of the stream the insertions start from."""
        if native.spelling(cursor) != "operator<<":
            return
        parts = native.children(cursor)
        inserted = look_through(parts[-1]) if len(parts) == 3 else None
        if inserted is None or inserted._kind_id not in (_K.DECL_REF_EXPR.value, _K.OVERLOADED_DECL_REF.value):
            return
        name = native.spelling(inserted)
        if name not in FLUSHING_MANIPULATORS or not self._qualified(native.referenced(inserted), name).startswith("std::"):
            return
        stream = parts[0]
        while look_through(stream)._kind_id == _K.CALL_EXPR.value and native.spelling(look_through(stream)) == "operator<<":
            stream = native.children(look_through(stream))[0]
        start, end = self._file.extent(cursor)
        self.calls.append(Call(callee=f"std::{name}", span=self._span_of(start, end), function=self._function,
                               loops=self._loops_at(start[2]), args=(self.exprs.build(stream),)))

    def _macro_of(self, shape: CallShape) -> str | None:
        """The macro name written where the callee's name should be, when the call is a macro's body."""
        if shape.name_cursor is None:
            return None
        where = self._file.location(shape.name_cursor)
        if self._file.written_as(where, shape.callee):
            return None
        if shape.via_field and dependent_member(self._tu, shape.name_cursor) == shape.callee:
            return None     # a member of a template's dependent object (`storage_.slots()`): placed at the object
        with native.Tokens(self._tu, native.file_range(self._tu, where, where)) as tokens:
            written = next((tokens.spelling(token) for token in tokens), None)
        if written is None or written == shape.callee or not written.isidentifier():
            return None
        return written

    def _loop(self, cursor: Cursor, _parent: Cursor) -> int:
        kind = _LOOP_KINDS[cursor._kind_id]
        kids = native.children(cursor)
        if kind == "do" and native.evaluate_int(kids[-1]) == 0:
            return native.RECURSE     # do { ... } while (0): a statement macro's wrapper, runs once
        start, end = self._file.extent(cursor)
        condition = None
        if kind == "for":
            repeated_from, condition_end = self._for_clauses(cursor, start)
            condition = next((kid for kid in kids[:-1]
                              if repeated_from <= self._file.extent(kid)[0][2] < condition_end), None)
            if condition is None and repeated_from == start[2] and len(kids) > 1 \
                    and all(self._file.extent(kid) == (start, end) for kid in kids):
                condition = self._expanded_condition(cursor, kids)
        else:
            repeated_from = start[2]
            condition = {"while": kids[0], "do": kids[-1]}.get(kind) if len(kids) == 2 else None
        loop_id = len(self.loops)
        self._regions.append(_LoopRegion(loop_id, repeated_from, end[2]))
        going_round = _continues(kids[0] if kind == "do" else kids[-1])
        self.loops.append(Loop(loop_id, kind, self._span_of(start, end), self._function,
                               self.exprs.build(condition) if condition is not None else None,
                               None if going_round is None else tuple(
                                   self.exprs.build(c) if c is not None else Expr(OTHER, "continue")
                                   for c, _ in going_round),
                               tuple(self._span(at) for _, at in going_round or ())))
        return native.RECURSE

    def _breaks_loop(self, statement: Cursor) -> bool:
        """Whether a break at this statement leaves a loop: it is in one, and in no switch
        inside that loop."""
        offset = self._file.extent(statement)[0][2]
        loops = [region for region in self._regions if region.start <= offset < region.end]
        if not loops:
            return False
        innermost = max(region.start for region in loops)
        return not any(innermost <= start <= offset < end for start, end in self._switches)

    def _switch(self, cursor: Cursor, _parent: Cursor) -> int:
        self._switches.append(self._offsets(cursor))
        body = native.children(cursor)[-1:]
        if body and body[0]._kind_id == _K.COMPOUND_STMT.value:
            # each case runs from its label to the next one's (its label's statement holds only
            # the first statement after it)
            statements = native.children(body[0])
            labels = [i for i, statement in enumerate(statements) if statement._kind_id in _CASE_LABELS]
            for first, after in zip(labels, labels[1:] + [len(statements)]):
                span = self._span_of(self._file.extent(statements[first])[0], self._file.extent(statements[after - 1])[1])
                self.branches.append(span)
                last = statements[after - 1]
                while last._kind_id in _CASE_LABELS and native.children(last):
                    last = native.children(last)[-1]     # `case A: return x;`: the label holds its statement
                if statements[first]._kind_id == _K.CASE_STMT.value and self._ends_leaving(last, cursor):
                    self._cases.append((native.children(cursor)[-2], native.children(statements[first])[0], span))
        return native.RECURSE

    def _ends_leaving(self, last: Cursor, statement: Cursor) -> bool:
        """Whether a branch whose last statement this is leaves the loop around `statement`: a
        return, a goto, a break out of that loop, exit()."""
        return last._kind_id in _LEAVING or (
            last._kind_id == _K.BREAK_STMT.value and self._breaks_loop(statement)) or (
            last._kind_id == _K.CALL_EXPR.value and native.spelling(last) in PROCESS_ENDS)

    def _offsets(self, cursor: Cursor) -> tuple[int, int]:
        start, end = self._file.extent(cursor)
        return start[2], end[2]

    def _for_clauses(self, loop: Cursor, start: native.Position) -> tuple[int, int]:
        """The offsets just past the `;` that ends a for-loop's init clause and of the `;`
        that ends its condition, found by clang's lexer: children alone do not say which
        clauses are empty."""
        body_start = self._file.extent(native.children(loop)[-1])[0]
        depth, semicolons = 0, []
        with native.Tokens(self._tu, native.file_range(self._tu, start, body_start)) as tokens:
            for token in tokens:
                if tokens.kind(token) != native.PUNCTUATION:
                    continue
                text = tokens.spelling(token)
                depth += {"(": 1, ")": -1}.get(text, 0)
                if text == ";" and depth == 1:
                    semicolons.append(tokens.start(token)[2])
        if len(semicolons) < 2:
            return start[2], start[2]
        return semicolons[0] + 1, semicolons[1]

    @staticmethod
    def _expanded_condition(loop: Cursor, kids: list[Cursor]) -> Cursor:
        """The condition of a for loop a macro expands to (glibc's FD_ZERO), whose clauses all
        sit at the invocation, so that no offset tells them apart: with all four clauses, the
        second.  One with a clause left empty is not known: the loop stands for its condition
        (an opaque one), so that it is never taken to be endless."""
        return kids[1] if len(kids) == 4 else loop

    def _if(self, cursor: Cursor, _parent: Cursor) -> int:
        """The then-branch is a guard, made when the function is done (_guards_of_ifs).  C++
        puts an init statement first, and a condition variable in place of the condition
        (built as an opaque expression)."""
        everything = native.children(cursor)
        kids = [kid for kid in everything if kid._kind_id not in (_K.DECL_STMT.value, _K.VAR_DECL.value)]
        if len(kids) >= 2:
            self._ifs.append((cursor, kids[0], kids[1]))
            if len(kids) < len(everything) and everything[0]._kind_id == _K.VAR_DECL.value:
                self._declaring.add(self._offsets(cursor))
        self.branches.extend(self._span(branch) for branch in kids[1:3])     # then, else
        if len(kids) >= 3:
            self.alternatives.append((self._span(kids[1]), self._span(kids[2])))
        return native.RECURSE

    def _conditional(self, cursor: Cursor, _parent: Cursor) -> int:
        """The arms of `?:` run on some paths only (GNU `a ?: b`: its last)."""
        kids = native.children(cursor)
        self.branches.extend(self._span(arm) for arm in kids[1:])
        if len(kids) == 3:
            self.alternatives.append((self._span(kids[1]), self._span(kids[2])))
        return native.RECURSE

    def _guards_of_ifs(self, calls: list[Call], assignments: list[Assignment]) -> None:
        """Guards for the function's ifs with a call in their then-branch: no question is asked
        of the others (building their conditions would cost ctypes calls for nothing), but
        whether one that leaves is kept all the same (frequency.kept_without_call)."""
        starts = sorted((call.span.line, call.span.column) for call in calls)
        outer: list[tuple[int, int]] = []     # the ifs' and switches' extents, when a leaving guard asks

        def nested(statement: Cursor) -> bool:
            if not outer:
                outer.extend([self._offsets(s) for s, _, _ in self._ifs] + self._switches)
            start, end = self._offsets(statement)
            return any(o_start <= start and end <= o_end and (o_start, o_end) != (start, end)
                       for o_start, o_end in outer)

        reads_clock = any(call.callee in CLOCKS for call in calls)
        for statement, condition, then in self._ifs:
            span = self._span(then)
            first = bisect_left(starts, (span.line, span.column))
            has_call = first < len(starts) and starts[first] <= (span.end_line, span.end_column)
            last = native.children(then)[-1:] if then._kind_id == _K.COMPOUND_STMT.value else [then]
            leaves = bool(last) and self._ends_leaving(last[0], statement)
            text = self.exprs.cursor_text(condition)
            names_parameter = any(param and param in text for param in self._params)
            timed = reads_clock and may_time(text)
            if not has_call and not (leaves and (may_bound(text) or may_matter(text) or names_parameter or timed)):
                continue    # (the names are checked on the condition built below)
            # an if of a macro body sits at the invocation, and a condition spelled as one
            # (`if (END_OF_GROUP(i))`) is the macro's value: their text says nothing of the condition
            expanded = self._span(condition) == span or _invokes_macro(condition, text)
            built = (self.exprs.build(condition) if may_matter(text) or not has_call or expanded or names_parameter
                     else Expr(OTHER, shortened(text)))
            if has_call or kept_without_call(built, set(self._params), timed, lambda name: any(
                    a.op == "=" and a.function == self._function and a.target.kind in (IDENTIFIER, MEMBER)
                    and a.target.op == name
                    and (a.span.line, a.span.column) > (span.end_line, span.end_column) for a in assignments)):
                self.guards.append(Guard(built, span, self._function, leaves=leaves,
                                         nested=leaves and nested(statement),
                                         declares=self._offsets(statement) in self._declaring))
        # a case that ends by leaving: what runs from its label on runs on the way out, as under
        # an if that returns (`case ST_COMMIT: fsync(fd); return 0;`), guarded by `value == label`
        for subject, label, span in self._cases:
            first = bisect_left(starts, (span.line, span.column))
            if first < len(starts) and starts[first] <= (span.end_line, span.end_column):
                compared = self.exprs.build(subject), self.exprs.build(label)
                self.guards.append(Guard(Expr(BINARY, f"{compared[0].text} == {compared[1].text}", "==", compared),
                                         span, self._function, leaves=True, nested=True))

    def _binary(self, cursor: Cursor, _parent: Cursor) -> int:
        op = native.binary_operator(cursor)
        if op in ("&&", "||"):      # its right side runs on some paths only
            self.branches.append(self._span(native.children(cursor)[-1]))
            if op == "&&":          # when the left holds: a guard, as an if's then-branch is
                self._ifs.append((cursor, *native.children(cursor)[:2]))
        elif is_assignment_operator(op):
            left, right = native.children(cursor)
            target = self.exprs.build(left)
            self._assign(cursor, target, op, self._held_lambda(left, right) if op == "=" else self.exprs.build(right))
            if op == "=":
                self._note_result(right, target)
                self._fields_assigned(target, right)
                member = look_through(left)
                if member._kind_id == _K.MEMBER_REF_EXPR.value:    # ops->queue = mmap_queue
                    field = native.referenced(member)
                    self._bind(native.spelling(field), right, cursor, None, owner_of(field))
        return native.RECURSE

    def _overloaded_assignment(self, cursor: Cursor) -> None:
        """`s += "x"` and `++it` on class types are operator calls: children (left, operator[, right])."""
        op = native.spelling(cursor).removeprefix("operator")
        if op in ("++", "--"):
            self._assign(cursor, self.exprs.build(native.children(cursor)[0]), op, None)
        elif is_assignment_operator(op):
            parts = native.children(cursor)
            if len(parts) == 3:
                self._assign(cursor, self.exprs.build(parts[0]), op,
                             self._held_lambda(parts[0], parts[2]) if op == "=" else self.exprs.build(parts[2]))

    def _held_lambda(self, target: Cursor, value: Cursor) -> Expr:
        """The value assigned.  A lambda given to a variable or a field (into a std::function or
        a function pointer) is a function of its own (_lambda), named by the variable or field
        within the function it is written in: a call of the variable runs it, and the value a
        field is given (`b.on_event = [&](const Event &e) {...};`) is that function, which the
        field's calls run."""
        made = _under_copies(look_through(value))      # std::function's constructor from the lambda
        holder = look_through(target)
        if made._kind_id != _K.LAMBDA_EXPR.value or self._function is None \
                or holder._kind_id not in (_K.MEMBER_REF_EXPR.value, _K.DECL_REF_EXPR.value):
            return self.exprs.build(value)
        name = native.spelling(holder)
        self._held_lambdas[native.identity(made)] = name
        if holder._kind_id != _K.MEMBER_REF_EXPR.value:
            return self.exprs.build(value)
        return Expr(IDENTIFIER, f"{self._function}.{name}", f"{self._function}.{name}")

    def _unary(self, cursor: Cursor, _parent: Cursor) -> int:
        op = native.unary_operator(cursor)
        if op in ("++", "--"):
            self._assign(cursor, self.exprs.build(native.children(cursor)[0]), op, None)
        return native.RECURSE

    def _return(self, cursor: Cursor, _parent: Cursor) -> int:
        value = native.children(cursor)
        if value and self._function is not None:
            self.returns.append(Return(self.exprs.build(value[0]), self._span(cursor), self._function))
        elif self._function is not None:
            self.bare_returns.append(self._span(cursor))
        return native.RECURSE

    def _new(self, cursor: Cursor, _parent: Cursor) -> int:
        if (made := class_path(native.object_declaration(cursor))) is not None:
            self._made(made, native.pointee(native.cursor_type(cursor)))
        return native.RECURSE

    def _made(self, name: str, kind) -> None:
        """An object of a class is made (of a class template's: with which arguments)."""
        self.constructs.add(name)
        if (use := template_use(kind)) is not None:
            self.template_uses.append(replace(use, made=True))

    def _variable(self, cursor: Cursor, parent: Cursor) -> int:
        name = native.spelling(cursor)
        if (made := class_path(native.type_declaration(cursor)) or (
                _made_parameter_type(cursor) if self._cpp else None)) is not None:
            self._made(made, native.cursor_type(cursor))       # by value: a pointer's or a reference's type declares nothing
        if self._function is not None:
            self._locals.add(name)
        if parent._kind_id == _K.CXX_FOR_RANGE_STMT.value:
            # The loop variable: its initialiser is implicit (`*__begin`); it takes each element of the range.
            elements = native.children(parent)[1]
            self._assign(cursor, Expr(IDENTIFIER, name, name), RANGE_ELEMENT, self.exprs.build(elements))
            return native.CONTINUE
        value = native.initializer(cursor)
        # An implicit default construction (`Mapping m;`) starts at the name, a written one after it.
        if value is not None and self._file.extent(value)[0][2] > self._file.location(cursor)[2]:
            target = Expr(IDENTIFIER, name, name)
            self._assign(cursor, target, "=", self.exprs.build(value))
            self._note_result(value, target)
            self._fields_assigned(target, value)
        elif value is not None:
            self._note_result(value, Expr(IDENTIFIER, name, name))     # `File f(path)`: the object made
        while value is not None and value._kind_id == _K.UNEXPOSED_EXPR.value and len(kids := native.children(value)) == 1:
            value = kids[0]
        if value is not None and value._kind_id == _K.LAMBDA_EXPR.value:
            self._held_lambdas[native.identity(value)] = name
        return native.RECURSE

    def _lambda(self, cursor: Cursor, _parent: Cursor) -> int:
        """A lambda a variable holds (`auto persist = [&](size_t off) {...};`): a function of its
        own, named by the variable within the function it is written in (`main.persist`, its
        name too: no call elsewhere names it), which a call of the variable runs.  Any other
        lambda's body stays part of its function."""
        variable = self._held_lambdas.pop(native.identity(cursor), None)
        if variable is None:
            return native.RECURSE
        outer = (self._function, self._locals, self._params, self._regions, self._switches, self._ifs, self._cases)
        self._function = f"{outer[0]}.{variable}" if outer[0] is not None else variable
        self._locals, self._params, self._regions, self._switches, self._ifs, self._cases = set(), [], [], [], [], []
        first_call, first_assignment = len(self.calls), len(self.assignments)
        self._walk_children(cursor)
        self._guards_of_ifs(self.calls[first_call:], self.assignments[first_assignment:])
        self.functions.append(Function(self._function, self._function, self._span(cursor), frozenset(self._locals),
                                       tuple(self._params), _forwards(native.children(cursor))))
        self._function, self._locals, self._params, self._regions, self._switches, self._ifs, self._cases = outer
        return native.CONTINUE

    def _parameter(self, cursor: Cursor, parent: Cursor) -> int:
        name = native.spelling(cursor)
        if self._function is not None and name:   # unnamed: a parameter of a function-pointer type
            self._locals.add(name)
        if self._function is not None and (parent._kind_id in _FUNCTIONS or parent._kind_id == _K.LAMBDA_EXPR.value):
            self._params.append(name)               # one of the definition's own, in order
        return native.CONTINUE

    def _init_list(self, cursor: Cursor, parent: Cursor) -> int:
        items = native.children(cursor)
        # the table: the variable's own list, or an element of its array's list (not a nested member's)
        table = None
        if self._table is not None and parent._kind_id == _K.VAR_DECL.value:
            table = self._table
            if native.type_spelling(cursor).endswith("]"):      # an array of tables
                self._table_lists = {native.identity(item) for item in items if item._kind_id == _K.INIT_LIST_EXPR.value}
                table = None
        elif self._table is not None and native.identity(cursor) in self._table_lists:
            table = self._table
        for fields, value, item in self._list_fields(cursor, items):
            self._bind(native.spelling(fields[-1]), value, item, table, owner_of(fields[-1]))
        return native.RECURSE

    def _list_fields(self, cursor: Cursor, items: list[Cursor]) -> list[tuple[list[Cursor], Cursor, Cursor]]:
        """The fields a brace list of a struct gives values, each (the field declarations of its
        designator, the value, the item): by designator (`.base = p`; `.a.b = p` names two) when
        the list has any, else by position in the struct's declaration."""
        designated = [(item, parts) for item in items if item._kind_id == _K.UNEXPOSED_EXPR.value
                      for parts in [native.children(item)] if parts and parts[0]._kind_id == _K.MEMBER_REF.value]
        if designated:
            return [([native.referenced(part) for part in parts if part._kind_id == _K.MEMBER_REF.value], parts[-1], item)
                    for item, parts in designated]
        return [([field], item, item) for field, item in zip(self._fields_of(native.type_declaration(cursor)), items)]

    def _fields_assigned(self, target: Expr, value: Cursor | None) -> None:
        """What a brace list gives each field of the struct it initialises (`struct region r =
        {.base = p, .len = n}`, `r = (struct region){...}`, `Segment s{p, n}`) is assigned to
        that field of the target, as `r.base = p` would be; a nested list, to the fields of
        that field.  In functions only: a file-scope list holds constants and functions
        (FieldBinding), not memory a value flows into."""
        brace = _brace_list(value)
        if brace is None or self._function is None:
            return
        for fields, given, item in self._list_fields(brace, native.children(brace)):
            member = target
            for field in fields:
                name = native.spelling(field)
                member = Expr(MEMBER, f"{member.text}.{name}", name, (member,), field_of=owner_of(field))
            if _brace_list(given) is not None:
                self._fields_assigned(member, given)
                continue
            start, end = self._file.extent(item)[0], self._file.extent(given)[1]
            self.assignments.append(Assignment(member, "=", self.exprs.build(given), self._span_of(start, end),
                                               self._function, self._loops_at(start[2])))

    @staticmethod
    def _fields_of(declaration: Cursor | None) -> list[Cursor]:
        """The field declarations in order when the list initialises a struct, else none."""
        if declaration is None or declaration._kind_id not in (_K.STRUCT_DECL.value, _K.CLASS_DECL.value):
            return []
        return [field for field in native.children(declaration) if field._kind_id == _K.FIELD_DECL.value]

    def _bind(self, field: str, value: Cursor, span_from: Cursor, table: str | None, struct: str | None) -> None:
        """Record `field = function` when the value is a function's bare name or its address
        (`&f`, a static member's `&C::f`)."""
        value = look_through(value)
        if value._kind_id == _K.UNARY_OPERATOR.value and native.unary_operator(value) == "&":
            value = look_through(native.children(value)[0])
        if value._kind_id != _K.DECL_REF_EXPR.value or native.referenced(value)._kind_id not in _CALLABLE:
            return
        name = native.spelling(value)
        spelled = self.exprs.cursor_text(value)
        if spelled == name or spelled.endswith("::" + name):
            start = self._file.extent(span_from)[0]
            end = self._file.extent(value)[1]
            self.field_bindings.append(FieldBinding(field, name, self._span_of(start, end), table, struct))


def _brace_list(value: Cursor | None) -> Cursor | None:
    """The brace list a value is, as written or as a compound literal's (`(struct region){...}`)."""
    value = look_through(value) if value is not None else None
    if value is not None and value._kind_id == _K.COMPOUND_LITERAL_EXPR.value:
        value = native.children(value)[-1] if native.children(value) else None
    return value if value is not None and value._kind_id == _K.INIT_LIST_EXPR.value else None
