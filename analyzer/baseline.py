"""Baselines: record today's findings by fingerprint, then report only findings not recorded.

Matching is by :mod:`mmaplint.analyzer.fingerprints`, never by line, so code that moves does
not bring recorded findings back.  A finding whose fingerprint is not recorded still matches
an entry of the same rule and source text (its content key) whose file is gone: a renamed
file keeps its findings baselined.  The file is JSON with the location and message of each
recorded finding, for people reading it in review.
"""
from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass

from .errors import UserError
from .fileio import write_whole
from .findings import Finding
from .fingerprints import content_key, shown_path

VERSION = 2


class BaselineError(UserError):
    """A baseline file that cannot be read or written; one line for the user."""


@dataclass(frozen=True)
class Entry:
    fingerprint: str
    content: str
    path: str             # relative to the report root, as recorded


def write(path: str, findings: list[Finding], prints: dict[Finding, str], root: str,
          tool_version: str) -> None:
    entries = [{"fingerprint": prints[f], "content": content_key(f), "rule": f.rule,
                "path": shown_path(f.span.path, root),
                "line": f.span.line, "message": f.message} for f in findings]
    text = json.dumps({"version": VERSION, "tool": f"mmaplint {tool_version}", "findings": entries}, indent=2)
    try:
        write_whole(path, text + "\n")
    except OSError as exc:
        raise BaselineError(f"cannot write baseline {path}: {exc.strerror or exc}") from None


def read(path: str) -> list[Entry]:
    """The entries a baseline file records."""
    try:
        with open(path, encoding="utf-8") as stream:
            data = json.load(stream)
    except OSError as exc:
        raise BaselineError(f"cannot read baseline {path}: {exc.strerror or exc} "
                            "(create it with --write-baseline)") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BaselineError(f"baseline {path} is not JSON: {exc}") from None
    if isinstance(data, dict) and data.get("version") == 1:
        raise BaselineError(f"baseline {path} was written by an older mmaplint (version 1 "
                            "fingerprints); record it again with --write-baseline")
    fields = ("fingerprint", "content", "path")
    if not isinstance(data, dict) or data.get("version") != VERSION or \
            not isinstance(data.get("findings"), list) or \
            not all(isinstance(e, dict) and all(isinstance(e.get(k), str) for k in fields)
                    for e in data["findings"]):
        raise BaselineError(f"baseline {path} is not an mmaplint baseline (version {VERSION})")
    return [Entry(*(e[k] for k in fields)) for e in data["findings"]]


def new_findings(findings: list[Finding], prints: dict[Finding, str], recorded: list[Entry],
                 root: str) -> list[Finding]:
    """The findings the baseline does not record, by fingerprint, or by content key for an
    entry whose file no longer exists (each such entry matches one finding)."""
    known = {e.fingerprint for e in recorded}
    fresh = [f for f in findings if prints[f] not in known]
    current = set(prints.values())
    moved = Counter(e.content for e in recorded if e.fingerprint not in current
                    and not os.path.exists(os.path.join(root, e.path)))
    left = []
    for finding in fresh:
        if moved[content_key(finding)] > 0:
            moved[content_key(finding)] -= 1
        else:
            left.append(finding)
    return left
