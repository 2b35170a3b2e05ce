"""A/A checks: the harness run against itself (fixed against fixed, bad against bad) must never
find a cost, for every reproducer; at CI sizes and a short budget."""
import io
import json

import pytest

from mmaplint.analyzer.confirm import ConfirmRequest, Options, manifest, run_confirm, schedule
from mmaplint.analyzer.confirm.stats import MIN_PAIRS

from tiny_corpus import TINY, as_params, cache_dir

# One A/A per rule (CI time): the variant whose runs vary most, the one that waits for the device
# in the writeback rules; the cheap stdio ones run fixed against fixed.
STDIO = {"stdio_reopen", "fflush_per_record"}
RULES = [(e.rules[0], e.name, "fixed" if e.name in STDIO else "bad") for e in manifest.load_entries()]


@pytest.fixture(autouse=True)
def shared_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache_dir(tmp_path_factory)))
    monkeypatch.setattr(schedule, "MAX_PAIRS", 6)     # CI time; from 5 pairs an interval can exclude 1


@pytest.mark.parametrize("rule,name,variant", RULES, ids=[f"{r}-{v},{v}" for r, _, v in RULES])
def test_a_variant_against_itself_is_never_confirmed(rule, name, variant, tmp_path):
    out = io.StringIO()
    options = Options(str(tmp_path), budget=4, variants=(variant, variant))
    code = run_confirm([ConfirmRequest(rule, as_params(TINY[name]))], options, fmt="json", out=out)
    (result,) = json.loads(out.getvalue())["results"]
    assert result["variants"] == [variant, variant]
    assert result["verdict"] != "CONFIRMED", result["conclusion"]
    assert code == 0
    for case in result["cases"]:
        assert case["stopped"] is None and case["pairs"] >= MIN_PAIRS, case   # a real check, not a timeout
        assert case["verdict"] != "CONFIRMED"
        assert all(a["variant"] == b["variant"] == variant for a, b in case["samples"]["pairs"])
