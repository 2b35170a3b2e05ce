"""The libclang C functions the facts walker needs, bound through ctypes.

The Python bindings of libclang 18 lack constant evaluation, operator kinds
and file locations, and their generic visitor allocates several Python objects
per cursor, which alone made walking a big file's AST cost twice its parse; the
walker calls these thin wrappers instead (one ctypes call per question).
They use their own handle on the bindings' library so that the argument types
declared here never interfere with clang.cindex's own declarations.
"""
from __future__ import annotations

from ctypes import (CDLL, CFUNCTYPE, POINTER, Structure, addressof, byref, c_char_p, c_int, c_longlong, c_uint,
                    c_ulonglong, c_void_p, cast, sizeof)
from bisect import bisect_right
from functools import cache
from itertools import accumulate
from typing import Callable, Iterator

from clang.cindex import Cursor, CursorKind, SourceLocation, SourceRange, Token, TranslationUnit, Type, conf

CONTINUE = 1      # CXChildVisit_Continue: do not visit this cursor's children
RECURSE = 2       # CXChildVisit_Recurse
PUNCTUATION = 0   # CXToken_Punctuation
COMMENT = 4       # CXToken_Comment
_EVAL_INT = 1     # CXEval_Int
_POINTER_TYPE = 101    # CXType_Pointer
_LVALUE_REFERENCE, _RVALUE_REFERENCE = 103, 104     # CXType_LValueReference, CXType_RValueReference
# The declarations a sizeof is named by (measured_declaration): structs, unions, classes, typedefs.
_MEASURED = frozenset(kind.value for kind in (CursorKind.STRUCT_DECL, CursorKind.UNION_DECL, CursorKind.CLASS_DECL,
                                              CursorKind.TYPEDEF_DECL, CursorKind.TYPE_ALIAS_DECL))

Visitor = CFUNCTYPE(c_int, Cursor, Cursor, c_void_p)
Position = tuple[int, int, int, int]   # file location: line, column, byte offset, CXFile handle


class _CXString(Structure):
    """libclang's string result, read and disposed here; the bindings' own class does both through
    their checked wrappers, which made a cursor's spelling cost as much as three plain calls."""

    _fields_ = [("data", c_void_p), ("private_flags", c_uint)]


@cache
def _lib() -> CDLL:
    lib = CDLL(conf.lib._name)
    signatures = [
        ("clang_visitChildren", [Cursor, Visitor, c_void_p], c_uint),
        ("clang_getCursorExtent", [Cursor], SourceRange),
        ("clang_getCursorLocation", [Cursor], SourceLocation),
        ("clang_getRangeStart", [SourceRange], SourceLocation),
        ("clang_getRangeEnd", [SourceRange], SourceLocation),
        ("clang_getFileLocation",
         [SourceLocation, POINTER(c_void_p), POINTER(c_uint), POINTER(c_uint), POINTER(c_uint)], None),
        ("clang_getExpansionLocation",
         [SourceLocation, POINTER(c_void_p), POINTER(c_uint), POINTER(c_uint), POINTER(c_uint)], None),
        ("clang_Location_isFromMainFile", [SourceLocation], c_int),
        ("clang_getCursorSpelling", [Cursor], _CXString),
        ("clang_getCursorReferenced", [Cursor], Cursor),
        ("clang_hashCursor", [Cursor], c_uint),
        ("clang_getCursorType", [Cursor], Type),
        ("clang_getCanonicalType", [Type], Type),
        ("clang_getTypeDeclaration", [Type], Cursor),
        ("clang_getPointeeType", [Type], Type),
        ("clang_getTypedefDeclUnderlyingType", [Cursor], Type),
        ("clang_Type_getNumTemplateArguments", [Type], c_int),
        ("clang_Type_getTemplateArgumentAsType", [Type, c_uint], Type),
        ("clang_Cursor_getNumTemplateArguments", [Cursor], c_int),
        ("clang_Cursor_getTemplateArgumentType", [Cursor, c_uint], Type),
        ("clang_getCursorSemanticParent", [Cursor], Cursor),
        ("clang_isCursorDefinition", [Cursor], c_uint),
        ("clang_Cursor_getVarDeclInitializer", [Cursor], Cursor),
        ("clang_Cursor_isNull", [Cursor], c_int),
        ("clang_getLocationForOffset", [TranslationUnit, c_void_p, c_uint], SourceLocation),
        ("clang_getTypeSpelling", [Type], _CXString),
        ("clang_Type_getSizeOf", [Type], c_longlong),
        ("clang_Cursor_Evaluate", [Cursor], c_void_p),
        ("clang_EvalResult_getKind", [c_void_p], c_int),
        ("clang_EvalResult_isUnsignedInt", [c_void_p], c_uint),
        ("clang_EvalResult_getAsLongLong", [c_void_p], c_longlong),
        ("clang_EvalResult_getAsUnsigned", [c_void_p], c_ulonglong),
        ("clang_EvalResult_dispose", [c_void_p], None),
        ("clang_getCursorBinaryOperatorKind", [Cursor], c_int),
        ("clang_getBinaryOperatorKindSpelling", [c_int], _CXString),
        ("clang_getCursorUnaryOperatorKind", [Cursor], c_int),
        ("clang_getUnaryOperatorKindSpelling", [c_int], _CXString),
        ("clang_tokenize", [TranslationUnit, SourceRange, POINTER(POINTER(Token)), POINTER(c_uint)], None),
        ("clang_disposeTokens", [TranslationUnit, POINTER(Token), c_uint], None),
        ("clang_getTokenKind", [Token], c_int),
        ("clang_getTokenSpelling", [TranslationUnit, Token], _CXString),
        ("clang_getTokenExtent", [TranslationUnit, Token], SourceRange),
        ("clang_getTokenLocation", [TranslationUnit, Token], SourceLocation),
        ("clang_getCString", [_CXString], c_char_p),
        ("clang_disposeString", [_CXString], None),
    ]
    for name, argtypes, restype in signatures:
        function = getattr(lib, name)
        function.argtypes = argtypes
        function.restype = restype
    return lib


def load() -> None:
    """Load libclang and declare its functions now (a process about to fork parsing workers)."""
    _lib()


def _string(value: _CXString) -> str | None:
    lib = _lib()
    try:
        text = lib.clang_getCString(value)
        return None if text is None else text.decode("utf8")
    finally:
        lib.clang_disposeString(value)


def visit(cursor: Cursor, visitor: Visitor) -> None:
    """Run `visitor(child, parent, None)` over the children; it returns CONTINUE or RECURSE."""
    _lib().clang_visitChildren(cursor, visitor, None)


_collected: list[list[Cursor]] = []   # one list per children() call in progress (they nest)


@Visitor
def _collect(child: Cursor, _parent: Cursor, _data: int) -> int:
    _collected[-1].append(child)
    return CONTINUE


def children(cursor: Cursor) -> list[Cursor]:
    _collected.append([])
    _lib().clang_visitChildren(cursor, _collect, None)
    return _collected.pop()


def spelling(cursor: Cursor) -> str:
    return _string(_lib().clang_getCursorSpelling(cursor))


def referenced(cursor: Cursor) -> Cursor:
    return _lib().clang_getCursorReferenced(cursor)


def type_spelling(cursor: Cursor) -> str:
    lib = _lib()
    return _string(lib.clang_getTypeSpelling(lib.clang_getCursorType(cursor)))


def is_pointer(cursor: Cursor) -> bool:
    """Whether an expression's type, typedefs resolved, is a pointer."""
    lib = _lib()
    return lib.clang_getCanonicalType(lib.clang_getCursorType(cursor))._kind_id == _POINTER_TYPE


def semantic_parent(cursor: Cursor) -> Cursor | None:
    parent = _lib().clang_getCursorSemanticParent(cursor)
    return None if _lib().clang_Cursor_isNull(parent) else parent


def is_definition(cursor: Cursor) -> bool:
    return bool(_lib().clang_isCursorDefinition(cursor))


def initializer(variable: Cursor) -> Cursor | None:
    found = _lib().clang_Cursor_getVarDeclInitializer(variable)
    return None if _lib().clang_Cursor_isNull(found) else found


def type_declaration(cursor: Cursor) -> Cursor | None:
    """The declaration of the cursor's type with typedefs resolved (a struct's STRUCT_DECL)."""
    lib = _lib()
    found = lib.clang_getTypeDeclaration(lib.clang_getCanonicalType(lib.clang_getCursorType(cursor)))
    return None if lib.clang_Cursor_isNull(found) else found


def measured_declaration(size_of: Cursor) -> Cursor | None:
    """For a sizeof, the struct, class or typedef whose size it is, as written (`sizeof(struct
    hdr)`, `sizeof h` of a `struct hdr h`, `sizeof *h`; a typedef name kept): its one operand's,
    when that type's size is the sizeof's value (not a pointer to it, `sizeof(struct hdr *)`)."""
    lib = _lib()
    operands = children(size_of)
    if len(operands) != 1:
        return None
    operand = operands[0]
    if operand._kind_id == CursorKind.TYPE_REF.value:
        found = lib.clang_getCursorReferenced(operand)
    else:
        found = lib.clang_getTypeDeclaration(lib.clang_getCursorType(operand))
    if lib.clang_Cursor_isNull(found) or found._kind_id not in _MEASURED:
        return None
    size = evaluate_int(size_of)
    return found if size is not None and size == lib.clang_Type_getSizeOf(lib.clang_getCursorType(found)) else None


def object_declaration(cursor: Cursor) -> Cursor | None:
    """The declaration of the class an object expression has, through one pointer or
    reference (`db_->set()`: db_'s class)."""
    lib = _lib()
    kind = lib.clang_getCanonicalType(lib.clang_getCursorType(cursor))
    if kind._kind_id in (_POINTER_TYPE, _LVALUE_REFERENCE, _RVALUE_REFERENCE):
        kind = lib.clang_getCanonicalType(lib.clang_getPointeeType(kind))
    found = lib.clang_getTypeDeclaration(kind)
    return None if lib.clang_Cursor_isNull(found) else found


def extent_range(cursor: Cursor) -> SourceRange:
    return _lib().clang_getCursorExtent(cursor)


def cursor_type(cursor: Cursor) -> Type:
    return _lib().clang_getCursorType(cursor)


def aliased_type(alias: Cursor) -> Type:
    """The type a typedef or `using` declaration names."""
    return _lib().clang_getTypedefDeclUnderlyingType(alias)


def pointee(kind: Type) -> Type:
    return _lib().clang_getPointeeType(kind)


def template_arguments(kind: Type) -> tuple[Cursor | None, list[Cursor | None]] | None:
    """For a class template's specialization (through typedefs): the declaration of its class
    and of each argument's type (None for a value, or a type that declares none)."""
    lib = _lib()
    canonical = lib.clang_getCanonicalType(kind)
    count = lib.clang_Type_getNumTemplateArguments(canonical)
    if count <= 0:
        return None
    return declaration_of(canonical), [declaration_of(lib.clang_Type_getTemplateArgumentAsType(canonical, i))
                                       for i in range(count)]


def call_template_arguments(function: Cursor) -> list[Type]:
    """For a function template's specialization, the type of each argument (an invalid type for
    a value); none for any other function."""
    lib = _lib()
    return [lib.clang_Cursor_getTemplateArgumentType(function, i)
            for i in range(max(0, lib.clang_Cursor_getNumTemplateArguments(function)))]


def declaration_of(kind: Type) -> Cursor | None:
    """The declaration of a type, typedefs resolved."""
    lib = _lib()
    found = lib.clang_getTypeDeclaration(lib.clang_getCanonicalType(kind))
    return None if lib.clang_Cursor_isNull(found) else found


def canonical_spelling(kind: Type) -> str:
    lib = _lib()
    return _string(lib.clang_getTypeSpelling(lib.clang_getCanonicalType(kind)))


def identity(cursor: Cursor) -> int:
    return _lib().clang_hashCursor(cursor)


# Out-parameters of the location functions, allocated once: a fresh set per call doubles their cost.
_file, _line, _column, _offset = c_void_p(), c_uint(), c_uint(), c_uint()
_OUT = (byref(_file), byref(_line), byref(_column), byref(_offset))


def position(location: SourceLocation) -> Position:
    """The file location: the expansion site for macro bodies, the argument's place for macro arguments."""
    _lib().clang_getFileLocation(location, *_OUT)
    return _line.value, _column.value, _offset.value, _file.value or 0


def file_range(tu: TranslationUnit, start: Position, end: Position) -> SourceRange:
    """A range of file locations, which the lexer reads as written (not through macro definitions)."""
    lib = _lib()
    return SourceRange.from_locations(lib.clang_getLocationForOffset(tu, start[3], start[2]),
                                      lib.clang_getLocationForOffset(tu, end[3], end[2]))


_MAY_CONTINUE_IDENTIFIER = {bytes([byte]) for byte in
                            [*b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$\\?", *range(0x80, 0x100)]}
_MACRO_ID = 1 << 31   # the bit of clang's raw SourceLocation encoding that marks a macro location


class MainFile:
    """Positions in a translation unit's main file, for the cursors of its facts.

    A CXSourceLocation carries clang's raw location encoding; one written in a file (not a macro
    location) is an offset into the source manager's address space, where the main file is one
    contiguous block.  Such locations are decoded here against the file's line starts (clang ends
    a line at \\n, \\r\\n or a lone \\r, as bytes.splitlines does), which saves two or three ctypes
    calls per position; macro locations and anything outside the block still ask libclang.
    """

    def __init__(self, tu: TranslationUnit, path: str, source: bytes) -> None:
        self._tu = tu
        self._source = source
        first = SourceLocation.from_offset(tu, tu.get_file(path), 0)
        self._handle = position(first)[3]
        self._base = first.int_data
        self._end = len(source) if self._handle else -1   # -1: main file not found, always ask libclang
        self._crlf = b"\r\n" in source
        ends = list(accumulate(len(line) for line in source.splitlines(keepends=True)))
        if ends and source[-1:] not in (b"\n", b"\r"):
            ends.pop()   # the unterminated last line
        self._starts = [0, *ends]

    def _decoded(self, raw: int) -> Position | None:
        """The position of a raw location when it is plainly in the main file, else None."""
        offset = raw - self._base
        if raw & _MACRO_ID or not 0 <= offset <= self._end:
            return None
        if self._crlf and offset and self._source[offset - 1:offset + 1] == b"\r\n":
            return None   # on the \n of a \r\n clang's column depends on its line cache
        line = bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1, offset, self._handle

    def position(self, where: SourceLocation) -> Position:
        return self._decoded(where.int_data) or position(where)

    def location(self, cursor: Cursor) -> Position:
        return self.position(_lib().clang_getCursorLocation(cursor))

    def written_as(self, where: Position, name: str) -> bool:
        """Whether the bytes at a main-file position surely are the token `name` (an ASCII
        identifier): they spell it and what follows cannot continue it (an identifier character,
        `$`, or a `\\` or `??/` line splice).  False means only that the lexer must tell."""
        if where[3] != self._handle or not (name.isascii() and name.isidentifier()):
            return False
        end = where[2] + len(name)
        return (self._source[where[2]:end] == name.encode()
                and self._source[end:end + 1] not in _MAY_CONTINUE_IDENTIFIER)

    def contains(self, cursor: Cursor) -> bool:
        """Whether the cursor is from the main file.  A file location outside its block is in
        another file (a header, or the main file included again), which libclang also says no to."""
        where = _lib().clang_getCursorLocation(cursor)
        raw = where.int_data
        if not raw & _MACRO_ID and self._end >= 0 and not 0 <= raw - self._base <= self._end:
            return False
        return is_main_file_location(where)

    def extent(self, cursor: Cursor) -> tuple[Position, Position]:
        """Start and end (one past the last character) of the cursor's range in the file."""
        lib = _lib()
        source_range = lib.clang_getCursorExtent(cursor)
        start = self._decoded(source_range.begin_int_data) or position(lib.clang_getRangeStart(source_range))
        end = self._decoded(source_range.end_int_data) or self._macro_end(lib.clang_getRangeEnd(source_range))
        return start, end

    def _macro_end(self, end_location: SourceLocation) -> Position:
        """When a range ends inside a macro argument with a macro name (`ID(a | O_DSYNC)`), libclang
        measures the last token in the wrong buffer and the end lands on that name's first
        character; the lexer then gives its real end."""
        end = position(end_location)
        if _expansion_offset(end_location) != end[2]:
            with Tokens(self._tu, file_range(self._tu, end, end)) as tokens:
                for token in tokens:
                    token_start, token_end = tokens.extent(token)
                    if token_start[2] == end[2] and tokens.spelling(token).isidentifier():
                        end = token_end
                    break
        return end


def _expansion_offset(where: SourceLocation) -> int:
    _lib().clang_getExpansionLocation(where, None, None, None, _OUT[3])
    return _offset.value


def is_main_file_location(where: SourceLocation) -> bool:
    return bool(_lib().clang_Location_isFromMainFile(where))


def evaluate_int(cursor: Cursor) -> int | None:
    """The integer value clang computes for a constant expression, else None."""
    lib = _lib()
    result = lib.clang_Cursor_Evaluate(cursor)
    if not result:
        return None
    try:
        if lib.clang_EvalResult_getKind(result) != _EVAL_INT:
            return None
        if lib.clang_EvalResult_isUnsignedInt(result):
            return lib.clang_EvalResult_getAsUnsigned(result)
        return lib.clang_EvalResult_getAsLongLong(result)
    finally:
        lib.clang_EvalResult_dispose(result)


@cache
def _operator_spellings(kind_function: str, spelling_function: str) -> Callable[[Cursor], str]:
    lib = _lib()
    names: dict[int, str] = {}
    kind_of = getattr(lib, kind_function)
    spell = getattr(lib, spelling_function)

    def operator(cursor: Cursor) -> str:
        kind = kind_of(cursor)
        if kind not in names:
            names[kind] = _string(spell(kind))
        return names[kind]

    return operator


def binary_operator(cursor: Cursor) -> str:
    """`+`, `|=`, `=` ... of a binary or compound assignment operator cursor."""
    return _operator_spellings("clang_getCursorBinaryOperatorKind", "clang_getBinaryOperatorKindSpelling")(cursor)


def unary_operator(cursor: Cursor) -> str:
    """`-`, `*`, `++` ... (prefix and postfix spell alike) of a unary operator cursor."""
    return _operator_spellings("clang_getCursorUnaryOperatorKind", "clang_getUnaryOperatorKindSpelling")(cursor)


class Tokens:
    """The tokens clang's lexer finds in a range, disposed when the block ends."""

    def __init__(self, tu: TranslationUnit, source_range: SourceRange) -> None:
        self._tu = tu
        self._memory = POINTER(Token)()
        self._count = c_uint()
        _lib().clang_tokenize(tu, source_range, byref(self._memory), byref(self._count))

    def __enter__(self) -> "Tokens":
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._count.value:
            _lib().clang_disposeTokens(self._tu, self._memory, self._count)

    def __iter__(self) -> Iterator[Token]:
        count = self._count.value
        if count:
            yield from cast(self._memory, POINTER(Token * count)).contents

    def __getitem__(self, index: int) -> Token:
        return self._memory[index]

    def kinds(self) -> list[int]:
        """Every token's kind in one pass.  A whole file has tens of thousands of tokens and one
        clang_getTokenKind call each costs more than lexing them; that function only returns
        int_data[0] of the public CXToken struct {unsigned int_data[4]; void *ptr_data;}."""
        count = self._count.value
        if not count:
            return []
        words = sizeof(Token) // sizeof(c_uint)
        raw = (c_uint * (count * words)).from_address(addressof(self._memory.contents))
        return list(memoryview(raw).cast("B").cast("I")[0::words])

    def kind(self, token: Token) -> int:
        return _lib().clang_getTokenKind(token)

    def spelling(self, token: Token) -> str:
        return _string(_lib().clang_getTokenSpelling(self._tu, token))

    def start(self, token: Token) -> Position:
        return position(_lib().clang_getTokenLocation(self._tu, token))

    def extent(self, token: Token) -> tuple[Position, Position]:
        token_range = _lib().clang_getTokenExtent(self._tu, token)
        lib = _lib()
        return position(lib.clang_getRangeStart(token_range)), position(lib.clang_getRangeEnd(token_range))

