"""The default, human format: location, rule, message, the source line with a caret,
then help and reproducer lines (ruff/rustc style). Colour only when asked (a terminal)."""
from __future__ import annotations

import os

from ..findings import Finding, Report
from ..fingerprints import shown_path
from . import FormatContext, confirmations, source_lines

STYLES = {"path": "1", "rule": "1;31", "name": "33", "caret": "1;31", "gutter": "34", "note": "36"}


def _paint(text: str, style: str, context: FormatContext) -> str:
    return f"\x1b[{STYLES[style]}m{text}\x1b[0m" if context.color else text


def _display(path: str, context: FormatContext) -> str:
    """A path as the user gave it, or an absolute one relative to where they are, if inside."""
    return shown_path(path, ".") if os.path.isabs(path) else path


def _excerpt(f: Finding, context: FormatContext) -> list[str]:
    lines = source_lines(f.span.path)
    if not 0 < f.span.line <= len(lines):
        return []
    text = lines[f.span.line - 1].expandtabs(1)
    width = len(str(f.span.line))
    last = f.span.end_column if f.span.end_line == f.span.line else len(text)   # inclusive
    carets = "^" * max(1, last - f.span.column + 1)
    gutter = _paint(" " * width + " |", "gutter", context)
    return [gutter,
            _paint(f"{f.span.line} |", "gutter", context) + f" {text}",
            gutter + " " + " " * (f.span.column - 1) + _paint(carets, "caret", context)]


def render_finding(f: Finding, context: FormatContext) -> list[str]:
    where = _paint(f"{_display(f.span.path, context)}:{f.span.line}:{f.span.column}:", "path", context)
    out = [f"{where} {_paint(f.rule, 'rule', context)} {_paint('[' + f.name + ']', 'name', context)} "
           f"{f.message}"]
    out += _excerpt(f, context)
    pad = " " * (len(str(f.span.line)) + 1)
    for related in f.related:
        out.append(f"{pad}= {_paint('note:', 'note', context)} "
                   f"{_display(related.span.path, context)}:{related.span.line}: {related.message}")
    rule = context.rules.get(f.rule)
    if rule is not None and rule.help:
        out.append(f"{pad}= help: {rule.help}")
    if f.reproducer:
        out.append(f"{pad}= reproducer: {f.reproducer} (measure it here: {f.confirm})")
    measured, _ = confirmations(context)
    if f.rule in measured:
        out.append(f"{pad}= measured here: {measured[f.rule].conclusion}")
    return out


def render(report: Report, context: FormatContext) -> str:
    out: list[str] = []
    for f in report.findings:
        out += render_finding(f, context) + [""]
    for error in report.errors:
        out.append(f"{_display(error.path, context)}: error: {error.message}")
    if context.extra.get("quiet"):          # -q: the findings (and errors) only
        return "\n".join(out) + "\n" if out else ""
    count = len(report.findings)
    summary = f"Found {count} finding{'s' if count != 1 else ''} in {len(report.analyzed)} " \
              f"file{'s' if len(report.analyzed) != 1 else ''} analyzed"
    if report.errors:
        summary += f"; {len(report.errors)} file{'s' if len(report.errors) != 1 else ''} not analyzed"
    out.append(summary + ".")
    measured, env = confirmations(context)
    if env is not None and measured:
        import io

        from ..confirm.report import render_text
        details = io.StringIO()
        render_text(list(measured.values()), env, details)
        out += ["", "Measured here (mmaplint --confirm):", details.getvalue().rstrip("\n")]
    return "\n".join(out) + "\n"
