"""Reproducer sizes small enough for a 2-core CI box (every corpus entry has one), and a compiler
cache shared by the tests that build the corpus."""
from __future__ import annotations

TINY = {
    "msync_per_page": ["--size", "64K", "--passes", "1"],
    "dsync_mmap": ["--size", "64K"],
    "scattered_shared_writes": ["--size", "1M", "--stores", "20000", "--interval-ms", "1"],
    "stdio_reopen": ["--iterations", "50", "--file-size", "4096"],
    "fflush_per_record": ["--records", "500"],
    "sparse_extend_map": ["--files", "2", "--segments", "2", "--segment", "64K", "--step", "16K",
                          "--interval-ms", "1"],
    "mmap_no_munmap": ["--segment", "64K", "--iterations", "64", "--file-size", "256K", "--interval-ms", "1"],
    "fsync_per_record": ["--records", "12", "--batch", "4"],
}


def as_params(flags: list[str]) -> dict[str, str]:
    """["--size", "64K"] -> {"size": "64K"}: the same sizes as `mmaplint confirm --param`s."""
    return {flag.removeprefix("--"): value for flag, value in zip(flags[::2], flags[1::2])}


def cache_dir(tmp_path_factory):
    """One XDG_CACHE_HOME for the whole test session: each reproducer is compiled once."""
    return tmp_path_factory.getbasetemp() / "confirm-cache"
