"""The metrics a reproducer's JSON line carries, derived ones, and how each reads."""
from __future__ import annotations

from .stats import NO_EFFECT

REQUIRED = ("variant", "wall_s", "user_s", "sys_s", "minflt", "majflt", "nvcsw", "nivcsw",
            "write_bytes", "syscr", "syscw", "useful_bytes", "ops")

DESCRIPTIONS = {
    "wall_s": "wall time",
    "process_s": "whole-process time",
    "user_s": "user CPU",
    "sys_s": "system CPU",
    "minflt": "minor faults",
    "majflt": "major faults",
    "nvcsw": "I/O waits (voluntary context switches)",
    "nivcsw": "preemptions",
    "write_bytes": "bytes dirtied for the device",
    "write_amp": "write amplification (write_bytes / useful bytes)",
    "syscr": "read syscalls",
    "syscw": "write syscalls",
    "lat_p50_us": "latency p50",
    "lat_p99_us": "latency p99",
    "lat_p999_us": "latency p99.9",
    "lat_max_us": "latency max",
    "vmas_added": "mappings added",
    "rss_bytes": "resident memory growth",
}


class MetricsError(ValueError):
    pass


def validate(sample: dict) -> dict:
    missing = [key for key in REQUIRED if key not in sample]
    if missing:
        raise MetricsError(f"metrics line lacks {', '.join(missing)}")
    return sample


def value(sample: dict, name: str) -> float | None:
    """A metric of one run; None when this kernel does not provide it."""
    if name == "write_amp":
        written, useful = sample.get("write_bytes"), sample.get("useful_bytes")
        return written / useful if written is not None and useful else None
    raw = sample.get(name)
    return float(raw) if raw is not None else None


COUNT_FLOOR = 50.0
BYTES_FLOOR = 4096.0
CPU_TICK = 0.004          # s: one scheduler tick (HZ=250)
# A run's CPU time is split between user and system by where the ticks it spans happened to
# land: a run of a few ticks reads 0 or a whole tick of system time, at random.  With ten ticks
# added to both sides, one tick's difference reads as NO_EFFECT at most (an A/A check of
# identical runs once read 2.2 ms against 0 as a 1.5x cost).
CPU_FLOOR = CPU_TICK / (NO_EFFECT - 1)
AMP_FLOOR = 0.01          # 1 % of the useful bytes


def floor(name: str) -> float:
    """Added to both sides of a ratio, and said so in the output.  Counts get 50 events: a
    process takes a few faults and context switches of its own, and 5 against 0 is no cost;
    byte counts one page; CPU times ten ticks (CPU_FLOOR).  Wall times and latencies get none."""
    if name in ("user_s", "sys_s"):
        return CPU_FLOOR
    if name.endswith(("_s", "_us")):
        return 0.0
    if name == "write_amp":
        return AMP_FLOOR
    return BYTES_FLOOR if name.endswith("_bytes") else COUNT_FLOOR


def format_value(name: str, v: float) -> str:
    if name.endswith("_s"):
        if v < 0.001:
            return f"{v * 1e6:.0f} us"
        if v < 0.1:
            return f"{v * 1e3:.2f} ms"
        return f"{v:.3f} s" if v < 10 else f"{v:.1f} s"
    if name.endswith("_us"):
        return f"{v:.1f} us" if v < 1000 else f"{v / 1000:.2f} ms"
    if name == "write_amp":
        return f"{v:.2f}x"
    if name.endswith("_bytes"):
        for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
            if v >= size:
                return f"{v / size:.1f} {unit}"
        return f"{v:.0f} B"
    return f"{v:.0f}"
