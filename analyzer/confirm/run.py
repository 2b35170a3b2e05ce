"""Running corpus programs safely: a private temp dir inside --dir (stale ones of dead runs removed),
a timeout per run, the whole process group ended on every way out, signals turned into a clean
interrupt."""
from __future__ import annotations

import errno
import fcntl
import json
import math
import os
import shutil
import signal
import subprocess
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from ..interrupts import held
from .errors import ConfirmError
from .metrics import MetricsError, validate

TEMP_PREFIX = "mmaplint-confirm-"
LOCK_NAME = ".lock"           # held (flock) by the run that owns the directory, for its lifetime
RUN_DIR = "run"               # the reproducers' working directory, emptied before every run
UNLOCKED_GRACE_S = 60         # a directory without a lock file is being created, unless older
SPACE_MARGIN = 64 << 20       # left free beyond what the runs need
POLL_S = 0.05                 # how often a run's bytes written are checked against its allowance


class RunStopped(Exception):
    """A run was ended before it finished: out of time, or past the bytes it was allowed to write."""

    def __init__(self, variant: str, why: str, written: int = 0) -> None:
        super().__init__(f"the {variant} run {why}")
        self.variant = variant
        self.written = written


class _WriteLimit(Exception):
    def __init__(self, written: int) -> None:
        self.written = written


def _owned_by_a_live_run(path: Path) -> bool:
    try:
        fd = os.open(path / LOCK_NAME, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        try:
            return time.time() - path.lstat().st_mtime < UNLOCKED_GRACE_S
        except OSError:
            return True
    except OSError:
        return True             # not ours to judge (permissions, a symlink): leave it
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        return exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN)
    finally:
        os.close(fd)            # also drops the lock we may have taken
    return False


def remove_stale(directory: str) -> list[str]:
    """Remove temp dirs of earlier runs that no live process owns (killed with SIGKILL, say)."""
    removed = []
    try:
        names = [n for n in os.listdir(directory) if n.startswith(TEMP_PREFIX)]
    except OSError:
        return removed
    for name in names:
        path = Path(directory, name)
        if path.is_dir() and not path.is_symlink() and not _owned_by_a_live_run(path):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(str(path))
    return removed


@contextmanager
def workspace(directory: str) -> Iterator[Path]:
    """A fresh, locked directory inside `directory`, removed however the block ends (a signal
    waits until it is made and locked, and until it is removed); yields the runs' working
    directory inside it."""
    if not os.path.isdir(directory):
        raise ConfirmError(f"--dir {directory}: not a directory")
    remove_stale(directory)
    path, lock = None, None
    try:
        with held():
            try:
                path = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX, dir=directory))
                lock = os.open(path / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
                fcntl.flock(lock, fcntl.LOCK_EX)
                (path / RUN_DIR).mkdir()
            except OSError as exc:
                raise ConfirmError(f"cannot create a temporary directory in {directory}: {exc.strerror}") from None
        yield path / RUN_DIR
    finally:
        with held():
            if path is not None:
                shutil.rmtree(path, ignore_errors=True)
            if lock is not None:
                os.close(lock)


def check_space(directory: str, needed: int) -> None:
    free = shutil.disk_usage(directory).free
    if free < needed + SPACE_MARGIN:
        raise ConfirmError(
            f"{directory} has {free >> 20} MiB free; the reproducers need {(needed + SPACE_MARGIN) >> 20} MiB"
            " there: free some space or pass --dir on another filesystem")


def _end_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass                    # already gone (and maybe reaped): nothing left to end
    proc.communicate()


def written_by(pid: int) -> int:
    """Bytes process `pid` (all its threads) has dirtied for the device so far; 0 if unknown."""
    try:
        with open(f"/proc/{pid}/io", encoding="ascii") as stream:
            for line in stream:
                if line.startswith("write_bytes:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def execute(cmd: list[str], cwd: Path, timeout: float, max_written: float = math.inf) -> subprocess.CompletedProcess:
    """Run `cmd` in a session of its own (a terminal's Ctrl-C reaches only us) and end its whole
    group on any way out: timeout, too many bytes written (checked every POLL_S), interrupt or
    error."""
    proc = None
    deadline = time.monotonic() + timeout
    try:
        with held():       # no interrupt between the fork and `proc =`
            proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True, start_new_session=True)
        while True:
            try:
                # a signal waits for the end of each slice (POLL_S): raised inside subprocess's
                # wait, between its taking the child's wait lock and its `try`, it would leave the
                # lock taken, and _end_group's wait for the child would then block forever
                with held():
                    out, err = proc.communicate(timeout=max(min(POLL_S, deadline - time.monotonic()), 0))
                break
            except subprocess.TimeoutExpired:
                if time.monotonic() >= deadline:
                    raise
                written = written_by(proc.pid)
                if written > max_written:
                    raise _WriteLimit(written) from None
    except BaseException:
        if proc is not None:
            with held():
                _end_group(proc)
        raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def plan(binary: Path, args: list[str], cwd: Path) -> dict:
    """The program's resolved parameters and the disk space a run needs (`--plan`)."""
    result = execute([str(binary), "bad", *args, "--plan"], cwd, 30)
    try:
        return json.loads(result.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        detail = (result.stderr.strip().splitlines() or [f"exit status {result.returncode}"])[0]
        detail = detail.removeprefix(f"{binary}: ")
        raise ConfirmError(f"{binary.name.rsplit('-', 1)[0]} rejected its arguments: {detail}") from None


def run_once(binary: Path, variant: str, args: list[str], cwd: Path, timeout: float,
             max_written: float = math.inf) -> dict:
    """One run in an emptied `cwd`; its metrics line, with the whole process's wall time added
    (`process_s`: start, setup, measured phase and exit).  RunStopped past `timeout` seconds or
    `max_written` bytes."""
    for item in cwd.iterdir():
        shutil.rmtree(item) if item.is_dir() and not item.is_symlink() else item.unlink()
    name = binary.name.rsplit("-", 1)[0]
    started = time.monotonic()
    try:
        result = execute([str(binary), variant, *args], cwd, timeout, max_written)
    except subprocess.TimeoutExpired:
        raise RunStopped(variant, f"did not finish in the {timeout:.1f} s it had") from None
    except _WriteLimit as exc:
        raise RunStopped(variant, f"wrote over the {max_written / (1 << 20):.0f} MiB it could", exc.written) from None
    elapsed = time.monotonic() - started
    if result.returncode != 0:
        detail = (result.stderr.strip().splitlines() or [f"exit status {result.returncode}"])[-1]
        raise ConfirmError(f"the {variant} run of {name} failed: {detail}")
    try:
        sample = validate(json.loads(result.stdout.strip().splitlines()[-1]))
    except (ValueError, IndexError, MetricsError) as exc:
        raise ConfirmError(f"the {variant} run of {name} printed no valid metrics line: {exc}") from None
    sample["process_s"] = round(elapsed, 6)
    return sample
