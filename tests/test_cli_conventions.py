"""The conventions users of ruff, semgrep and clang-tidy take for granted: `.` by default,
subcommands with helps of their own, a typo'd command caught, help for every option,
--statistics, -q, the standard input with --stdin-filename, a missing path failing the run,
ALL in per-file-ignores, and JSON findings named as SARIF names them."""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from mmaplint.analyzer import check_command, cli
from mmaplint.analyzer.cli import main
from mmaplint.analyzer.registry import load_formatters

from mmaplint_cli import CLEAN, MSYNC_LOOP, mmaplint
from test_cli import ALL_RULES


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORCE_COLOR", raising=False)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_current_directory_by_default(tmp_path, capsys):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "pages.c").write_text(MSYNC_LOOP)
    for argv in ([], ["check"], ["--frontend", "tree-sitter"]):
        code, out, _ = run(capsys, *argv)
        assert code == 1 and out.startswith("src/pages.c:7:9: MML001"), argv


def test_a_missing_path_fails_whatever_else_ran(tmp_path, capsys):
    (tmp_path / "ok.c").write_text(CLEAN)
    code, out, _ = run(capsys, "check", "--frontend", "tree-sitter", "ok.c", "no/such/dir")
    assert code == 2
    assert "no/such/dir: error: no such file or directory" in out
    assert out.endswith("Found 0 findings in 1 file analyzed; 1 file not analyzed.\n")


def test_help_lists_the_commands_and_each_has_its_own(capsys):
    code, overview, _ = run(capsys, "--help")
    assert code == 0
    for command in cli.COMMANDS:
        assert f"\n  {command} " in overview
    helps = {}
    for command in cli.COMMANDS:
        with pytest.raises(SystemExit) as exit_:
            main([command, "--help"])
        assert exit_.value.code == 0
        helps[command] = capsys.readouterr().out
        assert helps[command].startswith(f"usage: mmaplint {command}")
    assert len(set(helps.values())) == len(cli.COMMANDS) and overview not in helps.values()
    assert "--stdin-filename" in helps["check"] and "--exclude" in helps["check"]


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["corpus", "list"]])
def test_what_needs_no_analysis_starts_without_the_analyzer(argv):
    # start-up is what a hook pays on every commit: the analyzer, the output formats and the
    # installed plugins' metadata load only for the commands that use them
    probe = ("import sys\nfrom mmaplint.analyzer.cli import main\nmain(sys.argv[1:])\n"
             "print(sorted(m for m in ('mmaplint.analyzer.engine', 'mmaplint.analyzer.program', "
             "'mmaplint.analyzer.facts', 'mmaplint.analyzer.formats', 'importlib.metadata') "
             "if m in sys.modules), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout
    assert done.stderr.strip().splitlines()[-1] == "[]"


def _parsers() -> dict[str, argparse.ArgumentParser]:
    """Every command's parser, caught as it is about to parse."""
    found = {}

    def catch(self, args=None, namespace=None):
        found[self.prog] = self
        raise SystemExit(0)

    original = argparse.ArgumentParser.parse_args
    argparse.ArgumentParser.parse_args = catch
    try:
        for command in cli.COMMANDS:
            try:
                main([command])
            except SystemExit:
                pass
    finally:
        argparse.ArgumentParser.parse_args = original
    return found


def test_every_option_has_help():
    parsers = _parsers()
    assert set(parsers) == {f"mmaplint {c}" for c in cli.COMMANDS}
    for prog, parser in parsers.items():
        for action in parser._actions:
            assert action.help and action.help != argparse.SUPPRESS, (prog, action.option_strings or action.dest)


@pytest.mark.parametrize("typo, command", [("explian", "explain"), ("rulse", "rules"), ("merg", "merge")])
def test_a_mistyped_command_is_caught(capsys, typo, command):
    code, out, err = run(capsys, typo, "MML001")
    assert code == 2 and out == ""
    assert err == (f"mmaplint: error: unknown command {typo!r}; did you mean `mmaplint {command}`? "
                   "(no file or directory of that name either)\n")


def test_a_directory_named_like_a_command_typo_is_a_path(tmp_path, capsys):
    (tmp_path / "explian").mkdir()
    (tmp_path / "explian" / "a.c").write_text(MSYNC_LOOP)
    assert run(capsys, "explian", "--frontend", "tree-sitter")[0] == 1


def test_statistics(tmp_path, capsys):
    (tmp_path / "log.c").write_text(ALL_RULES)
    (tmp_path / "pages.c").write_text(MSYNC_LOOP)
    (tmp_path / "more.c").write_text(MSYNC_LOOP.replace("copy_pages", "copy_more"))
    code, out, _ = run(capsys, "--frontend", "tree-sitter", "--statistics", ".")
    assert code == 1
    assert out == "2  MML001  msync-in-loop\n1  MML004  stdio-default-buffer-in-loop\n" \
                  "1  MML005  stdio-flush-per-iteration\n"
    code, out, _ = run(capsys, "--frontend", "tree-sitter", "--statistics", "--format", "json", ".")
    assert json.loads(out)[0] == {"rule": "MML001", "name": "msync-in-loop", "count": 2}
    code, _, err = run(capsys, "--statistics", "--format", "sarif", ".")
    assert code == 2 and "--statistics prints text or json" in err


def test_quiet_prints_the_findings_only(tmp_path, capsys):
    (tmp_path / "pages.c").write_text(MSYNC_LOOP)
    _, loud, _ = run(capsys, "--frontend", "tree-sitter", "pages.c")
    code, quiet, err = run(capsys, "--frontend", "tree-sitter", "-q", "--baseline", "b.json",
                           "--write-baseline", "pages.c")
    assert (code, quiet, err) == (0, "", "")
    code, quiet, _ = run(capsys, "--frontend", "tree-sitter", "-q", "pages.c")
    assert code == 1 and loud.startswith(quiet) and "Found" not in quiet
    assert loud[len(quiet):] == "Found 1 finding in 1 file analyzed.\n"


def test_the_standard_input_as_a_named_file(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "pages.c").write_text(CLEAN)        # the disk holds another text
    done = subprocess.run([sys.executable, "-m", "mmaplint", "check", "-", "--stdin-filename",
                           "src/pages.c", "--frontend", "tree-sitter"], input=MSYNC_LOOP,
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("src/pages.c:7:9: MML001 [msync-in-loop]")
    assert lines[2] == "7 |         msync(map + off, 4096, MS_SYNC);"    # the excerpt is stdin's
    done = subprocess.run([sys.executable, "-m", "mmaplint", "-", "--stdin-filename", "x.c",
                           "--format", "json"], input=CLEAN, capture_output=True, text=True,
                          cwd=tmp_path)
    assert done.returncode == 0 and json.loads(done.stdout)["findings"] == []
    assert not (tmp_path / ".mmaplint_cache").exists()      # an editor's buffer is not cached


def test_stdin_filename_needs_the_dash(capsys):
    code, _, err = run(capsys, "--stdin-filename", "a.c", "b.c")
    assert code == 2 and "give PATH -" in err


def test_all_in_per_file_ignores(tmp_path, capsys):
    (tmp_path / "pyproject.toml").write_text('[tool.mmaplint]\nper-file-ignores = { "build/*" = ["ALL"] }\n')
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "gen.c").write_text(ALL_RULES)
    (tmp_path / "pages.c").write_text(MSYNC_LOOP)
    code, out, _ = run(capsys, "--frontend", "tree-sitter", "--format", "json", ".")
    assert [(f["path"], f["rule"]) for f in json.loads(out)["findings"]] == [("pages.c", "MML001")]


def test_json_names_findings_as_sarif_does(tmp_path):
    (tmp_path / "engines").mkdir()
    (tmp_path / "engines" / "mmap.c").write_text(MSYNC_LOOP)
    formats = {}
    for fmt in ("json", "sarif"):
        done = mmaplint("check", "--frontend", "tree-sitter", "--format", fmt, "./engines", cwd=tmp_path)
        formats[fmt] = json.loads(done.stdout)
    (finding,) = formats["json"]["findings"]
    (result,) = formats["sarif"]["runs"][0]["results"]
    assert finding["path"] == result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] \
        == "engines/mmap.c"
    assert finding["fingerprint"] == result["partialFingerprints"]["mmaplint/v2"]


def test_one_analysis_writes_several_reports(tmp_path, capsys):
    (tmp_path / "pages.c").write_text(MSYNC_LOOP)
    code, out, _ = run(capsys, "--frontend", "tree-sitter", "--format", "github",
                       "--report", "sarif=out.sarif", "--report", "json=out.json", "pages.c")
    assert code == 1 and out.startswith("::warning file=pages.c,line=7")
    assert json.loads((tmp_path / "out.sarif").read_text())["runs"][0]["results"][0]["ruleId"] == "MML001"
    assert json.loads((tmp_path / "out.json").read_text())["findings"][0]["line"] == 7
    for bad, message in [("sarif", "expected FORMAT=FILE"), ("yaml=x", "unknown format 'yaml'")]:
        code, _, err = run(capsys, "--report", bad, "pages.c")
        assert code == 2 and message in err


def test_every_builtin_format_is_offered():
    assert {"text", "json", "sarif", "github", "gitlab"} <= set(load_formatters())
    help_text = check_command._check_parser(sorted(load_formatters())).format_help()
    assert "{github,gitlab,json,sarif,text}" in help_text


def test_paths_in_text_are_normalised(tmp_path, capsys):
    (tmp_path / "engines").mkdir()
    (tmp_path / "engines" / "mmap.c").write_text(MSYNC_LOOP)
    _, out, _ = run(capsys, "--frontend", "tree-sitter", "./engines")
    assert out.startswith("engines/mmap.c:7:9:")
    assert Path("engines/mmap.c").exists()
