"""The temporary directory inside --dir is gone after a normal run, a timeout and an interrupt;
errors are one line and exit 2."""
import dataclasses
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from mmaplint.analyzer.confirm import ConfirmRequest, list_corpus, manifest, run_confirm
from mmaplint.analyzer.confirm.run import TEMP_PREFIX


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.fixture
def target(tmp_path):
    path = tmp_path / "target"
    path.mkdir()
    return path


def leftovers(path):
    return [p for p in os.listdir(path) if p.startswith(TEMP_PREFIX)]


def small_corpus(monkeypatch, **changes):
    """The real corpus with MML005 shrunk to CI size (and any other field changed)."""
    real = manifest.load_entries

    def load():
        return [dataclasses.replace(e, defaults={**e.defaults, "records": 2000}, **changes)
                if e.name == "fflush_per_record" else e for e in real()]
    monkeypatch.setattr(manifest, "load_entries", load)


def test_normal_run_reports_and_cleans_up(target, monkeypatch):
    small_corpus(monkeypatch)
    out = io.StringIO()
    assert run_confirm([ConfirmRequest("MML005")], str(target), budget=0.1, fmt="json", out=out) == 0
    doc = json.loads(out.getvalue())
    result = doc["results"][0]
    assert result["rule"] == "MML005" and result["reproducer"] == "corpus/fflush_per_record"
    assert result["verdict"] in ("CONFIRMED", "NOT REPRODUCED", "INCONCLUSIVE")
    assert [m["name"] for m in result["cases"][0]["metrics"]][:2] == ["syscw", "wall_s"]
    assert doc["environment"]["kernel"]
    assert leftovers(target) == []


def test_text_output_has_table_and_conclusion(target, monkeypatch):
    small_corpus(monkeypatch)
    out = io.StringIO()
    assert run_confirm([ConfirmRequest("MML005")], str(target), budget=0.1, out=out) == 0
    text = out.getvalue()
    assert "metric" in text and "ratio" in text and "spread" in text and "verdict" in text
    assert "\n=> MML005 " in text


def test_timeout_cleans_up_and_exits_2(target, monkeypatch, capsys):
    small_corpus(monkeypatch, timeout=0.001)
    assert run_confirm([ConfirmRequest("MML005")], str(target), budget=0.1, out=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert err.startswith("mmaplint: error: ") and "timeout" in err and err.count("\n") == 1
    assert leftovers(target) == []


def test_interrupt_cleans_up(target, tmp_path):
    script = ("import sys; from mmaplint.analyzer.confirm import ConfirmRequest, run_confirm; "
              "sys.exit(run_confirm([ConfirmRequest('MML001')], sys.argv[1], budget=60))")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = subprocess.Popen([sys.executable, "-c", script, str(target)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not leftovers(target) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert leftovers(target), "the harness never created its temporary directory"
    time.sleep(0.5)                          # let a reproducer start inside it
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert "interrupted" in err
    assert leftovers(target) == []


def test_unknown_rule_is_a_one_line_error(target, capsys):
    assert run_confirm([ConfirmRequest("MML999")], str(target), out=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert err.startswith("mmaplint: error: MML999 has no runtime reproducer") and err.count("\n") == 1
    assert leftovers(target) == []


def test_missing_compiler_says_how_to_install_one(target, monkeypatch, capsys):
    monkeypatch.setenv("CC", "no-such-compiler-mmaplint")
    assert run_confirm([ConfirmRequest("MML005")], str(target), out=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert "no C compiler found" in err and ("apt-get install gcc" in err or "xcode-select --install" in err)


def test_too_little_space_is_refused(target, monkeypatch, capsys):
    monkeypatch.setattr("shutil.disk_usage", lambda path: shutil._ntuple_diskusage(1 << 30, 1 << 30, 1 << 20))
    assert run_confirm([ConfirmRequest("MML001")], str(target), out=io.StringIO()) == 2
    assert "MiB free" in capsys.readouterr().err
    assert leftovers(target) == []


def test_corpus_list_names_every_rule():
    out = io.StringIO()
    assert list_corpus(out=out) == 0
    for rule in ("MML001", "MML002", "MML003", "MML004", "MML005"):
        assert rule in out.getvalue()
    out = io.StringIO()
    assert list_corpus(fmt="json", out=out) == 0
    assert {e["name"] for e in json.loads(out.getvalue())} >= {"msync_per_page", "stdio_reopen"}
