"""Per-process tree-sitter parsers and compiled queries, one set per language."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import tree_sitter_c
import tree_sitter_cpp
from tree_sitter import Language, Node, Parser, Query, QueryCursor, Tree

from .. import frequency
from ..facts import FrontendError

_QUERIES = Path(__file__).resolve().parent.parent / "queries"
_LANGUAGES = {"c": (tree_sitter_c.language, ("facts.scm",)),
              "c++": (tree_sitter_cpp.language, ("facts.scm", "facts_cpp.scm"))}


@dataclass(frozen=True)
class Grammar:
    language: str
    parser: Parser
    facts: Query          # every construct a fact comes from
    macro_names: Query    # identifiers of a macro body, for parameter substitution

    def captures(self, query: Query, root: Node) -> dict[str, list[Node]]:
        """Captures by name, each list in source order, an outer node before the
        nodes it holds that start where it does (QueryCursor groups them by pattern,
        not by position, and orders nodes of one start differently from run to run:
        `a().b().c()` made its three calls' facts come in any order)."""
        found = QueryCursor(query).captures(root)
        for nodes in found.values():
            nodes.sort(key=_source_order)
        return found


def _source_order(node: Node) -> tuple[int, int]:
    return node.start_byte, -node.end_byte


@cache
def grammar(language: str) -> Grammar:
    try:
        make, query_files = _LANGUAGES[language]
    except KeyError:
        raise FrontendError(f"tree-sitter frontend: unsupported language {language!r}") from None
    lang = Language(make())
    source = "\n".join((_QUERIES / name).read_text(encoding="utf-8") for name in query_files)
    for name in ("ALGORITHMS", "WALKS", "FLUSHING_MANIPULATORS", "FACTORIES"):     # name lists the query matches
        source = source.replace(f"@{name}@", "|".join(sorted(getattr(frequency, name))))
    return Grammar(language, Parser(lang), Query(lang, source),
                   Query(lang, (_QUERIES / "macro_names.scm").read_text(encoding="utf-8")))


def reads_as_cpp(source: bytes) -> bool:
    """Whether a header is C++: tree-sitter's C grammar finds errors in it, and its C++
    grammar none, or fewer and a class, namespace or template at declaration level (a long
    C++ header may hold a construct the C++ grammar misreads too: kyotocabinet's
    kccachedb.h, 1 error against C's 368; a C header full of macros may read better as C++
    by chance, but declares no class)."""
    c = parse(source, "c").root_node
    if not c.has_error:
        return False
    cpp = parse(source, "c++").root_node
    return not cpp.has_error or (_errors(cpp) < _errors(c) and _declares_cpp(cpp))


# Per language, the last text parsed whole and its tree: the frontend reads a header with the
# tree reads_as_cpp made of the very same bytes, instead of parsing it twice.
_LAST: dict[str, tuple[bytes, Tree]] = {}


def parse(source: bytes, language: str) -> Tree:
    """The whole text parsed by the language's grammar (None if tree-sitter gave up)."""
    last = _LAST.get(language)
    if last is not None and last[0] is source:
        return last[1]
    tree = grammar(language).parser.parse(source)
    _LAST[language] = (source, tree)
    return tree


def _errors(node: Node) -> int:
    """How many error and missing nodes a tree holds (only subtrees with an error are walked,
    without recursion: a mutant's nesting runs deep)."""
    count, pending = 0, [node]
    while pending:
        node = pending.pop()
        if node.has_error:
            count += node.is_error or node.is_missing
            pending.extend(node.children)
    return count


_CPP_DECLARATIONS = frozenset({"class_specifier", "namespace_definition", "template_declaration"})
# what holds declarations: the file, preprocessor groups, namespaces' and extern "C"'s bodies
_DECLARATION_SCOPES = frozenset({"translation_unit", "preproc_ifdef", "preproc_if", "preproc_else",
                                 "preproc_elif", "declaration_list", "linkage_specification", "ERROR"})


def _declares_cpp(node: Node) -> bool:
    pending = [node]
    while pending:
        for child in pending.pop().children:
            if child.type in _CPP_DECLARATIONS:
                return True
            if child.type in _DECLARATION_SCOPES:
                pending.append(child)
    return False
