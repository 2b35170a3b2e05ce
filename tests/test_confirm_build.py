"""The reproducer cache trusts nothing it finds: a binary is used only when it hashes to what was
recorded beside it at build time; compiler problems are one line that names the real cause."""
import io
import os
import stat

import pytest

from mmaplint.analyzer.confirm import ConfirmError, ConfirmRequest, Options, build, manifest, run_confirm


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.fixture
def entry():
    return next(e for e in manifest.load_entries() if e.name == "fflush_per_record")


def test_a_cached_build_is_reused_and_its_hash_recorded(entry):
    compiler = build.find_compiler()
    first = build.build(entry, compiler)
    recorded = first.with_name(first.name + ".sha256").read_text().strip()
    assert recorded == build._file_hash(first)
    mtime = first.stat().st_mtime_ns
    assert build.build(entry, compiler) == first and first.stat().st_mtime_ns == mtime


def test_a_script_put_in_place_of_the_binary_is_never_run(entry, tmp_path):
    compiler = build.find_compiler()
    target = build.build(entry, compiler)
    marker = tmp_path / "ran"
    target.write_text(f"#!/bin/sh\ntouch {marker}\necho '{{}}'\n")
    target.chmod(target.stat().st_mode | stat.S_IXUSR)
    rebuilt = build.build(entry, compiler)
    assert build._file_hash(rebuilt) == rebuilt.with_name(rebuilt.name + ".sha256").read_text().strip()
    assert not rebuilt.read_bytes().startswith(b"#!")
    assert run_confirm([ConfirmRequest("MML005", {"records": "100"})], Options(str(tmp_path), budget=1),
                       out=io.StringIO()) in (0, 1)
    assert not marker.exists()


@pytest.mark.parametrize("damage", ["truncate", "empty", "no-hash"])
def test_a_damaged_cache_entry_is_rebuilt(entry, damage):
    compiler = build.find_compiler()
    target = build.build(entry, compiler)
    good = target.read_bytes()
    if damage == "truncate":
        target.write_bytes(good[: len(good) // 2])
    elif damage == "empty":
        target.write_bytes(b"")
    else:
        os.unlink(target.with_name(target.name + ".sha256"))
    assert build.build(entry, compiler).read_bytes() == good


def test_a_build_failure_is_one_line_with_the_compilers_message(entry, monkeypatch):
    real = build._sources

    def broken(e):
        files = real(e)
        files[f"{e.name}/{e.source_name}"] += b"\nint broken(void) { return undeclared_thing; }\n"
        return files
    monkeypatch.setattr(build, "_sources", broken)
    with pytest.raises(ConfirmError) as caught:
        build.build(entry, build.find_compiler())
    message = str(caught.value)
    assert "\n" not in message and "failed to compile fflush_per_record" in message
    assert "undeclared_thing" in message and "error" in message


def test_a_compiler_that_writes_nothing_gets_the_right_hint(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CC", "/bin/true")
    assert run_confirm([ConfirmRequest("MML005")], Options(str(tmp_path)), out=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "wrote no program" in err and "C compiler" in err
    assert "XDG_CACHE_HOME" not in err


def test_missing_compiler_says_how_to_install_one(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CC", "no-such-compiler-mmaplint")
    assert run_confirm([ConfirmRequest("MML005")], Options(str(tmp_path)), out=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert "no C compiler found" in err and ("apt-get install gcc" in err or "xcode-select --install" in err)
