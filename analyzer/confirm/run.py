"""Running corpus programs safely: a private temp dir inside --dir, a timeout per run, cleanup on
every way out, and the warm-up-then-alternate schedule within a time budget."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from .errors import ConfirmError
from .metrics import MetricsError, validate
from .stats import MIN_PAIRS

TEMP_PREFIX = "mmaplint-confirm-"
SPACE_MARGIN = 64 << 20       # left free beyond what the runs need
MAX_PAIRS = 15


@dataclass
class Pair:
    bad: dict
    fixed: dict


@contextmanager
def workspace(directory: str) -> Iterator[Path]:
    """A fresh directory inside `directory`, removed however the block ends."""
    if not os.path.isdir(directory):
        raise ConfirmError(f"--dir {directory}: not a directory")
    try:
        path = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX, dir=directory))
    except OSError as exc:
        raise ConfirmError(f"cannot create a temporary directory in {directory}: {exc.strerror}") from exc
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM takes the same cleanup path as Ctrl-C while confirmation runs."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt
    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:          # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def check_space(directory: str, needed: int) -> None:
    free = shutil.disk_usage(directory).free
    if free < needed + SPACE_MARGIN:
        raise ConfirmError(
            f"{directory} has {free >> 20} MiB free; the reproducers need {(needed + SPACE_MARGIN) >> 20} MiB"
            " there: free some space or pass --dir on another filesystem")


def _execute(cmd: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess:
    # Own session: a terminal's Ctrl-C reaches only us, and we end the whole group ourselves.
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def plan(binary: Path, args: list[str], cwd: Path) -> dict:
    """The program's resolved parameters and the disk space a run needs (`--plan`)."""
    result = _execute([str(binary), "bad", *args, "--plan"], cwd, 30)
    try:
        return json.loads(result.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError) as exc:
        raise ConfirmError(f"{binary.name} rejected its arguments: {result.stderr.strip()}") from exc


def run_once(binary: Path, variant: str, args: list[str], cwd: Path, timeout: float) -> dict:
    """One run in an emptied `cwd`; its metrics line."""
    for item in cwd.iterdir():
        shutil.rmtree(item) if item.is_dir() else item.unlink()
    cmd = [str(binary), variant, *args]
    try:
        result = _execute(cmd, cwd, timeout)
    except subprocess.TimeoutExpired as exc:
        raise ConfirmError(f"the {variant} run of {binary.name} exceeded its {timeout:.0f} s timeout") from exc
    if result.returncode != 0:
        detail = (result.stderr.strip().splitlines() or [f"exit status {result.returncode}"])[-1]
        raise ConfirmError(f"the {variant} run of {binary.name} failed: {detail}")
    try:
        return validate(json.loads(result.stdout.strip().splitlines()[-1]))
    except (ValueError, IndexError, MetricsError) as exc:
        raise ConfirmError(f"the {variant} run of {binary.name} printed no valid metrics line: {exc}") from exc


def measure(run: Callable[[str], dict], budget: float,
            on_run: Callable[[str, int], None] = lambda variant, pairs: None) -> list[Pair]:
    """A discarded warm-up pair, then pairs until the budget is spent (at least MIN_PAIRS).
    Every other pair runs fixed first so slow drift (page cache, device cache) hits both alike."""
    start = time.monotonic()
    for variant in ("bad", "fixed"):
        on_run(variant, 0)
        run(variant)
    pairs: list[Pair] = []
    while len(pairs) < MAX_PAIRS:
        pair_start = time.monotonic()
        order = ("bad", "fixed") if len(pairs) % 2 == 0 else ("fixed", "bad")
        results = {}
        for variant in order:
            on_run(variant, len(pairs) + 1)
            results[variant] = run(variant)
        pairs.append(Pair(results["bad"], results["fixed"]))
        now = time.monotonic()
        if len(pairs) >= MIN_PAIRS and now - start + (now - pair_start) > budget:
            break
    return pairs
