"""Inline suppressions: `mmaplint: ignore[MML001, MML003]`, bare `mmaplint: ignore`, and
clang-tidy's `NOLINT(mmaplint-msync-in-loop)` / `NOLINTNEXTLINE(...)`.

`mmaplint: ignore` covers its own line and the line below (a comment above the
statement); NOLINT covers its line and NOLINTNEXTLINE the next, as in clang-tidy.
These read the text of comments the frontend found, never the code.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from .facts import Span

MARKER = "mmaplint:"


@dataclass
class Directive:
    span: Span                      # the comment line that holds it
    lines: tuple[int, ...]          # the lines it covers
    codes: tuple[str, ...] | None   # rule ids or NOLINT check globs; None covers every rule
    nolint: bool
    used: set[str] = field(default_factory=set)

    def covers(self, rule_id: str, rule_name: str) -> bool:
        return self.codes is None or any(self.code_covers(code, rule_id, rule_name) for code in self.codes)

    def code_covers(self, code: str, rule_id: str, rule_name: str) -> bool:
        """Whether one code of the directive names the rule: an id, or for NOLINT a check glob."""
        if self.nolint:
            return fnmatchcase(f"mmaplint-{rule_name}", code) or fnmatchcase(rule_id, code)
        return rule_id == code


def _codes(text: str, after: int) -> tuple[tuple[str, ...] | None, bool]:
    """The bracketed or parenthesised list right after a keyword, and whether it was well-formed."""
    rest = text[after:]
    if not rest or rest[0] not in "[(":
        return None, True
    close = rest.find("]" if rest[0] == "[" else ")")
    if close < 0:
        return None, False
    return tuple(c.strip() for c in rest[1:close].split(",") if c.strip()), True


def may_hold_directive(text: str) -> bool:
    """Whether a comment line may hold a directive: the frontends keep only such lines (a
    program's other comments are many, and nothing reads them)."""
    return MARKER in text.lower() or "NOLINT" in text


def parse(path: str, comments: tuple[tuple[int, str], ...]) -> list[Directive]:
    directives = []
    for line, text in comments:
        if not may_hold_directive(text):
            continue
        lowered = text.lower()
        at = lowered.find(MARKER)
        span = Span(path, line, 1, line, 1)
        if at >= 0:
            rest = lowered[at + len(MARKER):].lstrip()
            if rest.startswith("ignore"):
                start = len(text) - len(rest) + len("ignore")
                codes, ok = _codes(text, start)
                if ok:
                    directives.append(Directive(span, (line, line + 1),
                                                tuple(c.upper() for c in codes) if codes else None,
                                                nolint=False))
        for keyword, covered in (("NOLINTNEXTLINE", (line + 1,)), ("NOLINT", (line,))):
            at = text.find(keyword)
            if at >= 0:
                codes, ok = _codes(text, at + len(keyword))
                if ok:
                    directives.append(Directive(span, covered, codes or None, nolint=True))
                break
    return directives


def suppressing(directives: list[Directive], line: int, rule_id: str, rule_name: str) -> Directive | None:
    """The directive that silences a finding of this rule on this line, if any (marking it used)."""
    for directive in directives:
        if line in directive.lines and directive.covers(rule_id, rule_name):
            directive.used.add(rule_id)
            return directive
    return None
