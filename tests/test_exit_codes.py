"""A bug of mmaplint's is one line naming where it happened, with an exit code of its own (3,
not 1 = findings nor 2 = usage); options that name nothing are usage errors; Ctrl-C, SIGTERM
or SIGHUP, even while Python is still loading the analyzer, is one line and 128 + the signal
(test_interrupts.py: at the other moments of a run)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from mmaplint.analyzer import check_command, cli
from mmaplint_cli import MSYNC_LOOP


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """Run from an empty directory so no configuration of this repository applies."""
    monkeypatch.chdir(tmp_path)
    Path("bad.c").write_text(MSYNC_LOOP)


def test_an_internal_error_has_its_own_exit_code_and_one_line(capsys, monkeypatch):
    def broken(*args):
        raise KeyError("simulated\nbug")

    monkeypatch.setattr(check_command, "analyze_files", broken)
    code = cli.main(["check", "bad.c"])
    err = capsys.readouterr().err
    assert code == cli.EXIT_INTERNAL == 3
    assert err.startswith("mmaplint: internal error (KeyError: 'simulated\\nbug') at tests")
    assert err.endswith("; please report it\n") and err.count("\n") == 1


@pytest.mark.parametrize("argv, message", [
    (["--select", ""], "--select names no rule"),
    (["--select", " , "], "--select names no rule"),
    (["--parse-timeout", "0"], "--parse-timeout must be a positive number of seconds"),
    (["--parse-memory", "0"], "--parse-memory must be a positive number of MiB"),
])
def test_options_that_name_nothing_are_usage_errors(capsys, argv, message):
    assert cli.main(["check", *argv, "bad.c"]) == cli.EXIT_ERROR
    err = capsys.readouterr().err
    assert err.startswith(f"mmaplint: error: {message}") and err.count("\n") == 1


SIGNAL_WHILE_IMPORTING = """\
import os, signal, sys
def hook(event, args):
    if event == "import" and args[0] == "mmaplint.analyzer.engine":
        os.kill(os.getpid(), signal.{name})
sys.addaudithook(hook)
"""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_while_importing_is_one_line(tmp_path, signum):
    """Ctrl-C, SIGTERM or SIGHUP arrives while Python loads the analyzer (a sitecustomize sends
    it as the engine's import starts): `mmaplint: interrupted` and 128 + the signal, from
    `python -m mmaplint` and from the installed command."""
    Path("site").mkdir()
    Path("site/sitecustomize.py").write_text(SIGNAL_WHILE_IMPORTING.format(name=signum.name))
    environment = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    script = Path(sys.executable).with_name("mmaplint")
    for argv in [[sys.executable, "-m", "mmaplint"]] + [[str(script)]] * script.exists():
        done = subprocess.run([*argv, "check", "bad.c"], capture_output=True, text=True, env=environment,
                              timeout=60, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        assert (done.returncode, done.stderr) == (128 + signum, "mmaplint: interrupted\n")


def test_the_whole_output_reaches_a_pipe_before_the_process_ends():
    """The command ends its process without Python's teardown (entry.py): what it printed
    must still all arrive, far more than a pipe holds at once, with the run's exit code."""
    done = subprocess.run(_many_findings(), capture_output=True, text=True, timeout=300)
    assert len(done.stdout) > 1 << 16
    assert done.returncode == 1 and done.stderr == ""
    assert len(json.loads(done.stdout)["findings"]) == 200


def test_a_reader_gone_from_the_pipe_ends_the_run_quietly():
    """`mmaplint check | head -1`: the findings past what was read are dropped without a
    traceback or an ignored exception from the final flush."""
    process = subprocess.Popen(_many_findings(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.read(10)
    process.stdout.close()
    err = process.stderr.read().decode()
    assert process.wait(timeout=300) in (1, 2) and err == ""


def _many_findings() -> list[str]:
    """The command line of a run whose JSON report is 200 findings (many.c, written here)."""
    header, body = MSYNC_LOOP.split("\n\n", 1)
    Path("many.c").write_text(header + "\n\n" + "\n".join(body.replace("copy_pages", f"copy_pages_{i}")
                                                          for i in range(200)))
    return [sys.executable, "-m", "mmaplint", "check", "--frontend", "tree-sitter", "--format", "json", "many.c"]
