"""Recovery from syntax errors that tree-sitter lets swallow the rest of a file.

An unbalanced brace makes everything after it part of one broken top-level
item, so intact functions further down are lost.  Such an item is cut where a
line starting with `}` ends (the conventional end of a top-level definition)
and each piece is parsed on its own, in place, with the parser's included
ranges, so byte offsets stay those of the file.  Items are looked for inside
`#if` blocks too, which hold most of some files and are not themselves cut."""
from __future__ import annotations

from bisect import bisect_right

from tree_sitter import Node, Point, Range, Tree

from .ts_grammar import Grammar


def recover(lang: Grammar, source: bytes, tree: Tree, captures: dict[str, list[Node]],
            line_starts: list[int]) -> dict[str, list[Node]]:
    """The captures, with those of each broken top-level node replaced by the
    captures of its pieces parsed separately."""
    pieces = []
    for node in _broken_items(tree.root_node):
        cuts = _cuts(source, node.start_byte, node.end_byte)
        if len(cuts) > 2:
            pieces.append((node.start_byte, node.end_byte, cuts))
    if not pieces:
        return captures
    pieces.sort()
    starts, ends = [start for start, _, _ in pieces], [end for _, end, _ in pieces]
    merged = {name: [node for node in nodes if not _within(node.start_byte, starts, ends)]
              for name, nodes in captures.items()}
    try:
        for _, _, cuts in pieces:
            for start, end in zip(cuts, cuts[1:]):
                lang.parser.included_ranges = [Range(_point(start, line_starts),
                                                     _point(end, line_starts), start, end)]
                piece = lang.parser.parse(source)
                for name, nodes in lang.captures(lang.facts, piece.root_node).items():
                    merged.setdefault(name, []).extend(nodes)
    finally:
        lang.parser.reset()
        lang.parser.included_ranges = None
    for nodes in merged.values():
        nodes.sort(key=lambda node: node.start_byte)
    return merged


_CONTAINERS = frozenset({"translation_unit", "preproc_if", "preproc_ifdef", "preproc_else",
                         "preproc_elif", "preproc_elifdef", "linkage_specification",
                         "declaration_list"})


def _broken_items(root: Node) -> list[Node]:
    """Top-level items with syntax errors, looking inside `#if` blocks, `extern "C"`
    and namespaces."""
    items, stack = [], [root]
    while stack:
        for child in stack.pop().children:
            if not child.has_error:
                continue
            if child.type in _CONTAINERS or child.type == "namespace_definition":
                stack.append(child)
            else:
                items.append(child)
    return items


def _cuts(source: bytes, start: int, end: int) -> list[int]:
    """start, the end of every line in between that starts with `}`, and end."""
    cuts = [start]
    pos = source.find(b"\n}", start, end)
    while pos >= 0:
        line_end = source.find(b"\n", pos + 1, end)
        if line_end < 0:
            break
        cuts.append(line_end + 1)
        pos = source.find(b"\n}", line_end, end)
    if cuts[-1] < end:
        cuts.append(end)
    return cuts


def _within(pos: int, starts: list[int], ends: list[int]) -> bool:
    """Whether pos falls in one of these disjoint ranges, sorted by start."""
    i = bisect_right(starts, pos) - 1
    return i >= 0 and pos < ends[i]


def _point(offset: int, line_starts: list[int]) -> Point:
    row = bisect_right(line_starts, offset) - 1
    return Point(row, offset - line_starts[row])
