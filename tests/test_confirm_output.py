"""What a confirmation reports: the table, the picture and the raw samples; exit codes; --param;
the environment; results attached to findings by `check --confirm` in JSON, SARIF and text (all
in the -o file); `--plot`."""
import io
import json
import math
import sys
from argparse import Namespace

import jsonschema
import pytest

from mmaplint.analyzer import check_command, cli
from mmaplint.analyzer.confirm import ConfirmRequest, Options, environment, measure_rules, plot, run_confirm
from mmaplint.analyzer.confirm.errors import ConfirmError
from mmaplint.analyzer.confirm.progress import Progress
from mmaplint.analyzer.confirm.report import number, render_json, render_text
from mmaplint.analyzer.facts import Span
from mmaplint.analyzer.findings import Finding, Report

from mmaplint_cli import SCHEMA
from tiny_corpus import cache_dir

FLUSH_LOOP = """\
#include <stdio.h>

void log_all(FILE *f, int n) {
    for (int i = 0; i < n; i++) {
        fprintf(f, "record %d\\n", i);
        fflush(f);
    }
}
"""
FAST = {"records": "5000"}     # MML005 at a size where bad costs ~10x fixed in a few ms


@pytest.fixture(autouse=True)
def shared_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache_dir(tmp_path_factory)))


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(cache_dir(tmp_path_factory)))
        work = tmp_path_factory.mktemp("measured")
        results, env, _ = measure_rules([ConfirmRequest("MML005", FAST)], Options(str(work), budget=3),
                                        Progress(False))
    return results, env


def test_json_carries_every_runs_raw_sample_and_the_statistics(measured):
    out = io.StringIO()
    render_json(*measured, out)
    (result,) = json.loads(out.getvalue())["results"]
    case = result["cases"][0]
    assert len(case["samples"]["pairs"]) == case["pairs"] >= 5 and len(case["samples"]["warmup"]) == 2
    assert all(a["variant"] == "bad" and b["variant"] == "fixed" for a, b in case["samples"]["pairs"])
    wall = next(m for m in case["metrics"] if m["name"] == "wall_s")
    assert wall["primary"] and wall["n"] == case["pairs"] and 0 <= wall["separation"] <= 1
    low, high = wall["interval"]
    assert low <= wall["ratio"] <= high and wall["confidence"] == 0.95
    assert result["bytes_written"] > 0 and result["seconds"] > 0


def test_an_infinite_ratio_is_said_as_such_in_json():
    assert number(math.inf) == "inf" and number(None) is None and number(2.5) == 2.5


def test_text_has_the_table_the_picture_and_the_bytes_written(measured):
    out = io.StringIO()
    render_text(*measured, out)
    text = out.getvalue()
    assert "95% CI" in text and "sep" in text and "Hodges-Lehmann" in text
    assert "one value per run" in text and "median" in text
    picture = [line for line in text.splitlines() if line.strip().startswith(("bad ", "fixed "))]
    assert len(picture) == 2 and all("[" in line and "|" in line for line in picture)
    assert "GiB written" in text and "\n=> MML005 " in text


def test_a_confirmed_cost_exits_1_like_a_finding(tmp_path):
    out = io.StringIO()
    assert run_confirm([ConfirmRequest("MML005", FAST)], Options(str(tmp_path), budget=3), out=out) == 1
    assert "=> MML005 CONFIRMED" in out.getvalue()


def test_unknown_param_names_are_an_error_and_word_values_are_taken(tmp_path, capsys):
    assert cli.main(["confirm", "MML001", "--dir", str(tmp_path), "--param", "sizee=64K"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "sizee" in err and "it takes fill, passes, size" in err
    assert cli.main(["confirm", "MML001", "--dir", str(tmp_path), "--param", "fill=sideways"]) == 2
    assert "bad value for --fill: sideways" in capsys.readouterr().err
    code = cli.main(["confirm", "MML001", "--dir", str(tmp_path), "--budget", "2", "--format", "json",
                     "--param", "size=64K", "--param", "passes=1", "--param", "fill=fault"])
    assert code in (0, 1)
    doc = json.loads(capsys.readouterr().out)
    assert doc["results"][0]["cases"][0]["params"]["fill"] == "fault"


def test_variants_must_be_two_of_bad_and_fixed(tmp_path, capsys):
    assert cli.main(["confirm", "MML005", "--dir", str(tmp_path), "--variants", "bad,good"]) == 2
    assert cli.main(["confirm", "MML005", "--dir", str(tmp_path), "--variants", "bad"]) == 2
    assert capsys.readouterr().err.count("mmaplint: error:") == 2


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_goes_to_stderr_when_it_is_a_terminal_whatever_stdout_is(tmp_path, monkeypatch):
    from mmaplint.analyzer.confirm import progress
    monkeypatch.setattr(progress, "SHOW_AFTER_S", 0)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    out = io.StringIO()                             # stdout is not a terminal
    run_confirm([ConfirmRequest("MML005", {"records": "500"})], Options(str(tmp_path), budget=1), out=out)
    assert "MML005: warm-up, bad" in terminal.getvalue() and "budget left" in terminal.getvalue()
    assert "\r" not in out.getvalue()


def test_the_environment_says_when_the_machine_was_busy(tmp_path, monkeypatch):
    env = environment.detect(str(tmp_path))
    assert env.started and env.mmaplint and env.load_start is not None
    assert env.mount_options and env.thp in (None, "always", "madvise", "never")
    monkeypatch.setattr("os.getloadavg", lambda: (64.0, 64.0, 64.0))
    environment.finish(env)
    assert env.finished and any("busy at the end" in w and "load average 64.00" in w for w in env.warnings)


def _confirm_args(tmp_path, **more):
    return Namespace(dir=str(tmp_path), budget=2.0, max_written=1 << 30, plot=None, **more)


def test_a_plugin_rule_with_a_reproducer_elsewhere_does_not_stop_the_others(tmp_path, capsys):
    span = Span(str(tmp_path / "x.c"), 3, 1, 3, 10)
    report = Report(findings=[
        Finding("EXA009", "plugin-rule", "warning", span, "m", "tree-sitter", reproducer="corpus/elsewhere"),
        Finding("MML005", "stdio-flush-per-iteration", "warning", span, "m", "tree-sitter",
                reproducer="corpus/fflush_per_record", params=(("records", 5000),))])
    extra = {}
    assert check_command._confirm_findings(report, _confirm_args(tmp_path), extra) == 0
    results, env = extra["confirmations"]
    assert [r.rule for r in results] == ["MML005"]
    assert "EXA009 not confirmed" in capsys.readouterr().err


def _check(tmp_path, fmt):
    (tmp_path / "log.c").write_text(FLUSH_LOOP)
    out = tmp_path / f"report.{fmt}"
    code = cli.main(["check", "--frontend", "tree-sitter", "--confirm", "--budget", "2", "--dir", str(tmp_path),
                     "--format", fmt, "-o", str(out), str(tmp_path / "log.c")])
    assert code == 1
    return out.read_text()


def test_check_confirm_json_puts_the_verdict_on_the_finding(tmp_path, capsys):
    doc = json.loads(_check(tmp_path, "json"))
    (finding,) = doc["findings"]
    confirmation = finding["confirmation"]
    assert confirmation["verdict"] in ("CONFIRMED", "NOT REPRODUCED", "INCONCLUSIVE", "WORSE")
    assert "wall_s" in confirmation["primary"] and confirmation["environment"]["fstype"]
    assert doc["confirmations"]["results"][0]["cases"][0]["samples"]["pairs"]
    assert capsys.readouterr().out == ""          # everything went to -o


def test_check_confirm_sarif_validates_and_carries_the_verdict(tmp_path):
    log = json.loads(_check(tmp_path, "sarif"))
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert list(jsonschema.validators.validator_for(schema)(schema).iter_errors(log)) == []
    (run,) = log["runs"]
    confirmation = run["results"][0]["properties"]["confirmation"]
    assert confirmation["verdict"] and "wall_s" in confirmation["primary"]
    invocation = run["invocations"][0]["properties"]["confirmation"]
    assert invocation["environment"]["kernel"] and invocation["rules"]["MML005"] == confirmation["verdict"]


def test_check_confirm_text_shows_the_result_under_the_finding(measured):
    from mmaplint.analyzer.formats import CONFIRMATIONS, FormatContext
    from mmaplint.analyzer.formats.text import render
    from mmaplint.analyzer.registry import load_rules
    span = Span("log.c", 6, 9, 6, 17)
    finding = Finding("MML005", "stdio-flush-per-iteration", "warning", span, "fflush per iteration",
                      "tree-sitter", reproducer="corpus/fflush_per_record", confirm="mmaplint confirm MML005")
    text = render(Report(findings=[finding], analyzed=["log.c"]),
                  FormatContext(rules=load_rules(), extra={CONFIRMATIONS: measured}))
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("log.c:6:9: MML005"))
    assert any(line.lstrip().startswith("= measured here: MML005 ") for line in lines[at:at + 6])
    assert "95% CI" in text and "one value per run" in text


@pytest.mark.parametrize("suffix,magic", [(".png", b"\x89PNG"), (".svg", b"<?xml")])
def test_plot_draws_the_two_distributions(measured, tmp_path, suffix, magic):
    pytest.importorskip("matplotlib")
    path = tmp_path / f"confirm{suffix}"
    plot.write(measured[0], str(path))
    data = path.read_bytes()
    assert data.startswith(magic) and len(data) > 1000
    if suffix == ".svg":
        assert b"MML005" in data and b"<svg" in data


def test_plot_without_confirm_is_a_usage_error(tmp_path, capsys):
    (tmp_path / "log.c").write_text(FLUSH_LOOP)
    assert cli.main(["check", "--plot", str(tmp_path / "x.svg"), str(tmp_path / "log.c")]) == 2
    assert "--confirm" in capsys.readouterr().err


def test_plot_is_refused_before_measuring_when_it_cannot_be_written(tmp_path, monkeypatch, capsys):
    assert run_confirm([ConfirmRequest("MML005")], Options(str(tmp_path), plot="out.txt"), out=io.StringIO()) == 2
    assert ".svg or .png" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ConfirmError, match=r"mmaplint\[plot\]"):
        plot.check("out.png")
