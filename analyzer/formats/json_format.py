"""`--format json`: the machine-readable report, in a deterministic order.  Paths are relative
to the report root where they can be (as in SARIF and GitLab's format), and each finding
carries the stable fingerprint baselines and SARIF use."""
from __future__ import annotations

import json

from ..findings import Finding, Report
from ..fingerprints import for_report, shown_path
from . import FormatContext, confirmations


def finding_dict(f: Finding, fingerprint: str, root: str) -> dict:
    return {
        "rule": f.rule, "name": f.name, "severity": f.severity,
        "path": shown_path(f.span.path, root), "line": f.span.line, "column": f.span.column,
        "end_line": f.span.end_line, "end_column": f.span.end_column,
        "message": f.message, "frontend": f.frontend, "fingerprint": fingerprint,
        "related": [{"path": shown_path(r.span.path, root), "line": r.span.line, "message": r.message}
                    for r in f.related],
        "reproducer": f.reproducer, "confirm": f.confirm,
    }


def render(report: Report, context: FormatContext) -> str:
    prints = for_report(report.findings, context)
    doc = {
        "version": context.version,
        "findings": [finding_dict(f, prints[f], context.root) for f in report.findings],
        "errors": [{"path": shown_path(e.path, context.root), "message": e.message} for e in report.errors],
    }
    measured, env = confirmations(context)
    if env is not None:
        from dataclasses import asdict

        from ..confirm.report import finding_confirmation, rule_doc
        for finding, out in zip(report.findings, doc["findings"]):
            if finding.rule in measured:
                out["confirmation"] = finding_confirmation(measured[finding.rule], env)
        doc["confirmations"] = {"environment": asdict(env), "results": [rule_doc(r) for r in measured.values()]}
    return json.dumps(doc, indent=2) + "\n"
