"""`--format gitlab`: GitLab Code Quality (a Code Climate subset), for merge request widgets.

Each issue carries the shared stable fingerprint, so GitLab tells new findings from old ones
even when lines move.
"""
from __future__ import annotations

import json

from ..findings import Report
from ..fingerprints import for_report, shown_path
from . import FormatContext

SEVERITIES = {"error": "critical", "warning": "major", "note": "info"}


def render(report: Report, context: FormatContext) -> str:
    prints = for_report(report.findings, context)
    issues = [{
        "type": "issue",
        "check_name": f.rule,
        "description": f"{f.rule} [{f.name}] {f.message}",
        "categories": ["Performance"],
        "severity": SEVERITIES[f.severity],
        "fingerprint": prints[f],
        "location": {"path": shown_path(f.span.path, context.root),
                     "lines": {"begin": f.span.line, "end": f.span.end_line}},
    } for f in report.findings]
    return json.dumps(issues, indent=2) + "\n"
