"""Stable finding fingerprints, shared by SARIF (partialFingerprints), GitLab Code Quality and
baselines.

A fingerprint must survive edits elsewhere in the file, so it never hashes a line number: it
hashes the rule id, the file's path relative to the report root, the finding's own source
text with whitespace collapsed and, for findings that agree on all of that, their occurrence
index in file order.  Not its related locations: rewriting the loop around a call
(`i++` to `++i`) leaves the call the same finding.  A file's rename changes the path, so
baselines also record the content key (rule and source text alone) to match a finding whose
recorded file is gone.
"""
from __future__ import annotations

import hashlib
import os
from collections import Counter
from pathlib import Path, PurePosixPath

from .findings import Finding
from .formats import FormatContext, source_lines

FINGERPRINT_KEY = "mmaplint/v2"   # the partialFingerprints key; bump when the recipe changes
CONTEXT_KEY = "fingerprints"      # FormatContext.extra entry computed before any filtering


def relative_posix(path: str, root: str) -> str | None:
    """`path` relative to `root` with forward slashes, or None when it lies outside root."""
    relative = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    if relative == ".." or relative.startswith(".." + os.sep):
        return None
    return PurePosixPath(Path(relative)).as_posix()


def shown_path(path: str, root: str) -> str:
    """How reports name a file: relative to the report root when inside it, else as given."""
    return relative_posix(path, root) or path


def _text(path: str, first: int, last: int) -> str:
    lines = source_lines(path)[max(first, 1) - 1:last]
    return " ".join(" ".join(lines).split())


def _flagged(finding: Finding) -> str:
    return _text(finding.span.path, finding.span.line, finding.span.end_line)


def _key(finding: Finding, root: str) -> str:
    shown = relative_posix(finding.span.path, root) or Path(os.path.abspath(finding.span.path)).as_posix()
    return "\0".join([finding.rule, shown, _flagged(finding)])


def content_key(finding: Finding) -> str:
    """What the finding is wherever its file is: the rule and the flagged source text."""
    return hashlib.sha256(f"{finding.rule}\0{_flagged(finding)}".encode("utf-8", "surrogateescape")).hexdigest()[:32]


def compute(findings: list[Finding], root: str = ".") -> dict[Finding, str]:
    """Every finding's fingerprint (32 hex digits); pass a run's full, sorted list of findings."""
    seen: Counter[str] = Counter()
    prints = {}
    for finding in sorted(findings, key=lambda f: f.sort_key):
        key = _key(finding, root)
        digest = hashlib.sha256(f"{key}\0{seen[key]}".encode("utf-8", "surrogateescape"))
        seen[key] += 1
        prints[finding] = digest.hexdigest()[:32]
    return prints


def for_report(findings: list[Finding], context: FormatContext) -> dict[Finding, str]:
    """The fingerprints the command line computed before --diff/--baseline filtered the
    findings (occurrence indices count the whole file), else computed here."""
    return context.extra.get(CONTEXT_KEY) or compute(findings, context.root)
