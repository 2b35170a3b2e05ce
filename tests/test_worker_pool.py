"""The worker pool (workers.py): a worker over its budget is killed where it stands, one whose
task failed is replaced, and one that answered takes the next task."""
from __future__ import annotations

import os
import signal
import time

from mmaplint.analyzer import workers


def _task(kind: str) -> int:
    if kind == "hang":
        time.sleep(60)
    if kind == "raise":
        raise ValueError("simulated")
    return os.getpid()


def _run(monkeypatch, kinds: list[str], seconds: float = 60) -> tuple[dict, list]:
    """Each task's outcome, and the workers the pool stopped: each one's process, and whether
    it was stopped as one at work (killed at once) rather than asked to return."""
    stopped = []
    stop = workers._Worker.stop

    def recorded(worker) -> None:
        at_work = worker.task is not None
        stop(worker)
        stopped.append((worker.process, at_work))
    monkeypatch.setattr(workers._Worker, "stop", recorded)
    with workers.Pool(_task, 1, workers.Budget(seconds, 2**40)) as pool:
        for index, kind in enumerate(kinds):
            pool.submit(index, (kind,))
        outcomes = dict(pool.completed())
    return outcomes, stopped


def test_a_worker_over_its_time_budget_is_killed_not_asked_to_finish(monkeypatch) -> None:
    outcomes, stopped = _run(monkeypatch, ["hang", "pid"], seconds=0.5)
    assert outcomes[0] == workers.Overran(0.5) and isinstance(outcomes[1], int)
    process, at_work = stopped[0]
    assert at_work and process.exitcode == -signal.SIGKILL


def test_a_worker_whose_task_failed_is_replaced(monkeypatch) -> None:
    outcomes, stopped = _run(monkeypatch, ["raise", "pid"])
    assert outcomes[0] == workers.Raised("ValueError: simulated")
    assert outcomes[1] != stopped[0][0].pid


def test_a_worker_that_answered_takes_the_next_task(monkeypatch) -> None:
    outcomes, _ = _run(monkeypatch, ["pid", "pid", "pid"])
    assert len(set(outcomes.values())) == 1
