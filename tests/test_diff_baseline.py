"""`--diff REF` (only findings on lines changed since a git revision) and baselines
(`--baseline FILE`, `--write-baseline`: only findings not recorded, matched by fingerprint)."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from mmaplint.analyzer.changed_lines import parse_hunks

from mmaplint_cli import CALLER, CLEAN, HELPER, MSYNC_LOOP, in_process

SECOND_LOOP = MSYNC_LOOP.replace("copy_pages", "copy_more").split("\n", 3)[3]   # no #includes


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
                          cwd=cwd, check=True, capture_output=True, text=True).stdout


def check(*args: str, cwd: Path):
    return in_process("check", "--frontend", "tree-sitter", "-j", "1", "--format", "json", *args, cwd=cwd)


def lines(done) -> list[int]:
    return [f["line"] for f in json.loads(done.stdout)["findings"]]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git("init", "-q", cwd=tmp_path)
    (tmp_path / "pages.c").write_text(MSYNC_LOOP)
    git("add", "pages.c", cwd=tmp_path)
    git("commit", "-q", "-m", "start", cwd=tmp_path)
    return tmp_path


def test_diff_reports_only_findings_on_changed_lines(repo: Path):
    # Moved down by a new comment, the old finding is on an unchanged line; the new loop is new.
    (repo / "pages.c").write_text("/* moved */\n" + MSYNC_LOOP + SECOND_LOOP)
    assert lines(check("pages.c", cwd=repo)) == [8, 14]
    done = check("--diff", "HEAD", "pages.c", cwd=repo)
    assert (done.returncode, lines(done)) == (1, [14])


def test_diff_with_nothing_changed_is_clean(repo: Path):
    done = check("--diff", "HEAD", ".", cwd=repo)
    assert (done.returncode, lines(done)) == (0, [])


def test_a_file_git_does_not_track_yet_is_all_new(repo: Path):
    (repo / "new.c").write_text(MSYNC_LOOP)
    assert lines(check("--diff", "HEAD", "new.c", cwd=repo)) == [7]


def test_diff_outside_git_is_a_one_line_error(tmp_path: Path):
    (tmp_path / "pages.c").write_text(MSYNC_LOOP)
    done = check("--diff", "HEAD", "pages.c", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == "mmaplint: error: pages.c: not in a git work tree, so --diff cannot " \
                          "tell its changed lines\n"


def test_diff_against_an_unknown_revision(repo: Path):
    done = check("--diff", "no-such-branch", "pages.c", cwd=repo)
    assert done.returncode == 2 and done.stderr.startswith("mmaplint: error: --diff no-such-branch: ")
    assert len(done.stderr.splitlines()) == 1


def test_hunk_headers():
    diff = ("diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n@@ -1,0 +2,3 @@ int f()\n+a\n+b\n+c\n"
            "@@ -9 +12 @@\n-x\n+y\n@@ -20,2 +22,0 @@\n-gone\n-gone\n"
            "--- a/old.c\n+++ /dev/null\n@@ -1 +0,0 @@\n-z\n")
    assert parse_hunks(diff, "/top") == {"/top/x.c": {2, 3, 4, 12}}


def test_baseline_reports_only_new_findings_even_after_lines_move(tmp_path: Path):
    source, recorded = tmp_path / "pages.c", tmp_path / "mmaplint-baseline.json"
    source.write_text(MSYNC_LOOP)
    done = check("--baseline", recorded.name, "--write-baseline", "pages.c", cwd=tmp_path)
    assert done.returncode == 0 and lines(done) == []
    entries = json.loads(recorded.read_text())["findings"]
    assert [(e["rule"], e["path"], e["line"]) for e in entries] == [("MML001", "pages.c", 7)]

    source.write_text("/* three\n   new\n   lines */\n" + MSYNC_LOOP)
    done = check("--baseline", recorded.name, "pages.c", cwd=tmp_path)
    assert (done.returncode, lines(done)) == (0, [])

    source.write_text("/* three\n   new\n   lines */\n" + MSYNC_LOOP + SECOND_LOOP)
    done = check("--baseline", recorded.name, "pages.c", cwd=tmp_path)
    assert (done.returncode, lines(done)) == (1, [16])


def test_baseline_errors_are_one_line(tmp_path: Path):
    (tmp_path / "ok.c").write_text(CLEAN)
    (tmp_path / "not-json.json").write_text("{")
    (tmp_path / "other.json").write_text('{"findings": 3}')
    for args, message in [
            (["--baseline", "missing.json"], "cannot read baseline missing.json"),
            (["--baseline", "not-json.json"], "baseline not-json.json is not JSON"),
            (["--baseline", "other.json"], "baseline other.json is not an mmaplint baseline"),
            (["--write-baseline"], "--write-baseline needs --baseline FILE")]:
        done = check(*args, "ok.c", cwd=tmp_path)
        assert done.returncode == 2
        assert done.stderr.startswith(f"mmaplint: error: {message}") and done.stderr.count("\n") == 1


def test_a_baselined_finding_survives_its_loop_header_changing(tmp_path: Path):
    source, recorded = tmp_path / "pages.c", "baseline.json"
    source.write_text(MSYNC_LOOP)
    assert check("--baseline", recorded, "--write-baseline", "pages.c", cwd=tmp_path).returncode == 0
    source.write_text(MSYNC_LOOP.replace("off += 4096)", "off = off + 4096)"))
    assert lines(check("pages.c", cwd=tmp_path)) == [7]            # still a finding...
    done = check("--baseline", recorded, "pages.c", cwd=tmp_path)
    assert (done.returncode, lines(done)) == (0, [])               # ...and still baselined


def test_a_baselined_finding_survives_its_file_being_renamed(tmp_path: Path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "pages.c").write_text(MSYNC_LOOP + SECOND_LOOP)
    assert check("--baseline", "b.json", "--write-baseline", "src", cwd=tmp_path).returncode == 0
    (tmp_path / "src" / "pages.c").rename(tmp_path / "src" / "copy.c")
    done = check("--baseline", "b.json", "src", cwd=tmp_path)
    assert (done.returncode, lines(done)) == (0, [])
    # a third copy of the same code is new: each recorded entry matches one finding
    (tmp_path / "src" / "more.c").write_text(MSYNC_LOOP)
    done = check("--baseline", "b.json", "src", cwd=tmp_path)
    assert (done.returncode, [(f["path"], f["line"]) for f in json.loads(done.stdout)["findings"]]) == \
        (1, [("src/more.c", 7)])


def test_an_old_baseline_is_a_clear_error(tmp_path: Path):
    (tmp_path / "ok.c").write_text(CLEAN)
    (tmp_path / "old.json").write_text('{"version": 1, "findings": []}')
    done = check("--baseline", "old.json", "ok.c", cwd=tmp_path)
    assert done.returncode == 2 and "written by an older mmaplint" in done.stderr


@pytest.fixture
def program(tmp_path: Path) -> Path:
    git("init", "-q", cwd=tmp_path)
    (tmp_path / "helper.c").write_text(HELPER)
    (tmp_path / "caller.c").write_text(CALLER)
    git("add", ".", cwd=tmp_path)
    git("commit", "-q", "-m", "start", cwd=tmp_path)
    return tmp_path


def test_diff_reports_a_change_that_makes_another_files_call_per_iteration(program: Path):
    # the helper changes; the loop that makes its msync per iteration is in an unchanged file,
    # where the finding points (at the call in the loop), its chain reaching the changed line
    (program / "helper.c").write_text(HELPER.replace("(void)page;", "msync(page, 4096, MS_SYNC);"))
    done = check("--diff", "HEAD", ".", cwd=program)
    (finding,) = json.loads(done.stdout)["findings"]
    assert (finding["path"], finding["line"]) == ("caller.c", 5)
    assert ("helper.c", 4) in [(r["path"], r["line"]) for r in finding["related"]]


def test_diff_reports_a_loop_added_around_an_unchanged_helper(program: Path):
    (program / "helper.c").write_text(HELPER.replace("(void)page;", "msync(page, 4096, MS_SYNC);"))
    (program / "caller.c").write_text("void write_pages(char *map, long pages) {}\n")
    git("commit", "-qam", "a sync", cwd=program)
    assert lines(check("--diff", "HEAD", ".", cwd=program)) == []
    (program / "caller.c").write_text(CALLER)
    done = check("--diff", "HEAD", ".", cwd=program)
    assert [(f["path"], f["line"]) for f in json.loads(done.stdout)["findings"]] == [("caller.c", 5)]


def test_program_reports_only_what_touches_the_files_named(program: Path):
    (program / "helper.c").write_text(HELPER.replace("(void)page;", "msync(page, 4096, MS_SYNC);"))
    (program / "other.c").write_text(MSYNC_LOOP)
    assert lines(check("helper.c", cwd=program)) == []          # alone, no loop calls it
    for named in ("helper.c", "caller.c"):                     # the finding's chain touches both
        done = check("--program", ".", named, cwd=program)
        assert [(f["path"], f["line"]) for f in json.loads(done.stdout)["findings"]] == [("caller.c", 5)]
    done = check("--program", ".", "other.c", cwd=program)
    assert [(f["path"], f["line"]) for f in json.loads(done.stdout)["findings"]] == [("other.c", 7)]


def test_diff_head_before_the_first_commit_is_all_new(tmp_path: Path):
    git("init", "-q", cwd=tmp_path)
    (tmp_path / "pages.c").write_text(MSYNC_LOOP)
    git("add", ".", cwd=tmp_path)
    done = check("--diff", "HEAD", "pages.c", cwd=tmp_path)
    assert (done.returncode, lines(done)) == (1, [7])
