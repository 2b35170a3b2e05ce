"""Each file is parsed in a worker process under a time and a memory budget: a file over it is
one error line (or, where clang was tried first, tree-sitter's), the rest of the run goes on,
and workers never outlive the run, however it ends."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mmaplint.analyzer.engine import MAX_JOBS_PER_CPU, job_count
from mmaplint_cli import MSYNC_LOOP, mmaplint

# libclang 18 never returns on these 18 bytes (found by fuzzing), with --frontend clang or auto
CLANG_HANGS = "int x = (::int)1;\n"


def check(directory: Path, *args: str) -> tuple[int, dict, str]:
    done = mmaplint("check", "--format", "json", *args, cwd=directory)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout), done.stderr


def test_a_parse_over_its_time_budget_is_one_line_and_the_run_goes_on(tmp_path):
    (tmp_path / "hang.c").write_text(CLANG_HANGS)
    (tmp_path / "good.c").write_text(MSYNC_LOOP)
    os.mkfifo(tmp_path / "pipe.h")      # libclang blocks opening an #include that is a FIFO
    (tmp_path / "pipe.c").write_text('#include "pipe.h"\n' + MSYNC_LOOP)
    started = time.monotonic()
    code, report, _ = check(tmp_path, "--frontend", "clang", "--parse-timeout", "1", "-j", "2",
                            "hang.c", "pipe.c", "good.c")
    assert time.monotonic() - started < 60
    assert code == 1 and [f["path"] for f in report["findings"]] == ["good.c"]
    assert report["errors"] == [{"path": name, "message": "parse took longer than 1 s (parse-timeout); skipped"}
                                for name in ("hang.c", "pipe.c")]


def test_auto_has_tree_sitter_stand_in_for_clang_over_its_budget(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.mmaplint]\nparse-timeout = 1\n")   # from the configuration
    (tmp_path / "hang.c").write_text(CLANG_HANGS + MSYNC_LOOP)
    code, report, stderr = check(tmp_path, "-v", "hang.c")
    assert code == 1 and [(f["path"], f["frontend"]) for f in report["findings"]] == [("hang.c", "tree-sitter")]
    assert "hang.c: tree-sitter: clang took longer than 1 s (parse-timeout)" in stderr.splitlines()


def test_a_parse_over_its_memory_budget_is_one_line_and_the_run_goes_on(tmp_path):
    # about 3 MiB of plain functions: tree-sitter's tree and the facts take well over 24 MiB
    bodies = "".join(f"int f{i}(int *p, int n) {{ for (int j = 0; j < n; j++) p[j] += j * {i}; return p[0]; }}\n"
                     for i in range(40_000))
    (tmp_path / "big.c").write_text(bodies)
    (tmp_path / "good.c").write_text(MSYNC_LOOP)
    code, report, _ = check(tmp_path, "--frontend", "tree-sitter", "--parse-memory", "24", "big.c", "good.c")
    assert code == 1 and [f["path"] for f in report["findings"]] == ["good.c"]
    assert report["errors"] == [{"path": "big.c", "message": "parse needed more than 24 MiB (parse-memory); skipped"}]


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if entry.isdigit() and int(fields[1]) == pid:
            found.append(int(entry))
    return found


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers die with their parent on Linux")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT], ids=lambda sig: sig.name)
def test_workers_die_with_their_parent(tmp_path, sig):
    (tmp_path / "hang.c").write_text(CLANG_HANGS)
    process = subprocess.Popen([sys.executable, "-m", "mmaplint", "check", "--frontend", "clang", "hang.c"],
                               cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 30
        while not workers and time.monotonic() < deadline:
            time.sleep(0.2)
            workers = _children(process.pid)
        assert workers, "no worker started"
        time.sleep(0.5)     # into libclang's endless parse
        process.send_signal(sig)
        _, stderr = process.communicate(timeout=30)
        deadline = time.monotonic() + 5
        while any(map(_running, workers)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(map(_running, workers))
        assert "Traceback" not in stderr
        if sig == signal.SIGINT:
            assert (process.returncode, stderr) == (130, "mmaplint: interrupted\n")
    finally:
        process.kill()
        for pid in workers:
            if _running(pid):
                os.kill(pid, signal.SIGKILL)


def test_jobs_are_capped_at_the_files_and_the_processors():
    cpus = len(os.sched_getaffinity(0))
    assert job_count(1000, 300) == min(300, MAX_JOBS_PER_CPU * cpus)
    assert job_count(1000, 1) == 1
    assert job_count(None, 1000) == cpus
    assert job_count(None, 0) == 1
