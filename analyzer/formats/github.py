"""`--format github`: GitHub Actions workflow commands, which annotate the pull request.

    ::warning file=src/a.c,line=12,endLine=12,col=5,endColumn=30,title=MML001 msync-in-loop::message

Escaped as GitHub's toolkit does: %, CR and LF in the message; also `:` and `,` in properties.
A finding that spans lines gets no column (GitHub then marks whole lines).
"""
from __future__ import annotations

from ..findings import Finding, Report
from ..fingerprints import shown_path
from . import FormatContext

COMMANDS = {"error": "error", "warning": "warning", "note": "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(kind: str, message: str, **properties: str | int) -> str:
    listed = ",".join(f"{name}={escape_property(str(value))}" for name, value in properties.items())
    return f"::{kind} {listed}::{escape_data(message)}" if listed else f"::{kind}::{escape_data(message)}"


def annotation(f: Finding, context: FormatContext) -> str:
    span = f.span
    where: dict[str, str | int] = {"file": shown_path(span.path, context.root), "line": span.line,
                                   "endLine": span.end_line}
    if span.end_line == span.line:
        where.update(col=span.column, endColumn=span.end_column)
    lines = [f.message]
    lines += [f"note: {shown_path(r.span.path, context.root)}:{r.span.line}: {r.message}" for r in f.related]
    rule = context.rules.get(f.rule)
    if rule is not None and rule.help:
        lines.append(f"help: {rule.help}")
    if f.confirm:
        lines.append(f"measure it here: {f.confirm}")
    return command(COMMANDS[f.severity], "\n".join(lines), **where, title=f"{f.rule} {f.name}")


def render(report: Report, context: FormatContext) -> str:
    out = [annotation(f, context) for f in report.findings]
    out += [command("error", f"not analyzed: {e.message}", file=shown_path(e.path, context.root), title="mmaplint")
            for e in report.errors]
    return "".join(line + "\n" for line in out)
