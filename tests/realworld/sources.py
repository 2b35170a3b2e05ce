"""Debian source packages, fetched with apt-get into a cache outside the repository.

apt is pointed at its own sources list, package lists and cache under the cache
directory, so the machine's apt configuration is neither needed nor touched.
Each package is tried in the suites listed for it, in order: the mirror reached
from here serves some sources only for one release."""
from __future__ import annotations

import shutil
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

MIRROR = "http://deb.debian.org/debian"
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
SUITES = ("bookworm", "trixie")
# Libraries Debian also builds from a larger package's tree: when the library's own source
# package cannot be fetched, its directory in that package stands in.  trixie builds
# libtdb1 and tdb-tools from samba's source; bookworm's tdb tarball is not served here.
BUNDLED = {"tdb": ("samba", "lib/tdb")}


class FetchError(Exception):
    """A package that could not be fetched or unpacked; one line for the report."""


@dataclass(frozen=True)
class Source:
    package: str
    version: str
    suite: str
    root: Path          # the unpacked upstream tree


class Apt:
    def __init__(self, cache: Path) -> None:
        self.dir = cache / "apt"
        self.updated = False

    def _options(self) -> list[str]:
        return ["-o", f"Dir::Etc::SourceList={self.dir / 'sources.list'}",
                "-o", "Dir::Etc::SourceParts=/dev/null",
                "-o", f"Dir::State::Lists={self.dir / 'lists'}",
                "-o", f"Dir::Cache={self.dir / 'cache'}",
                "-o", "APT::Sandbox::User=root",
                "-q"]

    def _run(self, args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(["apt-get", *self._options(), *args], cwd=cwd, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

    def update(self) -> None:
        if self.updated:
            return
        (self.dir / "lists" / "partial").mkdir(parents=True, exist_ok=True)
        (self.dir / "cache" / "archives" / "partial").mkdir(parents=True, exist_ok=True)
        (self.dir / "sources.list").write_text("".join(
            f"deb-src [signed-by={KEYRING}] {MIRROR} {suite} main\n" for suite in SUITES))
        done = self._run(["update"])
        if done.returncode != 0:
            raise FetchError(f"apt-get update failed: {_last_error(done.stdout)}")
        self.updated = True

    def download(self, package: str, suite: str, into: Path) -> None:
        into.mkdir(parents=True, exist_ok=True)
        done = self._run(["source", "--download-only", f"{package}/{suite}"], cwd=into)
        if done.returncode != 0 and not _orig_tarballs(into):
            raise FetchError(f"{package}/{suite}: {_last_error(done.stdout)}")


def _last_error(output: str) -> str:
    errors = [line for line in output.splitlines() if line.startswith("E:")]
    return (errors or output.splitlines() or ["no output"])[0]


def _orig_tarballs(directory: Path) -> list[Path]:
    """The upstream tarball (not component tarballs such as sqlite3's orig-www), or a native
    package's only tarball (bonnie++_2.00a+nmu1.tar.gz, no .orig and no .debian one)."""
    tarballs = [p for p in directory.glob("*.tar.*")
                if not p.name.endswith(".asc") and ".orig-" not in p.name and ".debian.tar." not in p.name]
    upstream = [p for p in tarballs if ".orig.tar." in p.name]
    return sorted(upstream or tarballs)


def fetch(package: str, cache: Path, apt: Apt) -> Source:
    """The package's upstream tree, unpacked once under cache/src; or, for a library in
    BUNDLED whose own package cannot be fetched, its directory in the host package's tree."""
    try:
        return _fetch(package, cache, apt)
    except FetchError as own:
        if package not in BUNDLED:
            raise
        host, directory = BUNDLED[package]
        try:
            source = _fetch(host, cache, apt)
        except FetchError as exc:
            raise FetchError(f"{own}; {exc}") from None
        root = source.root / directory
        if not root.is_dir():
            raise FetchError(f"{own}; {host} {source.version} has no {directory}") from None
        return Source(package, f"{host} {source.version} {directory}", source.suite, root)


def _fetch(package: str, cache: Path, apt: Apt) -> Source:
    failures = []
    for suite in SUITES:
        downloads = cache / "downloads" / f"{package}-{suite}"
        tarballs = _orig_tarballs(downloads)
        if not tarballs:
            try:
                apt.update()
                apt.download(package, suite, downloads)
            except FetchError as exc:
                failures.append(str(exc))
                continue
            tarballs = _orig_tarballs(downloads)
        if tarballs:
            version = tarballs[0].name.split("_", 1)[1].split(".orig.tar")[0].split(".tar.")[0]
            return Source(package, version, suite, _unpack(tarballs[0], cache / "src" / package))
        failures.append(f"{package}/{suite}: no upstream tarball")
    raise FetchError("; ".join(failures))


def _unpack(tarball: Path, into: Path) -> Path:
    marker = into / ".unpacked"
    if marker.exists() and marker.read_text() == tarball.name:
        return _top(into)
    shutil.rmtree(into, ignore_errors=True)
    into.mkdir(parents=True)
    try:
        with tarfile.open(tarball) as archive:
            archive.extractall(into, filter=_data_only)
    except (tarfile.TarError, OSError) as exc:
        raise FetchError(f"{tarball.name}: cannot unpack: {exc}") from None
    marker.write_text(tarball.name)
    return _top(into)


def _data_only(member: tarfile.TarInfo, path: str) -> tarfile.TarInfo | None:
    """tarfile's "data" filter, skipping the FIFOs and device nodes it refuses: a test
    fixture such as dpkg's tests/t-unpack-fifo is no source to analyze."""
    if member.isfifo() or member.isdev():
        return None
    return tarfile.data_filter(member, path)


def _top(directory: Path) -> Path:
    entries = [p for p in directory.iterdir() if p.name != ".unpacked"]
    return entries[0] if len(entries) == 1 and entries[0].is_dir() else directory
