"""The issue-5 reproducers (MML006, MML008, MML009) at tiny sizes: both variants run, print valid
metrics for the same work, and the bad variant does what its rule describes."""
import pytest

from mmaplint.analyzer.confirm import ConfirmError, build, manifest, run
from mmaplint.analyzer.confirm.metrics import REQUIRED

# Small enough for a 2-core CI box.
TINY = {
    "sparse_extend_map": ["--files", "2", "--segments", "2", "--segment", "64K", "--step", "16K",
                          "--interval-ms", "1"],
    "mmap_no_munmap": ["--segment", "64K", "--iterations", "64", "--file-size", "256K"],
    "fsync_per_record": ["--records", "20", "--batch", "8"],
}
RULES = {"MML006": "sparse_extend_map", "MML008": "mmap_no_munmap", "MML009": "fsync_per_record"}
ENTRIES = [e for e in manifest.load_entries() if e.name in TINY]


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(cache))
        compiler = build.find_compiler()
        yield {e.name: build.build(e, compiler) for e in ENTRIES}


def both(compiled, name, tmp_path, extra=()):
    args = TINY[name] + list(extra)
    return (run.run_once(compiled[name], "bad", args, tmp_path, 60),
            run.run_once(compiled[name], "fixed", args, tmp_path, 60))


def test_each_rule_finds_its_reproducer():
    entries = manifest.load_entries()
    assert {rule: manifest.entry_for_rule(rule, entries).name for rule in RULES} == RULES


@pytest.mark.parametrize("entry,case", [(e, c) for e in ENTRIES for c in e.cases],
                         ids=lambda x: getattr(x, "name", "").replace(" ", "-"))
def test_both_variants_run_and_do_the_same_work(entry, case, compiled, tmp_path):
    bad, fixed = both(compiled, entry.name, tmp_path, case.args)
    for sample, variant in ((bad, "bad"), (fixed, "fixed")):
        assert sample["variant"] == variant
        assert all(sample[key] is not None for key in REQUIRED if key not in ("write_bytes", "syscr", "syscw"))
        assert all(sample.get(m.name) is not None for m in entry.metrics if m.name != "write_amp")
    assert (bad["useful_bytes"], bad["ops"], bad["params"]) == (fixed["useful_bytes"], fixed["ops"], fixed["params"])


def test_sparse_extend_map_variants_leave_the_same_files(compiled, tmp_path):
    segment = 64 << 10
    contents = []
    for variant in ("bad", "fixed"):
        sample = run.run_once(compiled["sparse_extend_map"], variant, TINY["sparse_extend_map"], tmp_path, 60)
        assert sample["lat_samples"] == 2 * 2 * segment // (16 << 10)
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
    assert bad["lat_samples"] == fixed["lat_samples"] == 20
    assert (tmp_path / "fsync_per_record.log").stat().st_size == 20 * 4096
    if bad["syscw"] is None:
        pytest.skip("kernel without task I/O accounting")
    assert bad["syscw"] == fixed["syscw"] == 20
