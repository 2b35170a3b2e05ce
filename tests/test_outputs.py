"""Outputs never destroy inputs: -o (a report, or a shard's facts), --report and
--write-baseline refuse a path that is one of the files to analyze (also through a symlink or
a hard link), the others the baseline being read, and a report replaces its file only once it
is whole (a temporary file beside it, renamed)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from mmaplint.analyzer import check_command, cli
from mmaplint_cli import MSYNC_LOOP, mmaplint


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """Run from an empty directory so no configuration of this repository applies."""
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("argv, what", [
    (["-o", "victim.c"], "victim.c, a file to analyze"),
    (["-o", "link.txt"], "victim.c, a file to analyze"),                 # a symlink to it
    (["-o", "hard.txt"], "victim.c, a file to analyze"),                 # a hard link to it
    (["--baseline", "victim.c", "--write-baseline"], "victim.c, a file to analyze"),
    (["--baseline", "base.json", "-o", "base.json"], "base.json, the baseline"),
    (["--report", "sarif=victim.c"], "victim.c, a file to analyze"),
    (["--shard", "1/2", "-o", "victim.c"], "victim.c, a file to analyze"),      # a shard's facts
])
def test_outputs_never_overwrite_inputs(capsys, argv, what):
    Path("victim.c").write_text(MSYNC_LOOP)
    Path("other.c").write_text(MSYNC_LOOP)
    Path("link.txt").symlink_to("victim.c")
    os.link("victim.c", "hard.txt")
    assert cli.main(["check", "--frontend", "tree-sitter", "--baseline", "base.json", "--write-baseline",
                     "other.c"]) == 0
    recorded = Path("base.json").read_text()
    capsys.readouterr()
    assert cli.main(["check", "--frontend", "tree-sitter", *argv, "victim.c", "other.c"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mmaplint: error: ") and f"refusing to overwrite {what}\n" in err and err.count("\n") == 1
    assert Path("victim.c").read_text() == MSYNC_LOOP and Path("base.json").read_text() == recorded


def test_a_report_replaces_its_file_only_when_whole(monkeypatch):
    Path("bad.c").write_text(MSYNC_LOOP)
    Path("report.txt").write_text("yesterday's report\n")

    def interrupted(*args):
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(check_command, "analyze_files", interrupted)            # Ctrl-C in the middle of the run
        assert cli.main(["check", "-o", "report.txt", "bad.c"]) == 130
    assert Path("report.txt").read_text() == "yesterday's report\n"
    Path("report.txt").chmod(0o640)
    assert cli.main(["check", "--frontend", "tree-sitter", "--no-cache", "-o", "report.txt", "bad.c"]) == 1
    assert "MML001" in Path("report.txt").read_text()
    assert Path("report.txt").stat().st_mode & 0o777 == 0o640           # the mode it had
    assert sorted(os.listdir()) == ["bad.c", "report.txt"]              # no temporary file left


def test_a_report_to_a_device_is_written_in_place(tmp_path):
    done = mmaplint("check", "--frontend", "tree-sitter", "-o", "/dev/stdout", "bad.c", cwd=tmp_path)
    assert done.returncode == 2 and "bad.c: error: no such file or directory" in done.stdout
