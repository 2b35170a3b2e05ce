"""The temporary directory inside --dir is gone and no reproducer is left running after a normal
run, a timeout, and SIGINT, SIGTERM or SIGHUP at any moment; stale directories of dead runs are
removed by the next run; errors are one line."""
import dataclasses
import fcntl
import io
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mmaplint.analyzer.confirm import ConfirmRequest, Options, list_corpus, manifest, run_confirm
from mmaplint.analyzer.confirm.run import LOCK_NAME, TEMP_PREFIX, _end_group, remove_stale

from tiny_corpus import cache_dir

@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache_dir(tmp_path_factory)))


@pytest.fixture
def target(tmp_path):
    path = tmp_path / "target"
    path.mkdir()
    return path


def leftovers(path):
    return [p for p in os.listdir(path) if p.startswith(TEMP_PREFIX)]


def processes_in(path) -> list[int]:
    """Processes whose working directory is inside `path`."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.readlink(f"/proc/{pid}/cwd").startswith(str(path)):
                found.append(int(pid))
        except OSError:
            continue
    return found


def small_corpus(monkeypatch, records=2000, **changes):
    """The real corpus with MML005 shrunk to CI size (and any other field changed)."""
    real = manifest.load_entries

    def load():
        return [dataclasses.replace(e, defaults={**e.defaults, "records": records}, **changes)
                if e.name == "fflush_per_record" else e for e in real()]
    monkeypatch.setattr(manifest, "load_entries", load)


def test_normal_run_cleans_up(target, monkeypatch):
    small_corpus(monkeypatch)
    assert run_confirm([ConfirmRequest("MML005")], Options(str(target), budget=2), out=io.StringIO()) in (0, 1)
    assert leftovers(target) == [] and processes_in(target) == []


def test_a_run_past_its_timeout_is_inconclusive_with_the_reason(target, monkeypatch, capsys):
    # work that cannot be cut down (no scale) and takes far longer than the timeout: a run cut
    # to a few records could end within the millisecond on a fast machine
    small_corpus(monkeypatch, records=200_000, timeout=0.001, scale=None)
    out = io.StringIO()
    assert run_confirm([ConfirmRequest("MML005")], Options(str(target), budget=1), out=out) == 0
    text = out.getvalue()
    assert "=> MML005 INCONCLUSIVE" in text and "did not finish" in text
    assert capsys.readouterr().err == ""
    assert leftovers(target) == [] and processes_in(target) == []


CONFIRM = [sys.executable, "-m", "mmaplint", "confirm", "MML001", "--param", "passes=64", "--dir"]


@pytest.mark.parametrize("signum,moment", [(signal.SIGINT, "run"), (signal.SIGTERM, "run"), (signal.SIGHUP, "run"),
                                           (signal.SIGTERM, "workspace"), (signal.SIGINT, "workspace")])
def test_a_signal_at_any_moment_ends_cleanly(signum, moment, target, tmp_path):
    """No traceback, exit 128 + the signal, no temp dir and no reproducer left."""
    proc = subprocess.Popen([*CONFIRM, str(target)], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        if leftovers(target) and (moment == "workspace" or processes_in(target)):
            break
        time.sleep(0.005)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signum, err
    assert "Traceback" not in err and err.strip().startswith("mmaplint: interrupted")
    assert leftovers(target) == [] and processes_in(target) == []


def test_ending_an_already_reaped_run_does_not_raise():
    proc = subprocess.Popen(["true"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    proc.wait()
    _end_group(proc)


def _stale(directory: Path, name: str, age_s: float, lock: bool) -> Path:
    path = directory / f"{TEMP_PREFIX}{name}"
    (path / "run").mkdir(parents=True)
    (path / "run" / "data").write_bytes(b"x" * 4096)
    if lock:
        (path / LOCK_NAME).touch()
    then = time.time() - age_s
    os.utime(path, (then, then))
    return path


def test_stale_temp_dirs_no_live_run_owns_are_removed(target):
    dead = _stale(target, "dead", 0, lock=True)            # its run was killed: lock free
    old = _stale(target, "old", 3600, lock=False)          # an older mmaplint's, an hour old
    fresh = _stale(target, "fresh", 0, lock=False)         # being created right now
    live = _stale(target, "live", 0, lock=True)
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, os, sys, time; "
                               "fd = os.open(sys.argv[1], os.O_RDONLY); fcntl.flock(fd, fcntl.LOCK_EX); "
                               "print('held', flush=True); time.sleep(60)", str(live / LOCK_NAME)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        removed = remove_stale(str(target))
    finally:
        holder.kill()
        holder.wait()
    assert sorted(removed) == sorted([str(dead), str(old)])
    assert fresh.exists() and live.exists() and not dead.exists() and not old.exists()


def test_a_later_confirm_removes_what_a_killed_one_left(target, monkeypatch):
    dead = _stale(target, "killed", 0, lock=True)
    small_corpus(monkeypatch)
    run_confirm([ConfirmRequest("MML005")], Options(str(target), budget=1), out=io.StringIO())
    assert not dead.exists() and leftovers(target) == []


def test_our_own_lock_is_held_while_we_run(target):
    from mmaplint.analyzer.confirm.run import workspace
    with workspace(str(target)) as work:
        fd = os.open(work.parent / LOCK_NAME, os.O_RDONLY)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
        assert remove_stale(str(target)) == []
    assert leftovers(target) == []


def test_unknown_rule_is_a_one_line_error(target, capsys):
    assert run_confirm([ConfirmRequest("MML999")], Options(str(target)), out=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert err.startswith("mmaplint: error: MML999 has no runtime reproducer") and err.count("\n") == 1
    assert leftovers(target) == []


def test_too_little_space_is_refused(target, monkeypatch, capsys):
    monkeypatch.setattr("shutil.disk_usage", lambda path: shutil._ntuple_diskusage(1 << 30, 1 << 30, 1 << 20))
    assert run_confirm([ConfirmRequest("MML001")], Options(str(target)), out=io.StringIO()) == 2
    assert "MiB free" in capsys.readouterr().err
    assert leftovers(target) == []


def test_corpus_list_names_every_rule():
    out = io.StringIO()
    assert list_corpus(out=out) == 0
    for rule in ("MML001", "MML002", "MML003", "MML004", "MML005", "MML006", "MML008", "MML009"):
        assert rule in out.getvalue()
    out = io.StringIO()
    assert list_corpus(fmt="json", out=out) == 0
