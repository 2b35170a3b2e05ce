"""Every corpus reproducer builds, runs both variants at tiny sizes and prints valid metrics for the
same logical work; every manifest agrees with its program."""
import json
from pathlib import Path

import pytest

from mmaplint_cli import mmaplint
from tiny_corpus import TINY, cache_dir
from mmaplint.analyzer.confirm import ConfirmError, build, manifest, run, schedule
from mmaplint.analyzer.confirm.metrics import REQUIRED
from mmaplint.analyzer.registry import load_rules

ENTRIES = manifest.load_entries()
CORPUS = Path(__file__).resolve().parent.parent / "corpus"


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    cache = cache_dir(tmp_path_factory)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(cache))
        compiler = build.find_compiler()
        yield {e.name: build.build(e, compiler) for e in ENTRIES}


def test_every_rule_reproducer_named_by_the_rules_exists():
    names = {rule: f"corpus/{e.name}" for e in ENTRIES for rule in e.rules}
    wanted = {r.id: r.reproducer for r in load_rules().values() if r.reproducer}
    assert names == wanted
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
    assert bad["useful_bytes"] == fixed["useful_bytes"]       # counted by the programs as they work
    assert bad["ops"] == fixed["ops"]
    assert bad["params"] == fixed["params"]
    assert schedule.unequal_work(schedule.Pair(bad, fixed)) is None
    assert 0 <= bad["write_bytes"] <= bad["total_write_bytes"]


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


def both(compiled, name, tmp_path, extra=()):
    args = TINY[name] + list(extra)
    return (run.run_once(compiled[name], "bad", args, tmp_path, 60),
            run.run_once(compiled[name], "fixed", args, tmp_path, 60))


def test_sparse_extend_map_variants_leave_the_same_files(compiled, tmp_path):
    segment = 64 << 10
    contents = []
    for variant in ("bad", "fixed"):
        sample = run.run_once(compiled["sparse_extend_map"], variant, TINY["sparse_extend_map"], tmp_path, 60)
        assert sample["lat_samples"] == 2 * 2          # one per segment: grow, map, memset, unmap
        contents.append([(tmp_path / f"sparse_extend_map.{k}.dat").read_bytes() for k in range(2)])
    for k, data in enumerate(contents[0]):
        assert data == b"".join(bytes([((s + k) & 0xFF) | 1]) * segment for s in range(2))
    assert contents[0] == contents[1]


def test_mmap_no_munmap_bad_keeps_every_mapping(compiled, tmp_path):
    bad, fixed = both(compiled, "mmap_no_munmap", tmp_path)
    assert bad["vmas_added"] >= 64 > fixed["vmas_added"]
    assert bad["rss_bytes"] >= 64 * (64 << 10) // 2 > fixed["rss_bytes"]


def test_mmap_no_munmap_refuses_to_exhaust_the_address_space(compiled, tmp_path):
    with pytest.raises(ConfirmError, match="max_map_count"):
        run.run_once(compiled["mmap_no_munmap"], "bad", ["--iterations", "1000000"], tmp_path, 60)


def test_fsync_per_record_writes_one_record_per_call(compiled, tmp_path):
    bad, fixed = both(compiled, "fsync_per_record", tmp_path)
    assert bad["lat_samples"] == fixed["lat_samples"] == 12
    assert (tmp_path / "fsync_per_record.log").stat().st_size == 12 * 4096
    if bad["syscw"] is None:
        pytest.skip("kernel without task I/O accounting")
    assert bad["syscw"] == fixed["syscw"] == 12


# The reproducers whose bad variant is visible to static analysis (the others pick flags or
# sizes from run-time options), with how many findings of their own rule each must get through
# both frontends: fsync_per_record syncs through a helper and writes to an O_DSYNC descriptor.
FLAGGED = {"msync_per_page": ("MML001", 2), "stdio_reopen": ("MML004", 1),
           "fflush_per_record": ("MML005", 1), "fsync_per_record": ("MML009", 2)}


@pytest.mark.parametrize("frontend", ["clang", "tree-sitter"])
@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_reproducers_bad_code_is_reported_by_its_rule(name, frontend):
    done = mmaplint("check", "--frontend", frontend, "--format", "json", name, cwd=CORPUS)
    assert done.returncode == 1, done.stderr
    rule, count = FLAGGED[name]
    assert [f["rule"] for f in json.loads(done.stdout)["findings"]] == [rule] * count
