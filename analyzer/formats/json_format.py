"""`--format json`: the machine-readable report, in a deterministic order."""
from __future__ import annotations

import json

from ..findings import Finding, Report
from . import FormatContext


def finding_dict(f: Finding) -> dict:
    return {
        "rule": f.rule, "name": f.name, "severity": f.severity,
        "path": f.span.path, "line": f.span.line, "column": f.span.column,
        "end_line": f.span.end_line, "end_column": f.span.end_column,
        "message": f.message, "frontend": f.frontend,
        "related": [{"path": r.span.path, "line": r.span.line, "message": r.message}
                    for r in f.related],
        "reproducer": f.reproducer, "confirm": f.confirm,
    }


def render(report: Report, context: FormatContext) -> str:
    return json.dumps({
        "version": context.version,
        "findings": [finding_dict(f) for f in report.findings],
        "errors": [{"path": e.path, "message": e.message} for e in report.errors],
    }, indent=2) + "\n"
