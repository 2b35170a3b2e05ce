"""Every corpus reproducer builds, runs both variants at tiny sizes and prints valid metrics for the
same logical work; every manifest agrees with its program."""
import json

import pytest

from mmaplint.analyzer.confirm import build, manifest, run
from mmaplint.analyzer.confirm.metrics import REQUIRED

# Small enough for a 2-core CI box; every corpus entry must have one.
TINY = {
    "msync_per_page": ["--size", "64K", "--passes", "1"],
    "dsync_mmap": ["--size", "64K"],
    "scattered_shared_writes": ["--size", "1M", "--stores", "20000", "--interval-ms", "1"],
    "stdio_reopen": ["--iterations", "50", "--file-size", "4096"],
    "fflush_per_record": ["--records", "500"],
}
ENTRIES = manifest.load_entries()


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(cache))
        compiler = build.find_compiler()
        yield {e.name: build.build(e, compiler) for e in ENTRIES}


def test_every_rule_reproducer_named_by_the_rules_exists():
    names = {rule: e.name for e in ENTRIES for rule in e.rules}
    assert names == {"MML001": "msync_per_page", "MML002": "dsync_mmap",
                     "MML003": "scattered_shared_writes", "MML004": "stdio_reopen",
                     "MML005": "fflush_per_record"}
    assert set(TINY) == {e.name for e in ENTRIES}


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_manifest_defaults_are_the_programs_own(entry, compiled, tmp_path):
    planned = run.plan(compiled[entry.name], [], tmp_path)
    assert {k: planned["params"][k] for k in entry.defaults} == entry.defaults
    assert {m.name for m in entry.metrics if m.primary}, "a manifest needs primary evidence"


@pytest.mark.parametrize("entry,case", [(e, c) for e in ENTRIES for c in e.cases],
                         ids=lambda x: getattr(x, "name", "").replace(" ", "-"))
def test_both_variants_run_and_do_the_same_work(entry, case, compiled, tmp_path):
    args = list(case.args) + TINY[entry.name]
    bad = run.run_once(compiled[entry.name], "bad", args, tmp_path, 60)
    fixed = run.run_once(compiled[entry.name], "fixed", args, tmp_path, 60)
    for sample, variant in ((bad, "bad"), (fixed, "fixed")):
        assert sample["variant"] == variant
        assert all(sample[key] is not None for key in REQUIRED if key not in ("write_bytes", "syscr", "syscw"))
        assert sample["wall_s"] > 0 and sample["useful_bytes"] > 0
    assert bad["useful_bytes"] == fixed["useful_bytes"]
    assert bad["ops"] == fixed["ops"]
    assert bad["params"] == fixed["params"]


def test_latency_percentiles_are_ordered(compiled, tmp_path):
    sample = run.run_once(compiled["stdio_reopen"], "bad", TINY["stdio_reopen"], tmp_path, 60)
    assert sample["lat_samples"] == 50
    assert 0 < sample["lat_p50_us"] <= sample["lat_p99_us"] <= sample["lat_p999_us"] <= sample["lat_max_us"]


def test_program_rejects_bad_arguments(compiled, tmp_path):
    with pytest.raises(Exception, match="failed"):
        run.run_once(compiled["msync_per_page"], "bad", ["--fill", "sideways"], tmp_path, 60)


def test_fflush_per_record_makes_one_write_per_record(compiled, tmp_path):
    args = TINY["fflush_per_record"]
    bad = run.run_once(compiled["fflush_per_record"], "bad", args, tmp_path, 60)
    fixed = run.run_once(compiled["fflush_per_record"], "fixed", args, tmp_path, 60)
    if bad["syscw"] is None:
        pytest.skip("kernel without task I/O accounting")
    assert bad["syscw"] >= 500 > fixed["syscw"]
    assert json.loads(json.dumps(bad)) == bad
