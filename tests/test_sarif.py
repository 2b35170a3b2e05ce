"""`--format sarif`: valid against the official SARIF 2.1.0 schema (and the SARIF
Multitool where npx is installed), shaped for GitHub code scanning."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest

from mmaplint.analyzer.facts import Span
from mmaplint.analyzer.findings import FileError, Finding, Related, Report
from mmaplint.analyzer.fingerprints import compute
from mmaplint.analyzer.formats import FormatContext
from mmaplint.analyzer.formats.sarif import build
from mmaplint.analyzer.registry import load_rules

from mmaplint_cli import MSYNC_LOOP, SCHEMA, mmaplint, sarif


def schema_errors(log: dict) -> list[str]:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.validators.validator_for(schema)(schema)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(log)]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "pages.c").write_text(MSYNC_LOOP)
    (tmp_path / "src" / "broken.c").write_bytes(b"\0\1binary")
    return tmp_path


def test_the_schema_is_the_official_one():
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert schema["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    # It rejects what SARIF forbids, so a passing log means something.
    assert schema_errors({"version": "2.1.0", "runs": [{"tool": {}}]})


def test_a_real_run_validates_against_the_schema(project: Path):
    log = sarif("src", cwd=project)
    assert schema_errors(log) == []
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["MML001"]


def test_one_run_with_every_rule_documented(project: Path):
    log = sarif("src", cwd=project)
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "mmaplint" and driver["version"] and driver["informationUri"]
    rules = load_rules()
    assert [r["id"] for r in driver["rules"]] == sorted(rules)
    for descriptor in driver["rules"]:
        rule = rules[descriptor["id"]]
        assert descriptor["shortDescription"]["text"].startswith(rule.summary)
        assert descriptor["fullDescription"]["text"]
        assert descriptor["help"]["markdown"] == rule.doc
        assert descriptor["defaultConfiguration"] == {"level": rule.severity, "enabled": rule.default}
    for result in run["results"]:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]


def test_locations_are_relative_to_srcroot(project: Path):
    (run,) = sarif("src", cwd=project)["runs"]
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": project.resolve().as_uri() + "/"}}
    (result,) = run["results"]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "src/pages.c", "uriBaseId": "%SRCROOT%"}
    assert location["region"]["startLine"] == 7
    assert location["region"]["snippet"]["text"].strip() == "msync(map + off, 4096, MS_SYNC);"
    (loop,) = result["relatedLocations"]
    assert loop["physicalLocation"]["region"]["startLine"] == 5
    assert loop["message"]["text"]
    assert result["properties"]["frontend"] == "tree-sitter"
    # The binary file is reported as a tool notification, not silently dropped.
    (note,) = run["invocations"][0]["toolExecutionNotifications"]
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "src/broken.c"


def test_fingerprints_survive_unrelated_lines_moving(tmp_path: Path):
    before, after = tmp_path / "before", tmp_path / "after"
    before.mkdir(), after.mkdir()
    (before / "pages.c").write_text(MSYNC_LOOP)
    (after / "pages.c").write_text("/* a licence header\n   grew by three lines */\n\n" + MSYNC_LOOP)
    old, new = ([r for r in sarif("pages.c", cwd=d)["runs"][0]["results"]] for d in (before, after))
    assert new[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 10
    assert new[0]["partialFingerprints"] == old[0]["partialFingerprints"]


def _finding(path: str, line: int) -> Finding:
    return Finding("MML001", "msync-in-loop", "warning", Span(path, line, 9, line, 40),
                   f"msync at line {line}", "clang",
                   related=(Related(Span(path, line - 2, 5, line + 1, 5), "this loop"),))


def test_identical_findings_get_distinct_fingerprints(tmp_path: Path):
    source = tmp_path / "twice.c"
    source.write_text(MSYNC_LOOP + "\n" + MSYNC_LOOP.replace("copy_pages", "copy_again"))
    first, second = _finding(str(source), 7), _finding(str(source), 17)
    prints = compute([first, second], str(tmp_path))
    assert len(set(prints.values())) == 2
    # Same text, rule and context: only the occurrence index tells them apart.
    assert compute([second, first], str(tmp_path)) == prints


def test_hand_built_report_with_file_outside_root_and_errors(tmp_path: Path):
    inside, outside = tmp_path / "root", tmp_path / "elsewhere"
    inside.mkdir(), outside.mkdir()
    (outside / "x.c").write_text(MSYNC_LOOP)
    report = Report(findings=[_finding(str(outside / "x.c"), 7)],
                    errors=[FileError(str(inside / "gone.c"), "no such file or directory")],
                    analyzed=[str(outside / "x.c")])
    log = build(report, FormatContext(rules=load_rules(), root=str(inside)))
    assert schema_errors(log) == []
    uri = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert uri == {"uri": (outside / "x.c").as_uri()}


@pytest.mark.skipif(shutil.which("npx") is None, reason="npx (node) is not installed: the SARIF "
                    "Multitool comes from the npm registry")
def test_the_sarif_multitool_finds_no_errors_or_warnings(project: Path, tmp_path: Path):
    log_path, verdict = project / "mmaplint.sarif", tmp_path / "validation.sarif"
    done = mmaplint("check", "--frontend", "tree-sitter", "--format", "sarif", "-o", str(log_path),
                    "src", cwd=project)
    assert done.returncode == 1, done.stderr
    # npx runs the tool through a shell: the level list needs its own quotes.
    tool = subprocess.run(["npx", "--yes", "@microsoft/sarif-multitool", "validate", "--level",
                           '"Error;Warning;Note"', "-o", str(verdict), str(log_path)],
                          capture_output=True, text=True, timeout=600)
    assert tool.returncode == 0, tool.stdout + tool.stderr
    results = [r for run in json.loads(verdict.read_text())["runs"] for r in run.get("results", [])]
    problems = [f"{r['ruleId']}: {r['message']}" for r in results
                if r.get("level", "warning") in ("error", "warning")]
    assert problems == []
    assert results, "the Multitool reported nothing at all: was the log analyzed?"
