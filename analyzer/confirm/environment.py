"""What decides a verdict besides the code: kernel, filesystem, block device, libc, writeback knobs."""
from __future__ import annotations

import os
import platform
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from mmaplint import __version__

# Filesystems that keep files in memory with no writeback to a device.
MEMORY_FILESYSTEMS = frozenset({"tmpfs", "ramfs", "hugetlbfs"})
DIRTY_SETTINGS = ("dirty_background_ratio", "dirty_ratio", "dirty_expire_centisecs",
                  "dirty_writeback_centisecs", "dirty_background_bytes", "dirty_bytes")
QUEUE_FLAGS = ("rotational", "write_cache", "stable_writes")
THP = "/sys/kernel/mm/transparent_hugepage/enabled"
BUSY_LOAD_PER_CPU = 0.5       # other work on more than half the CPUs skews timings
BUSY_IO_SOME_AVG10 = 10.0     # % of the last 10 s in which some task waited for I/O


@dataclass(frozen=True)
class Mount:
    mount_point: str
    device: str               # "major:minor"
    fstype: str
    source: str
    super_options: str
    options: str = ""         # per-mount options (rw, relatime, ...)


@dataclass
class Load:
    """How busy the machine was: load averages (1, 5, 15 min) and /proc/pressure/io."""
    loadavg: tuple[float, float, float] | None
    io_pressure: dict[str, dict[str, float]] | None    # {"some": {"avg10": ...}, "full": {...}}


@dataclass
class Environment:
    kernel: str
    directory: str
    fstype: str
    fs_via: str | None        # "overlay" when fstype was resolved through overlayfs
    block_device: str | None
    device_flags: dict[str, str] = field(default_factory=dict)
    libc: str | None = None
    vm_dirty: dict[str, int] = field(default_factory=dict)
    cpus: int | None = None
    compiler: str | None = None
    mount_point: str | None = None
    mount_options: str | None = None      # per-mount and superblock options, as mountinfo gives them
    thp: str | None = None                # transparent hugepages mode: always, madvise or never
    mmaplint: str = __version__
    started: str = ""                     # UTC, ISO 8601
    finished: str = ""
    load_start: Load | None = None
    load_end: Load | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def memory_filesystem(self) -> bool:
        return self.fstype in MEMORY_FILESYSTEMS


def _unescape(field_: str) -> str:
    # mountinfo escapes space, tab, newline and backslash as \ooo
    out, i = [], 0
    while i < len(field_):
        if field_[i] == "\\" and field_[i + 1:i + 4].isdigit():
            out.append(chr(int(field_[i + 1:i + 4], 8)))
            i += 4
        else:
            out.append(field_[i])
            i += 1
    return "".join(out)


def read_mounts(mountinfo: str = "/proc/self/mountinfo") -> list[Mount]:
    mounts = []
    try:
        lines = Path(mountinfo).read_text().splitlines()
    except OSError:
        return mounts
    for line in lines:
        left, sep, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if not sep or len(fields) < 5 or len(tail) < 2:
            continue
        mounts.append(Mount(_unescape(fields[4]), fields[2], tail[0], _unescape(tail[1]),
                            tail[2] if len(tail) > 2 else "", fields[5] if len(fields) > 5 else ""))
    return mounts


def mount_of(path: str, mounts: list[Mount]) -> Mount | None:
    real = os.path.realpath(path)
    best = None
    for m in mounts:
        prefix = m.mount_point.rstrip("/") + "/"
        if (real == m.mount_point or real.startswith(prefix) or m.mount_point == "/") and (
                best is None or len(m.mount_point) >= len(best.mount_point)):
            best = m
    return best


def _overlay_upper(mount: Mount) -> str | None:
    for option in mount.super_options.split(","):
        if option.startswith("upperdir="):
            return option.removeprefix("upperdir=")
    return None


def resolve_filesystem(path: str, mounts: list[Mount]) -> tuple[Mount | None, str | None]:
    """The mount that really stores files written under `path`, looking through overlayfs."""
    mount, via = mount_of(path, mounts), None
    for _ in range(8):   # nested overlays are rare; bound the walk anyway
        upper = _overlay_upper(mount) if mount and mount.fstype == "overlay" else None
        if upper is None:
            break
        via, mount = "overlay", mount_of(upper, mounts)
    return mount, via


def _block_device(mount: Mount) -> str | None:
    major, _, minor = mount.device.partition(":")
    if major == "0" and mount.source.startswith("/dev/"):
        # btrfs and friends report an anonymous device; the source names the real one
        try:
            rdev = os.stat(mount.source).st_rdev
            major, minor = str(os.major(rdev)), str(os.minor(rdev))
        except OSError:
            return None
    sysfs = Path(f"/sys/dev/block/{major}:{minor}")
    return str(sysfs.resolve()) if sysfs.exists() else None


def device_flags(sys_device: str) -> dict[str, str]:
    device = Path(sys_device)
    queue = device / "queue"
    if not queue.is_dir() and (device / "partition").exists():
        queue = device.parent / "queue"
    flags = {}
    for name in QUEUE_FLAGS:
        try:
            flags[name] = (queue / name).read_text().strip()
        except OSError:
            continue
    return flags


def libc_version() -> str | None:
    try:
        return os.confstr("CS_GNU_LIBC_VERSION")
    except (ValueError, OSError, AttributeError):
        name, version = platform.libc_ver()
        return f"{name} {version}" if name else None


def vm_dirty() -> dict[str, int]:
    values = {}
    for name in DIRTY_SETTINGS:
        try:
            values[name] = int(Path("/proc/sys/vm", name).read_text())
        except (OSError, ValueError):
            continue
    return values


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _thp() -> str | None:
    try:
        text = Path(THP).read_text()
    except OSError:
        return None
    return next((word[1:-1] for word in text.split() if word.startswith("[")), text.strip() or None)


def _io_pressure() -> dict[str, dict[str, float]] | None:
    try:
        lines = Path("/proc/pressure/io").read_text().splitlines()
    except OSError:
        return None
    out = {}
    for line in lines:
        kind, *pairs = line.split()
        try:
            out[kind] = {k: float(v) for k, v in (p.split("=", 1) for p in pairs) if k != "total"}
        except ValueError:
            continue
    return out


def load() -> Load:
    try:
        loadavg = os.getloadavg()
    except OSError:
        loadavg = None
    return Load(loadavg, _io_pressure())


def _busy(sample: Load, cpus: int, own: int) -> str | None:
    """Why the machine looked busy at this moment (`own`: runnable tasks that are ours)."""
    if sample.loadavg and sample.loadavg[0] - own > BUSY_LOAD_PER_CPU * cpus:
        return f"load average {sample.loadavg[0]:.2f} on {cpus} CPUs"
    some = (sample.io_pressure or {}).get("some", {}).get("avg10")
    if some is not None and some > BUSY_IO_SOME_AVG10 and own == 0:
        return f"I/O pressure {some:.0f} % (some, avg10)"
    return None


def finish(env: Environment) -> None:
    """Record the end of the measurement and warn when the machine was busy around it."""
    env.finished, env.load_end = _now(), load()
    for moment, sample, own in (("at the start", env.load_start, 0), ("at the end", env.load_end, 1)):
        why = _busy(sample, env.cpus or 1, own) if sample else None
        if why:
            env.warnings.append(f"the machine was busy {moment} ({why}): timings may be skewed; "
                                "rerun on a quieter machine to be sure")


def detect(directory: str, compiler: str | None = None) -> Environment:
    mount, via = resolve_filesystem(directory, read_mounts())
    sys_device = _block_device(mount) if mount else None
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return Environment(
        kernel=platform.release(),
        directory=os.path.realpath(directory),
        fstype=mount.fstype if mount else "unknown",
        fs_via=via,
        block_device=os.path.basename(sys_device) if sys_device else None,
        device_flags=device_flags(sys_device) if sys_device else {},
        libc=libc_version(),
        vm_dirty=vm_dirty(),
        cpus=cpus,
        compiler=compiler,
        mount_point=mount.mount_point if mount else None,
        mount_options=(mount.options + (f"; superblock {mount.super_options}" if mount.super_options else "")
                       if mount else None),
        thp=_thp(),
        started=_now(),
        load_start=load(),
    )
