"""Baselines: record today's findings by fingerprint, then report only findings not recorded.

Matching is by :mod:`mmaplint.analyzer.fingerprints`, never by line, so code that moves does
not bring recorded findings back.  The file is JSON with the location and message of each
recorded finding, for people reading it in review.
"""
from __future__ import annotations

import json

from .findings import Finding
from .fingerprints import shown_path

VERSION = 1


class BaselineError(Exception):
    """A baseline file that cannot be read or written; one line for the user."""


def write(path: str, findings: list[Finding], prints: dict[Finding, str], root: str,
          tool_version: str) -> None:
    entries = [{"fingerprint": prints[f], "rule": f.rule,
                "path": shown_path(f.span.path, root),
                "line": f.span.line, "message": f.message} for f in findings]
    try:
        with open(path, "w", encoding="utf-8") as stream:
            json.dump({"version": VERSION, "tool": f"mmaplint {tool_version}", "findings": entries},
                      stream, indent=2)
            stream.write("\n")
    except OSError as exc:
        raise BaselineError(f"cannot write baseline {path}: {exc.strerror or exc}") from None


def read(path: str) -> set[str]:
    """The fingerprints a baseline file records."""
    try:
        with open(path, encoding="utf-8") as stream:
            data = json.load(stream)
    except OSError as exc:
        raise BaselineError(f"cannot read baseline {path}: {exc.strerror or exc} "
                            "(create it with --write-baseline)") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BaselineError(f"baseline {path} is not JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("version") != VERSION or \
            not isinstance(data.get("findings"), list) or \
            not all(isinstance(e, dict) and isinstance(e.get("fingerprint"), str)
                    for e in data["findings"]):
        raise BaselineError(f"baseline {path} is not an mmaplint baseline (version {VERSION})")
    return {entry["fingerprint"] for entry in data["findings"]}


def new_findings(findings: list[Finding], prints: dict[Finding, str],
                 recorded: set[str]) -> list[Finding]:
    return [f for f in findings if prints[f] not in recorded]
