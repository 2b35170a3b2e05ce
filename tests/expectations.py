"""Expectation markers in fixture comments (semgrep's ``ruleid:``/``ok:`` idea).

A fixture states, in comments on the line a finding points at:

``expect: MML001[, MML002]``
    every frontend must report these rules on this line.
``ok: MML001[, ...] <what look-alike>``
    a negative case, counted; the line must stay silent for every rule.
``gap[FRONTEND]: [MML001[, ...]] <reason>``
    a known, named limitation of one frontend on this line: with an ``expect``
    for the rule, that frontend misses it; without one, it reports the rule
    wrongly.  The rules default to the line's ``expect`` rules.

Several markers may share one comment.  Every line without an ``expect`` marker
must produce no finding.  Comments are found with tree-sitter, so marker-like
text inside string literals is never mistaken for a marker.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import tree_sitter
import tree_sitter_c
import tree_sitter_cpp

FRONTENDS = ("clang", "tree-sitter")
CPP_SUFFIXES = frozenset({".cc", ".cpp", ".cxx", ".hh", ".hpp"})

# Only comment text is matched here; the C itself is parsed by tree-sitter.
_MARKER = re.compile(r"(?<![\w-])(expect|ok|gap\[([^\]]*)\]):")
_RULES = re.compile(r"\s*(MML\d{3}(?:\s*,\s*MML\d{3})*)\b")
_BLOCK_END = re.compile(r"\*+/\s*$")


class MarkerError(ValueError):
    """A malformed or contradictory marker; the message names the file and line."""


@dataclass(frozen=True, order=True)
class Negative:
    line: int
    rule: str
    look_alike: str


@dataclass(frozen=True, order=True)
class Gap:
    frontend: str
    line: int
    rule: str
    reason: str
    expected: bool   # True: the finding is real and the frontend misses it


@dataclass(frozen=True)
class Expectations:
    path: Path
    expected: frozenset[tuple[int, str]]   # (line, rule)
    negatives: tuple[Negative, ...]
    gaps: tuple[Gap, ...]

    def gaps_of(self, frontend: str) -> tuple[Gap, ...]:
        return tuple(gap for gap in self.gaps if gap.frontend == frontend)

    def gap_pairs(self, frontend: str) -> frozenset[tuple[int, str]]:
        """(line, rule) pairs whose truth is asserted by that frontend's gap tests instead."""
        return frozenset((gap.line, gap.rule) for gap in self.gaps_of(frontend))


@dataclass(frozen=True)
class _Marker:
    line: int
    kind: str            # "expect", "ok" or "gap"
    rules: tuple[str, ...]
    text: str            # look-alike or reason
    frontend: str = ""


def _split(path: Path, line: int, text: str) -> list[_Marker]:
    """The markers in one comment line."""
    found = list(_MARKER.finditer(text))
    markers = []
    for index, match in enumerate(found):
        end = found[index + 1].start() if index + 1 < len(found) else len(text)
        body = text[match.end():end]
        kind = "gap" if match.group(1).startswith("gap") else match.group(1)
        rules_match = _RULES.match(body)
        rules = tuple(r.strip() for r in rules_match.group(1).split(",")) if rules_match else ()
        rest = _BLOCK_END.sub("", body[rules_match.end():] if rules_match else body).strip()
        where = f"{path}:{line}"
        if kind != "gap" and not rules:
            raise MarkerError(f"{where}: '{match.group(0)}' needs rule ids like MML001, got {body.strip()!r}")
        if kind == "ok" and not rest:
            raise MarkerError(f"{where}: 'ok:' needs a description of the look-alike")
        frontend = match.group(2) or ""
        if kind == "gap":
            if frontend not in FRONTENDS:
                raise MarkerError(f"{where}: unknown frontend {frontend!r} in gap (one of {', '.join(FRONTENDS)})")
            if not rest:
                raise MarkerError(f"{where}: a gap needs a reason")
        markers.append(_Marker(line, kind, rules, rest, frontend))
    return markers


def parse(path: Path, comments: Iterable[tuple[int, str]]) -> Expectations:
    """Expectations from (first line, comment text) pairs; block comments may span lines."""
    markers = [
        marker
        for first_line, comment in comments
        for offset, text in enumerate(comment.splitlines())
        for marker in _split(path, first_line + offset, text)
    ]
    expected = {(m.line, rule) for m in markers if m.kind == "expect" for rule in m.rules}
    expected_lines = {line for line, _ in expected}
    negatives = []
    for marker in (m for m in markers if m.kind == "ok"):
        if marker.line in expected_lines:
            raise MarkerError(f"{path}:{marker.line}: an 'ok:' line must be silent, but it also has 'expect:'")
        negatives.extend(Negative(marker.line, rule, marker.text) for rule in marker.rules)
    gaps: dict[tuple[str, int, str], Gap] = {}
    for marker in (m for m in markers if m.kind == "gap"):
        rules = marker.rules or tuple(sorted(rule for line, rule in expected if line == marker.line))
        if not rules:
            raise MarkerError(f"{path}:{marker.line}: a gap without 'expect:' on its line must name its rules")
        for rule in rules:
            key = (marker.frontend, marker.line, rule)
            if key in gaps:
                raise MarkerError(f"{path}:{marker.line}: two gaps for {rule} with {marker.frontend}")
            gaps[key] = Gap(marker.frontend, marker.line, rule, marker.text, (marker.line, rule) in expected)
    return Expectations(path, frozenset(expected), tuple(sorted(negatives)), tuple(sorted(gaps.values())))


def _language(path: Path) -> tree_sitter.Language:
    module = tree_sitter_cpp if path.suffix in CPP_SUFFIXES else tree_sitter_c
    return tree_sitter.Language(module.language())


def comments_of(path: Path) -> list[tuple[int, str]]:
    """(1-based first line, text) of every comment in a C or C++ file."""
    tree = tree_sitter.Parser(_language(path)).parse(path.read_bytes())
    comments = []
    pending = [tree.root_node]
    while pending:
        node = pending.pop()
        if node.type == "comment":
            comments.append((node.start_point.row + 1, node.text.decode("utf-8", "replace")))
        pending.extend(node.children)
    return sorted(comments)


def load(path: Path) -> Expectations:
    return parse(path, comments_of(path))
