"""The function-like macros of the headers a file includes, as the tolerant frontend's guard
conditions need them.

tree-sitter parses each file alone.  A file that tests `if (IS_FULL(++pending))`, with
`#define IS_FULL(n) ((n) == BATCH)` in the "store.h" it includes, would see a call of an
unknown function, where clang, which reads the header, sees the test a batch is made of.  So
when a condition is spelled as a call of a name the file does not define, the headers it
includes with quotes (`#include "store.h"`: the project's own, found beside the file or on
-I, then theirs in turn, as the preprocessor reads them) are read for a macro of that name.
Only the definitions are read, each header once per process; the headers read become the
facts' includes, so a cached entry is fresh only while they are unchanged (facts_cache.py).
"""
from __future__ import annotations

import os

from tree_sitter import Node

from .ts_grammar import Grammar
from .ts_macros import Macro, Macros
from .ts_names import text
from .ts_types import data_members

# Headers read for one file at most, and how deep their inclusions are followed: a project's
# own headers are few levels deep; a pathological include graph costs no more than this.
_MAX_HEADERS = 64
_MAX_DEPTH = 8
# The preprocessor groups a definition or an inclusion may sit in.
_GROUPS = {"preproc_if", "preproc_ifdef", "preproc_elif", "preproc_elifdef", "preproc_else"}
# What a class declared in a header may sit in: namespaces, extern "C" blocks, templates,
# declarations (`struct s {...} x;`, typedefs) and preprocessor groups.
_CONTAINERS = _GROUPS | {"namespace_definition", "declaration_list", "linkage_specification", "template_declaration",
                         "declaration", "type_definition"}

# A header's (size, mtime, inode) and what it holds: its function-like macros, the headers it
# includes and the data members of the classes it declares; kept for the process (a worker parses many files that include the same
# headers), read again when the header is written (the facts cache tells a change by content:
# facts_cache.Dependency).
_read: dict[tuple[str, str], tuple[tuple[int, int, int], Macros, tuple[str, ...], dict[str, frozenset[str]]]] = {}
_MACROS, _CLASSES = 1, 3        # the parts of a header's entry that lookups read


class Headers:
    """The headers one file includes, searched for a macro when a condition asks for one (its
    tree is read for inclusions then, not for every file)."""

    def __init__(self, grammar: Grammar, path: str, root: Node, include_dirs: tuple[str, ...]) -> None:
        self._grammar = grammar
        self._directory = os.path.dirname(os.path.abspath(path))
        self._root = root
        self._include_dirs = include_dirs
        self._order: list[str] | None = None

    @property
    def read(self) -> tuple[str, ...]:
        """The headers read so far, as found (the facts' includes)."""
        return tuple(self._order or ())

    def value_macro(self, name: str) -> Macro | None:
        """The first definition of `name` in the headers, if it is a function-like macro whose
        body is one expression."""
        macro = self._first(_MACROS, name)
        return macro if macro is not None and macro.value is not None else None

    def data_members(self, name: str) -> frozenset[str] | None:
        """The data members of the first class or struct so named in the headers: a method
        defined in the file, of a class its header declares, calls a member callable on the
        implicit this (`on_record(r)` of a std::function member), as a class the file
        declares does."""
        return self._first(_CLASSES, name)

    def _first(self, part: int, name: str):
        """What the first header holding `name` in that part of what it holds (_read) has for
        it, in the order the preprocessor reads the headers."""
        return next((held[name] for header in self._headers()
                     if name in (held := _read[(self._grammar.language, header)][part])), None)

    def _headers(self) -> list[str]:
        """Every header reached from the file, depth first, each once."""
        if self._order is None:
            self._order = []
            self._visit(self._directory, _directives(self._root)[1], 0)
        return self._order

    def _visit(self, directory: str, names: tuple[str, ...], depth: int) -> None:
        for name in names:
            if len(self._order) >= _MAX_HEADERS or depth > _MAX_DEPTH:
                return
            found = self._find(directory, name)
            if found is None or found in self._order:
                continue
            included = self._load(found)
            if included is None:
                continue
            self._order.append(found)
            self._visit(os.path.dirname(found), included, depth + 1)

    def _find(self, directory: str, name: str) -> str | None:
        for place in (directory, *self._include_dirs):
            candidate = os.path.normpath(os.path.join(place, name))
            if os.path.isfile(candidate):
                return candidate
        return None

    def _load(self, path: str) -> tuple[str, ...] | None:
        """The header's inclusions, its macros read into the process's table; None when it
        cannot be read."""
        try:
            status = os.stat(path)
            stamp = (status.st_size, status.st_mtime_ns, status.st_ino)
            key = (self._grammar.language, path)
            known = _read.get(key)
            if known is not None and known[0] == stamp:
                return known[2]
            with open(path, "rb") as stream:
                source = stream.read()
        except OSError:
            return None
        root = self._grammar.parser.parse(source).root_node
        definitions, included = _directives(root)
        _read[key] = (stamp, Macros(self._grammar, source, definitions), included, _classes(source, root))
        return _read[key][2]


def _directives(root: Node) -> tuple[list[Node], tuple[str, ...]]:
    """The function-like #defines and the names #included with quotes, in order, at the top
    level or in preprocessor groups."""
    definitions, included = [], []
    pending = list(reversed(root.children))
    while pending:
        node = pending.pop()
        if node.type == "preproc_function_def":
            definitions.append(node)
        elif node.type == "preproc_include" and (name := _quoted(node)):
            included.append(name)
        elif node.type in _GROUPS:
            pending.extend(reversed(node.children))
    return definitions, tuple(included)


def _classes(source: bytes, root: Node) -> dict[str, frozenset[str]]:
    """The data members of each class or struct a header declares with a body, by name."""
    found: dict[str, frozenset[str]] = {}
    pending = [root]
    while pending:
        node = pending.pop()
        for child in node.named_children:
            if child.type in ("class_specifier", "struct_specifier") and (name := child.child_by_field_name("name")) \
                    is not None and child.child_by_field_name("body") is not None:
                found.setdefault(text(source, name), frozenset(data_members(source, child)[1]))
            elif child.type in _CONTAINERS:
                pending.append(child)
    return found


def _quoted(include: Node) -> str | None:
    path = include.child_by_field_name("path")
    if path is None or path.type != "string_literal":
        return None
    spelled = path.text.decode("utf-8", "replace").strip('"')
    return spelled or None
