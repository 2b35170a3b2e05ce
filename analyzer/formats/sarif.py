"""`--format sarif`: SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

One run; every installed rule in tool.driver with its documentation; artifact URIs relative
to `%SRCROOT%` (the report root, given absolutely in originalUriBaseIds) so that code
scanning can place them; partialFingerprints from :mod:`mmaplint.analyzer.fingerprints`.
Files that could not be analyzed become tool execution notifications.
"""
from __future__ import annotations

import json
import os
from importlib.metadata import PackageNotFoundError, metadata
from pathlib import Path
from urllib.parse import quote

from ..facts import Span
from ..findings import Finding, Report
from ..fingerprints import FINGERPRINT_KEY, for_report, relative_posix
from ..registry import Rule
from . import FormatContext, confirmations, source_lines

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
LEVELS = {"error": "error", "warning": "warning", "note": "note"}


def _information_uri() -> str:
    try:
        return metadata("mmaplint")["Home-page"] or ""
    except PackageNotFoundError:
        return ""


def _sentence(text: str) -> str:
    """SARIF viewers expect messages to be sentences."""
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def _section(doc: str, title: str) -> str:
    """The text of a `## title` section of a rule's markdown doc, paragraphs joined."""
    lines, inside = [], False
    for line in doc.splitlines():
        if line.startswith("## "):
            inside = line[3:].strip().lower() == title.lower()
        elif inside:
            lines.append(line)
    return " ".join(" ".join(lines).split())


def rule_descriptor(rule: Rule) -> dict:
    properties: dict = {"origin": rule.origin}
    if rule.reproducer:
        properties.update(reproducer=rule.reproducer, confirm=rule.confirm)
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": _sentence(rule.summary)},
        "fullDescription": {"text": _sentence(_section(rule.doc, "What it does") or rule.summary)},
        "help": {"text": _sentence(rule.help), "markdown": rule.doc or rule.help},
        "defaultConfiguration": {"level": LEVELS[rule.severity], "enabled": rule.default},
        "properties": properties,
    }


def _artifact(path: str, root: str) -> dict:
    relative = relative_posix(path, root)
    if relative is None:
        return {"uri": Path(os.path.abspath(path)).as_uri()}
    return {"uri": quote(relative), "uriBaseId": SRCROOT}


def _location(span: Span, root: str, message: str | None = None, snippet: bool = False) -> dict:
    """A physical location; with the source text for a result's own location (related
    locations can be whole loops, too long to copy)."""
    region: dict = {"startLine": span.line, "startColumn": span.column}
    if (span.end_line, span.end_column) >= (span.line, span.column):
        region.update(endLine=span.end_line, endColumn=span.end_column + 1)   # SARIF's end is exclusive
    lines = source_lines(span.path)[span.line - 1:span.end_line] if snippet else ()
    if lines:
        region["snippet"] = {"text": "\n".join(lines) + "\n"}
    location: dict = {"physicalLocation": {"artifactLocation": _artifact(span.path, root),
                                           "region": region}}
    if message:
        location["message"] = {"text": _sentence(message)}
    return location


def _result(finding: Finding, index: int, fingerprint: str, root: str) -> dict:
    result = {
        "ruleId": finding.rule,
        "ruleIndex": index,
        "level": LEVELS[finding.severity],
        "message": {"text": _sentence(finding.message)},
        "locations": [_location(finding.span, root, snippet=True)],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
        "properties": {"frontend": finding.frontend},
    }
    if finding.related:
        result["relatedLocations"] = [dict(id=n, **_location(r.span, root, r.message))
                                      for n, r in enumerate(finding.related, 1)]
    if finding.reproducer:
        result["properties"].update(reproducer=finding.reproducer, confirm=finding.confirm,
                                    params=dict(finding.params))
    return result


def _confirmation(result, env) -> dict:
    """A finding's confirmation in a result's property bag; the environment, shared by all of
    them, goes once into the run's invocation."""
    from ..confirm.report import finding_confirmation
    return {k: v for k, v in finding_confirmation(result, env).items() if k != "environment"}


def build(report: Report, context: FormatContext) -> dict:
    rules = sorted(context.rules.values(), key=lambda r: r.id)
    index = {rule.id: n for n, rule in enumerate(rules)}
    prints = for_report(report.findings, context)
    root_uri = Path(os.path.abspath(context.root)).as_uri().rstrip("/") + "/"
    notifications = [{"level": "error", "message": {"text": _sentence(error.message)},
                      "locations": [{"physicalLocation": {
                          "artifactLocation": _artifact(error.path, context.root)}}]}
                     for error in report.errors]
    driver = {"name": "mmaplint", "version": context.version, "semanticVersion": context.version,
              "rules": [rule_descriptor(rule) for rule in rules]}
    if _information_uri():
        driver["informationUri"] = _information_uri()
    invocation: dict = {"executionSuccessful": True, "toolExecutionNotifications": notifications}
    results = [_result(f, index[f.rule], prints[f], context.root) for f in report.findings]
    measured, env = confirmations(context)
    if env is not None:
        from dataclasses import asdict
        for finding, result in zip(report.findings, results):
            if finding.rule in measured:
                result["properties"]["confirmation"] = _confirmation(measured[finding.rule], env)
        invocation["properties"] = {"confirmation": {"environment": asdict(env),
                                                     "rules": {r: m.verdict for r, m in measured.items()}}}
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": driver},
            "invocations": [invocation],
            "originalUriBaseIds": {SRCROOT: {"uri": root_uri}},
            "columnKind": "unicodeCodePoints",
            "results": results,
            "properties": {"frontends": sorted({f.frontend for f in report.findings}),
                           "analyzed": len(report.analyzed)},
        }],
    }


def render(report: Report, context: FormatContext) -> str:
    return json.dumps(build(report, context), indent=2) + "\n"
