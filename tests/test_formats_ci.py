"""`--format github` (workflow commands) and `--format gitlab` (Code Quality JSON)."""
from __future__ import annotations

import json
from pathlib import Path

from mmaplint.analyzer.facts import Span
from mmaplint.analyzer.findings import Finding, Related, Report
from mmaplint.analyzer.formats import FormatContext
from mmaplint.analyzer.formats.github import render
from mmaplint.analyzer.registry import load_formatters, load_rules

from mmaplint_cli import MSYNC_LOOP, mmaplint, sarif


def _github(finding: Finding, root: str) -> list[str]:
    return render(Report(findings=[finding]), FormatContext(rules=load_rules(), root=root)).splitlines()


def test_builtin_formats_register_through_entry_points():
    assert {"text", "json", "sarif", "github", "gitlab"} <= set(load_formatters())


def test_github_escapes_data_and_properties(tmp_path: Path):
    path = tmp_path / "odd:dir,name" / "a.c"
    finding = Finding("MML005", "stdio-flush-per-iteration", "note", Span(str(path), 3, 5, 3, 12),
                      "100% of writes\r\nflush", "tree-sitter")
    (line,) = _github(finding, str(tmp_path))
    assert line == ("::notice file=odd%3Adir%2Cname/a.c,line=3,endLine=3,col=5,endColumn=12,"
                    "title=MML005 stdio-flush-per-iteration::100%25 of writes%0D%0Aflush"
                    "%0Ahelp: " + load_rules()["MML005"].help)


def test_github_drops_columns_for_a_multiline_span(tmp_path: Path):
    finding = Finding("MML001", "msync-in-loop", "warning", Span(str(tmp_path / "a.c"), 7, 9, 9, 2),
                      "msync per page", "clang",
                      related=(Related(Span(str(tmp_path / "a.c"), 5, 5, 10, 5), "this loop"),),
                      confirm="mmaplint confirm MML001")
    (line,) = _github(finding, str(tmp_path))
    properties, message = line.split("::")[1:]
    assert properties == "warning file=a.c,line=7,endLine=9,title=MML001 msync-in-loop"
    assert message.split("%0A") == ["msync per page", "note: a.c:5: this loop",
                                    "help: " + load_rules()["MML001"].help,
                                    "measure it here: mmaplint confirm MML001"]


def test_github_on_a_real_run(tmp_path: Path):
    (tmp_path / "pages.c").write_text(MSYNC_LOOP)
    done = mmaplint("check", "--frontend", "tree-sitter", "--format", "github", "pages.c", cwd=tmp_path)
    assert done.returncode == 1
    (line,) = done.stdout.splitlines()
    assert line.startswith("::warning file=pages.c,line=7,endLine=7,col=9,")


def test_gitlab_code_quality_shares_the_sarif_fingerprint(tmp_path: Path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "pages.c").write_text(MSYNC_LOOP)
    done = mmaplint("check", "--frontend", "tree-sitter", "--format", "gitlab", "src", cwd=tmp_path)
    assert done.returncode == 1
    (issue,) = json.loads(done.stdout)
    assert issue["check_name"] == "MML001" and issue["severity"] == "major"
    assert issue["location"] == {"path": "src/pages.c", "lines": {"begin": 7, "end": 7}}
    assert issue["description"].startswith("MML001 [msync-in-loop] ")
    (result,) = sarif("src", cwd=tmp_path)["runs"][0]["results"]
    assert issue["fingerprint"] == result["partialFingerprints"]["mmaplint/v2"]


def test_gitlab_on_a_clean_run_is_an_empty_list(tmp_path: Path):
    (tmp_path / "ok.c").write_text("int main(void) { return 0; }\n")
    done = mmaplint("check", "--frontend", "tree-sitter", "--format", "gitlab", "ok.c", cwd=tmp_path)
    assert (done.returncode, json.loads(done.stdout)) == (0, [])
