"""Compiling corpus programs with the system C compiler, cached per (sources, compiler, flags)."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .errors import ConfirmError
from .manifest import COMMON_DIR, Entry, corpus_root
from .run import execute

CFLAGS = ("-O2", "-pthread")
COMPILE_TIMEOUT_S = 120


@dataclass(frozen=True)
class Compiler:
    path: str
    version: str


def _install_hint() -> str:
    if sys.platform == "darwin":
        return "install one with `xcode-select --install`"
    return "install one with `apt-get install gcc` (or your distribution's gcc/clang package), or set CC"


def find_compiler() -> Compiler:
    candidates = [os.environ["CC"]] if os.environ.get("CC") else ["cc", "gcc", "clang"]
    for name in candidates:
        path = shutil.which(name)
        if not path:
            continue
        try:
            out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if out.returncode == 0 and out.stdout:
            return Compiler(path, out.stdout.splitlines()[0].strip())
    raise ConfirmError(f"no C compiler found (tried {', '.join(candidates)}); {_install_hint()}")


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mmaplint" / "bin"


def _sources(entry: Entry) -> dict[str, bytes]:
    """Relative path -> content of everything the program includes."""
    root = corpus_root()
    common = root / COMMON_DIR
    files = {f"{entry.name}/{entry.source_name}": (root / entry.name / entry.source_name).read_bytes()}
    for item in common.iterdir():
        if item.is_file() and item.name.endswith(".h"):
            files[f"{COMMON_DIR}/{item.name}"] = item.read_bytes()
    return files


def _file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _hash_path(target: Path) -> Path:
    return target.with_name(target.name + ".sha256")


def _trusted(target: Path) -> bool:
    """The cached binary is the one we built: its content hashes to what we recorded beside it
    (a truncated file, or anything put in its place, does not)."""
    try:
        return target.is_file() and _hash_path(target).read_text().strip() == _file_hash(target)
    except OSError:
        return False


def build(entry: Entry, compiler: Compiler) -> Path:
    """Path of the compiled program, compiling it unless the cache holds this build, intact."""
    sources = _sources(entry)
    digest = hashlib.sha256()
    for rel in sorted(sources):
        digest.update(rel.encode() + b"\0" + sources[rel] + b"\0")
    digest.update(compiler.version.encode() + b"\0" + " ".join(CFLAGS).encode())
    target = cache_dir() / f"{entry.name}-{digest.hexdigest()[:16]}"
    if _trusted(target):
        return target
    try:
        return _compile(entry, compiler, sources, target)
    except OSError as exc:
        raise ConfirmError(f"cannot build {entry.name} in the cache {target.parent}: "
                           f"{exc.strerror or exc} (set XDG_CACHE_HOME to a writable directory)") from None


def _compile(entry: Entry, compiler: Compiler, sources: dict[str, bytes], target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".build-") as work:
        for rel, content in sources.items():
            path = Path(work) / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
        out = Path(work) / entry.name / entry.name
        cmd = [compiler.path, *CFLAGS, "-o", str(out), str(Path(work) / entry.name / entry.source_name)]
        try:
            # as a reproducer is run: a signal ends the compiler's whole group, never mid-wait
            result = execute(cmd, Path(work), COMPILE_TIMEOUT_S)
        except subprocess.TimeoutExpired as exc:
            raise ConfirmError(f"compiling {entry.name} took over {COMPILE_TIMEOUT_S} s") from exc
        if result.returncode != 0:
            lines = [line.strip() for line in result.stderr.splitlines() if line.strip()]
            detail = next((line for line in lines if "error" in line), lines[0] if lines else "no diagnostics")
            raise ConfirmError(f"{compiler.path} failed to compile {entry.name}: {detail}")
        if not out.is_file() or out.stat().st_size == 0:
            raise ConfirmError(f"{compiler.path} exited 0 but wrote no program for {entry.name}: "
                               "is it a C compiler? Set CC to one (gcc, clang)")
        recorded = Path(work) / "sha256"
        recorded.write_text(_file_hash(out) + "\n")
        os.replace(out, target)   # atomic: a concurrent run sees the old build or the new one
        os.replace(recorded, _hash_path(target))
    return target
