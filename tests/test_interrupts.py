"""SIGINT, SIGTERM or SIGHUP to `mmaplint check` while its workers parse: one line, exit 128 +
the signal, no worker left running, no temporary file left in the facts cache or beside the
report, and a report file that existed still whole.  (While Python loads the analyzer:
test_exit_codes.py; `confirm` and `check --confirm` at every moment: test_confirm_cleanup.py.)"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mmaplint_cli import MSYNC_LOOP

HANGS_LIBCLANG = "int x = (::int)1;\n"       # libclang never returns on it (until the parse timeout)


def children(pid: int) -> list[int]:
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as stream:
                fields = stream.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry))
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stream:
            return stream.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_while_workers_parse_ends_cleanly(tmp_path: Path, signum):
    Path(tmp_path, "hang.c").write_text(HANGS_LIBCLANG)
    Path(tmp_path, "bad.c").write_text(MSYNC_LOOP)
    Path(tmp_path, "report.json").write_text("the previous report\n")
    proc = subprocess.Popen([sys.executable, "-m", "mmaplint", "check", "--frontend", "clang", "-j", "2",
                             "--parse-timeout", "60", "--cache-dir", "cache", "--format", "json",
                             "-o", "report.json", "hang.c", "bad.c"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while proc.poll() is None and time.monotonic() < deadline:
        workers = children(proc.pid)
        # bad.c parsed and cached: the one worker left is stuck in libclang on hang.c
        if workers and list(tmp_path.glob("cache/*/*/*")):
            break
        time.sleep(0.02)
    assert proc.poll() is None and workers, proc.communicate()
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=30)
    assert (proc.returncode, err) == (128 + signum, "mmaplint: interrupted\n")
    time.sleep(0.1)
    assert not any(alive(pid) for pid in workers)
    assert Path(tmp_path, "report.json").read_text() == "the previous report\n"
    assert [p.name for p in tmp_path.rglob("*") if "tmp" in p.name] == []


class _SignalledWhileFinalized:
    """An object whose finalizer is running when the signal's handler runs (as a finished
    reproducer's Popen is dropped while Ctrl-C arrives)."""

    def __init__(self, signum: int) -> None:
        self.signum = signum

    def __del__(self) -> None:
        os.kill(os.getpid(), self.signum)
        time.sleep(0.05)        # the handler runs here, inside __del__


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_inside_a_finalizer_still_interrupts(signum, capsys):
    """Python prints an exception raised in __del__ and goes on: the interrupt must come
    after the finalizer instead of being lost."""
    from mmaplint.analyzer.interrupts import Interrupted, interrupts
    started = time.monotonic()
    with pytest.raises(Interrupted) as raised:
        with interrupts():
            _SignalledWhileFinalized(signum)     # dropped at once: its __del__ runs here
            time.sleep(5)
    assert raised.value.signum == signum
    assert time.monotonic() - started < 2
    assert "Exception ignored" not in capsys.readouterr().err


def test_a_signal_inside_a_finalizer_at_the_end_of_the_block_is_not_lost():
    """Whether the deferral's alarm or the block's end comes first, the interrupt comes."""
    from mmaplint.analyzer.interrupts import Interrupted, interrupts
    with pytest.raises(Interrupted):
        with interrupts():
            _SignalledWhileFinalized(signal.SIGINT)     # the block's last statement


def test_a_deferred_interrupt_does_not_wait_for_the_next_blocking_call_to_end():
    """The alarm that raises a deferred interrupt can land as the finalizer's last blocking
    call returns, when Python runs no handler until the next blocking call (here a 2 s sleep)
    is over: the alarm repeats until the interrupt is raised.  Before, about one try in thirty
    waited for the sleep; forty tries."""
    from mmaplint.analyzer.interrupts import Interrupted, interrupts
    waited = []
    for _ in range(40):
        started = time.monotonic()
        with pytest.raises(Interrupted):
            with interrupts():
                _SignalledWhileFinalized(signal.SIGINT)
                time.sleep(2)
        waited.append(time.monotonic() - started)
    assert max(waited) < 1
