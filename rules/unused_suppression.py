"""MML100 unused-suppression: a suppression comment that silenced nothing in this run.

## What it does
Reports a `mmaplint: ignore[...]`, bare `mmaplint: ignore`, or
`NOLINT(mmaplint-...)` / `NOLINTNEXTLINE(mmaplint-...)` comment that did not
suppress any finding, like ruff's RUF100. Only rules that ran count: a code for
a rule that was not selected is never reported, and a bare `mmaplint: ignore`
is reported only when no rule that ran was silenced by it. A `NOLINT` with no
list, or whose checks match no mmaplint rule, belongs to clang-tidy and is left
alone. Off by default: run it with the other rules (`--select ALL`), over the
whole code base. Its own reports are not subject to inline suppressions (a bare
`mmaplint: ignore` would otherwise hide the report about itself): skip it for a
file with per-file-ignores.

## Why is this bad?
A suppression outlives the code it was written for. Once the loop is gone or
the msync is batched, the comment hides the next real finding on that line,
and readers take it as a sign that something costly still happens there.

## Example
```c
/* mmaplint: ignore[MML001] */
msync(map, len, MS_SYNC);          /* MML100: not in a loop any more */
```

## Use instead
Delete the comment, or drop the codes that no longer apply from its list.
"""
from __future__ import annotations

from typing import Iterator

from mmaplint.analyzer.engine import RunState
from mmaplint.analyzer.program import Program
from mmaplint.analyzer.registry import Hit, Rule
from mmaplint.analyzer.suppressions import Directive

ID = "MML100"
NAME = "unused-suppression"
SEVERITY = "note"
SUMMARY = "suppression comment that silenced no finding"
HELP = "delete the comment, or the codes in it that no longer apply"
DEFAULT = False


def _unused_codes(directive: Directive, ran: tuple[Rule, ...]) -> list[str] | None:
    """The codes (ids or NOLINT globs) of rules that ran and found nothing to silence here;
    None when the directive is not one this rule judges or it was used."""
    if directive.codes is None:
        return None if directive.nolint or directive.used or not ran else []
    unused = []
    for code in directive.codes:
        matching = [r for r in ran if directive.code_covers(code, r.id, r.name)]
        if matching and not any(r.id in directive.used for r in matching):
            unused.append(code)
    return unused or None


def check(program: Program, run: RunState) -> Iterator[Hit]:
    for path in sorted(run.directives):
        for directive in run.directives[path]:
            codes = _unused_codes(directive, run.rules)
            if codes is None:
                continue
            what = ", ".join(codes) if codes else "`mmaplint: ignore`"
            yield Hit(directive.span, f"unused suppression: {what} silenced no finding here")
