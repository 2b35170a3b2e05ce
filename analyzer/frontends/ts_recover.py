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
    replaced: list[tuple[int, int, list[Tree]]] = []
    try:
        reached = 0     # a retried definition may take in the broken items after it
        for node in sorted(_broken_items(tree.root_node), key=lambda item: item.start_byte):
            if node.start_byte < reached:
                continue
            trees, end = _item_trees(lang, source, node, line_starts)
            if trees:
                replaced.append((node.start_byte, end, trees))
                reached = end
        if not replaced:
            return captures
        replaced.sort(key=lambda item: item[0])
        starts, ends = [start for start, _, _ in replaced], [end for _, end, _ in replaced]
        merged = {name: [node for node in nodes if not _within(node.start_byte, starts, ends)]
                  for name, nodes in captures.items()}
        for _, _, trees in replaced:
            for piece in trees:
                for name, nodes in lang.captures(lang.facts, piece.root_node).items():
                    merged.setdefault(name, []).extend(nodes)
    finally:
        lang.parser.reset()
        lang.parser.included_ranges = None
    for nodes in merged.values():
        nodes.sort(key=lambda node: node.start_byte)
    return merged


def _item_trees(lang: Grammar, source: bytes, node: Node, line_starts: list[int]) -> tuple[list[Tree] | None, int]:
    """New trees for one broken item, and where the bytes they replace end: its pieces
    between top-level `}` lines, each parsed on its own; or, for an item that is one
    definition, the definition without a decoration macro.  No trees when nothing better
    than the item as parsed can be had."""
    cuts = _cuts(source, node.start_byte, node.end_byte)
    if len(cuts) == 2:
        retry = _prototype_macro(lang, source, node, line_starts) \
            or _undecorated(lang, source, node, cuts[0], cuts[1], line_starts)
        if retry is None:
            retry = _undecorated_old_style(lang, source, node, line_starts)
        if retry is None:   # up to the item's closing `}` line, which an #ifdef may have cut off
            retry = _without_directives(lang, source, cuts[0], max(cuts[1], _closing(source, node.start_byte)),
                                        line_starts)
        return ([retry[0]], retry[1]) if retry is not None else (None, node.end_byte)
    trees = []
    for start, end in zip(cuts, cuts[1:]):
        piece = _parse_in_place(lang, source, [(start, end)], line_starts)
        if piece.root_node.has_error:
            retry = (_undecorated(lang, source, piece.root_node, start, end, line_starts)
                     or _without_directives(lang, source, start, end, line_starts))
            piece = retry[0] if retry is not None else piece
        trees.append(piece)
    return trees, node.end_byte


_CONDITIONALS = (b"if", b"elif", b"else", b"endif")     # and ifdef, ifndef, elifdef


def _without_directives(lang: Grammar, source: bytes, start: int, end: int,
                        line_starts: list[int]) -> tuple[Tree, int] | None:
    """The item parsed again with its conditional directive lines (`#ifdef`, `#endif`, ...)
    left out: tree-sitter cannot parse an `#ifdef` inside an initializer (redis's table of
    system checks), and reads both branches of it anyway.  Counts only when it parses
    cleanly."""
    if b"#" not in source[start:end]:
        return None     # no directive: nothing to retry
    spans, kept_from = [], start
    row = bisect_right(line_starts, start) - 1
    continued = False
    while row < len(line_starts) and line_starts[row] < end:
        line_start = max(line_starts[row], start)
        line_end = min(line_starts[row + 1] if row + 1 < len(line_starts) else len(source), end)
        line = source[line_start:line_end]
        stripped = line.lstrip()
        directive = continued or (stripped.startswith(b"#") and stripped[1:].lstrip().startswith(_CONDITIONALS))
        continued = directive and line.rstrip(b"\r\n").endswith(b"\\")
        if directive:
            if kept_from < line_start:
                spans.append((kept_from, line_start))
            kept_from = line_end
        row += 1
    if not spans and kept_from == start:
        return None     # no directive: nothing to retry
    if kept_from < end:
        spans.append((kept_from, end))
    retry = _parse_in_place(lang, source, spans, line_starts)
    return None if retry.root_node.has_error else (retry, end)


def _parse_in_place(lang: Grammar, source: bytes, spans: list[tuple[int, int]],
                    line_starts: list[int]) -> Tree:
    """These byte ranges of the file parsed as one text, keeping the file's offsets."""
    lang.parser.included_ranges = [Range(_point(start, line_starts), _point(end, line_starts),
                                         start, end) for start, end in spans]
    return lang.parser.parse(source)


def _undecorated(lang: Grammar, source: bytes, broken: Node, start: int, end: int,
                 line_starts: list[int]) -> tuple[Tree, int] | None:
    """A definition decorated by a function-like macro the file does not define
    (`static void v_matchproto_(storage_init_f) smp_mgt_init(...) {`) reads to tree-sitter as
    a call declarator followed by garbage.  Parsed again without the first such declarator, it
    is the plain definition; the retry counts only when it parses cleanly."""
    decoration = next((node for node in _walk(broken) if node.type == "function_declarator"
                       and node.parent is not None and node.parent.type == "ERROR"), None)
    if decoration is None:
        return None
    retry = _parse_in_place(lang, source, [(start, decoration.start_byte),
                                           (decoration.end_byte, end)], line_starts)
    return None if retry.root_node.has_error else (retry, end)


def _prototype_macro(lang: Grammar, source: bytes, broken: Node,
                     line_starts: list[int]) -> tuple[Tree, int] | None:
    """A definition whose parameter list a portability macro wraps, as old C does for
    compilers without prototypes (procmail's `void opensink P((void))`, `__P((int fd))`),
    reads to tree-sitter as a declaration of the name missing its `;`, then either a
    definition whose type is the macro and whose declarator is the doubled parentheses, or a
    call of the macro followed by the body.  Parsed again without the macro's name and its
    own parentheses, it is the plain definition."""
    after = broken.next_sibling
    if broken.type != "declaration" or not broken.children or not broken.children[-1].is_missing or after is None:
        return None
    if after.type == "function_definition":     # no parameters: `P((void))`
        macro, outer, end = after.child_by_field_name("type"), after.child_by_field_name("declarator"), after.end_byte
        wrapped = ("type_identifier", "parenthesized_declarator")
    elif after.type == "expression_statement" and after.named_child_count == 1 \
            and after.next_sibling is not None and after.next_sibling.type == "compound_statement":
        call = after.named_children[0]
        macro, outer = call.child_by_field_name("function"), call.child_by_field_name("arguments")
        end, wrapped = after.next_sibling.end_byte, ("identifier", "argument_list")
    else:
        return None
    inner = outer.named_children[0] if outer is not None and outer.named_child_count == 1 else None
    if macro is None or inner is None or (macro.type, outer.type) != wrapped \
            or inner.type not in ("parenthesized_declarator", "parenthesized_expression"):
        return None
    retry = _parse_in_place(lang, source, [(broken.start_byte, macro.start_byte), (inner.start_byte, inner.end_byte),
                                           (outer.end_byte, end)], line_starts)
    return None if retry.root_node.has_error else (retry, end)


def _undecorated_old_style(lang: Grammar, source: bytes, broken: Node,
                           line_starts: list[int]) -> tuple[Tree, int] | None:
    """The same decoration read another way: as an old-style (K&R) definition whose parameter
    declarations begin with the real declarator (`smp_mgt_init(struct stevedore *parent)`),
    its body cut short by the first `#ifdef` inside it.  Parsed again without the decoration,
    up to the definition's closing `}` line, which may lie past the broken item."""
    decoration = broken.child_by_field_name("declarator")
    after = decoration.next_named_sibling if decoration is not None else None
    if (broken.type != "function_definition" or decoration.type != "function_declarator"
            or after is None or after.type != "declaration"):
        return None
    end = _closing(source, broken.start_byte)
    retry = _parse_in_place(lang, source, [(broken.start_byte, decoration.start_byte),
                                           (decoration.end_byte, end)], line_starts)
    return None if retry.root_node.has_error else (retry, end)


def _walk(node: Node):
    stack = [node]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))


_CONTAINERS = frozenset({"translation_unit", "preproc_if", "preproc_ifdef", "preproc_else",
                         "preproc_elif", "preproc_elifdef", "linkage_specification",
                         "declaration_list"})


def _broken_items(root: Node) -> list[Node]:
    """Top-level items with syntax errors, looking inside `#if` blocks, `extern "C"`
    and namespaces.  An item whose only errors are directive lines is intact: tree-sitter
    has no grammar for an `#ifdef` between the entries of an initialiser list."""
    items, stack = [], [root]
    while stack:
        for child in stack.pop().children:
            if not child.has_error:
                continue
            if child.type in _CONTAINERS or child.type == "namespace_definition":
                stack.append(child)
            elif not _only_directives(child):
                items.append(child)
    return items


def _only_directives(node: Node) -> bool:
    """Whether every syntax error in the node is a run of whole preprocessor directive lines."""
    stack = [node]
    while stack:
        item = stack.pop()
        if item.is_missing:
            return False
        if item.type == "ERROR":
            lines = item.text.decode("utf-8", "replace").splitlines()
            if not lines or any(not line.lstrip().startswith("#") for line in lines if line.strip()):
                return False
        elif item.has_error:
            stack.extend(item.children)
    return True


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


def _closing(source: bytes, start: int) -> int:
    """The end of the first line after start that starts with `}` (a top-level definition's
    conventional end), or the end of the file."""
    pos = source.find(b"\n}", start)
    line_end = source.find(b"\n", pos + 1) if pos >= 0 else -1
    return line_end + 1 if line_end >= 0 else len(source)


def _within(pos: int, starts: list[int], ends: list[int]) -> bool:
    """Whether pos falls in one of these disjoint ranges, sorted by start."""
    i = bisect_right(starts, pos) - 1
    return i >= 0 and pos < ends[i]


def _point(offset: int, line_starts: list[int]) -> Point:
    row = bisect_right(line_starts, offset) - 1
    return Point(row, offset - line_starts[row])
