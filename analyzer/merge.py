"""`mmaplint merge a.sarif b.sarif ... -o out.sarif`: the runs of several mmaplint SARIF logs
(one per CI shard) joined into one run, as code scanning wants one run per tool.

The driver's rules are the union by id; each result's ruleIndex is renumbered against it.
The runs must agree on the source root, or their relative URIs would mean different files.
"""
from __future__ import annotations

import json

from .formats.sarif import SCHEMA_URI, SRCROOT


class MergeError(Exception):
    """A log that cannot be merged; one line for the user."""


def _load(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as stream:
            log = json.load(stream)
    except OSError as exc:
        raise MergeError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MergeError(f"{path} is not JSON: {exc}") from None
    if not isinstance(log, dict) or log.get("version") != "2.1.0" or not isinstance(log.get("runs"), list):
        raise MergeError(f"{path} is not a SARIF 2.1.0 log")
    for run in log["runs"]:
        name = run.get("tool", {}).get("driver", {}).get("name") if isinstance(run, dict) else None
        if name != "mmaplint":
            raise MergeError(f"{path} holds a run of {name or 'an unnamed tool'}, not of mmaplint")
    return log


def merge(paths: list[str]) -> dict:
    logs = {path: _load(path) for path in paths}
    try:
        return _join(logs)
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise MergeError(f"malformed SARIF among {', '.join(paths)}: {exc!r}") from None


def _join(logs: dict[str, dict]) -> dict:
    runs = [(path, run) for path, log in logs.items() for run in log["runs"]]
    if not runs:
        raise MergeError("no runs to merge")
    first_path, first = runs[0]
    root = first.get("originalUriBaseIds", {}).get(SRCROOT)
    rules: dict[str, dict] = {}
    for path, run in runs:
        if run.get("originalUriBaseIds", {}).get(SRCROOT) != root:
            raise MergeError(f"{path} has another {SRCROOT} than {first_path}; run every shard "
                             "from the same directory")
        for rule in run["tool"]["driver"].get("rules", []):
            rules.setdefault(rule["id"], rule)
    ordered = [rules[k] for k in sorted(rules)]
    index = {rule["id"]: n for n, rule in enumerate(ordered)}
    results, notifications, frontends, analyzed = [], [], set(), 0
    for path, run in runs:
        for result in run.get("results", []):
            if result.get("ruleId") not in index:
                raise MergeError(f"{path}: result for rule {result.get('ruleId')} not in its driver")
            results.append(dict(result, ruleIndex=index[result["ruleId"]]))
        for invocation in run.get("invocations", []):
            notifications += invocation.get("toolExecutionNotifications", [])
        frontends.update(run.get("properties", {}).get("frontends", []))
        analyzed += run.get("properties", {}).get("analyzed", 0)
    merged = dict(first)
    merged["tool"] = {"driver": dict(first["tool"]["driver"], rules=ordered)}
    merged["invocations"] = [{"executionSuccessful": all(
        i.get("executionSuccessful", True) for _, run in runs for i in run.get("invocations", [])),
        "toolExecutionNotifications": notifications}]
    merged["results"] = results
    merged["properties"] = dict(first.get("properties", {}), frontends=sorted(frontends),
                                analyzed=analyzed)
    return {"$schema": logs[first_path].get("$schema", SCHEMA_URI), "version": "2.1.0", "runs": [merged]}
