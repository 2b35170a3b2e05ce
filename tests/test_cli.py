"""The command line as a user meets it: exit codes, formats, suppressions, configuration,
rule selection, and bad input (each a one-line error, never a traceback)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mmaplint.analyzer.cli import main
from mmaplint_cli import mmaplint

PER_PAGE_MSYNC = textwrap.dedent("""\
    #include <sys/mman.h>
    #include <stddef.h>
    void sync_pages(char *map, size_t len) {
        for (size_t off = 0; off < len; off += 4096) {
            map[off] = 1;
            msync(map + off, 4096, MS_SYNC);
        }
    }
    """)
CLEAN = textwrap.dedent("""\
    #include <sys/mman.h>
    #include <stddef.h>
    void sync_once(char *map, size_t len) {
        for (size_t off = 0; off < len; off += 4096)
            map[off] = 1;
        msync(map, len, MS_SYNC);
    }
    """)


def write(directory: Path, name: str, text: str | bytes) -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_json(capsys, *argv: str) -> tuple[int, dict]:
    code, out, _ = run(capsys, "--format", "json", *argv)
    return code, json.loads(out)


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """Run from an empty directory so no configuration of this repository applies."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORCE_COLOR", raising=False)


# -- exit codes and output ---------------------------------------------------------------------

@pytest.mark.parametrize("frontend", ["clang", "tree-sitter"])
def test_exit_codes(tmp_path, capsys, frontend):
    bad = write(tmp_path, "bad.c", PER_PAGE_MSYNC)
    clean = write(tmp_path, "clean.c", CLEAN)
    assert run(capsys, "--frontend", frontend, str(bad))[0] == 1
    assert run(capsys, "--frontend", frontend, str(clean))[0] == 0
    assert run(capsys, "--frontend", frontend, "--exit-zero", str(bad))[0] == 0
    assert run(capsys, "check", "--frontend", frontend, str(tmp_path / "missing.c"))[0] == 2


def test_usage_errors_exit_2_with_one_line(tmp_path, capsys):
    bad = write(tmp_path, "bad.c", PER_PAGE_MSYNC)
    code, out, err = run(capsys, "--select", "MML999", str(bad))
    assert code == 2 and err.strip().count("\n") == 0 and "MML999" in err


def test_json_shape(tmp_path, capsys):
    bad = write(tmp_path, "bad.c", PER_PAGE_MSYNC)
    code, data = run_json(capsys, "--frontend", "tree-sitter", str(bad), str(tmp_path / "nope.c"))
    assert code == 2                            # a path that does not exist
    assert set(data) == {"version", "findings", "errors"}
    (finding,) = data["findings"]
    assert set(finding) == {"rule", "name", "severity", "path", "line", "column", "end_line",
                            "end_column", "message", "frontend", "fingerprint", "related",
                            "reproducer", "confirm"}
    assert (finding["rule"], finding["name"], finding["line"], finding["column"]) == \
        ("MML001", "msync-in-loop", 6, 9)
    assert finding["frontend"] == "tree-sitter"
    assert finding["reproducer"] == "corpus/msync_per_page"
    assert finding["confirm"] == "mmaplint confirm MML001"
    # paths relative to the report root (here the working directory), as SARIF's
    assert finding["path"] == "bad.c"
    assert finding["related"][0] == {"path": "bad.c", "line": 4,
                                     "message": "this for loop repeats it"}
    assert data["errors"] == [{"path": "nope.c", "message": "no such file or directory"}]


def test_output_is_deterministic_across_jobs(tmp_path, capsys):
    for i in range(6):
        write(tmp_path, f"src/f{i}.c", PER_PAGE_MSYNC if i % 2 else CLEAN)
    _, one = run_json(capsys, "--frontend", "tree-sitter", "--jobs", "1", str(tmp_path / "src"))
    _, two = run_json(capsys, "--frontend", "tree-sitter", "--jobs", "2", str(tmp_path / "src"))
    assert one == two
    assert [f["path"] for f in one["findings"]] == sorted(f["path"] for f in one["findings"])
    assert len(one["findings"]) == 3


def test_text_format(tmp_path, capsys):
    bad = write(tmp_path, "bad.c", PER_PAGE_MSYNC)
    code, out, _ = run(capsys, "--frontend", "tree-sitter", str(bad))
    lines = out.splitlines()
    assert lines[0].startswith("bad.c:6:9: MML001 [msync-in-loop] msync(MS_SYNC) runs on every")
    assert lines[2] == "6 |         msync(map + off, 4096, MS_SYNC);"
    assert lines[3] == "  |         " + "^" * len("msync(map + off, 4096, MS_SYNC)")
    assert any(line.strip().startswith("= help:") for line in lines)
    assert any(line.strip().startswith("= reproducer: corpus/msync_per_page") for line in lines)
    assert "\x1b[" not in out                  # not a terminal: no colour
    assert lines[-1] == "Found 1 finding in 1 file analyzed."
    _, coloured, _ = run(capsys, "--color", "always", "--frontend", "tree-sitter", str(bad))
    assert "\x1b[" in coloured


def test_verbose_names_the_frontend_and_why(tmp_path, capsys):
    good = write(tmp_path, "good.c", PER_PAGE_MSYNC)
    broken = write(tmp_path, "broken.c", PER_PAGE_MSYNC.replace("map[off] = 1;", "map[off] = ;"))
    code, out, err = run(capsys, "-v", str(good), str(broken))
    assert f"{good}: clang" in err
    assert f"{broken}: tree-sitter: clang could not parse it" in err
    assert code == 1 and out.count(" MML001 [msync-in-loop] ") == 2   # the broken file still yields its finding


def test_python_dash_m_and_no_traceback(tmp_path):
    bad = write(tmp_path, "bad.c", PER_PAGE_MSYNC)
    done = subprocess.run([sys.executable, "-m", "mmaplint", "--frontend", "tree-sitter", str(bad),
                           str(tmp_path / "missing.c")], capture_output=True, text=True)
    assert done.returncode == 2                 # the missing path, though a file was analyzed
    assert "MML001" in done.stdout and "no such file or directory" in done.stdout
    assert "Traceback" not in done.stderr


# -- rules and explain ---------------------------------------------------------------------------

def test_rules_table_and_explain(capsys):
    code, out, _ = run(capsys, "rules")
    assert code == 0
    for rule_id in ("MML001", "MML002", "MML003", "MML004", "MML005"):
        assert rule_id in out
    code, out, _ = run(capsys, "explain", "MML001")
    assert code == 0 and out.startswith("# MML001 msync-in-loop")
    for section in ("## What it does", "## Why is this bad?", "## Example", "## Use instead"):
        assert section in out
    assert run(capsys, "explain", "msync-in-loop")[1] == out
    assert run(capsys, "explain", "MML999")[0] == 2


# -- selection -----------------------------------------------------------------------------------

ALL_RULES = textwrap.dedent("""\
    #include <stdio.h>
    void log_all(const double *v, int n) {
        for (int i = 0; i < n; i++) {
            FILE *f = fopen("/tmp/log", "a");
            fprintf(f, "%f\\n", v[i]);
            fflush(f);
            fputs("done\\n", f);
            fclose(f);
        }
    }
    """)


@pytest.mark.parametrize("argv, expected", [
    ((), {"MML004", "MML005"}),
    (("--select", "MML004"), {"MML004"}),
    (("--select", "stdio-flush-per-iteration"), {"MML005"}),
    (("--select", "MML00"), {"MML004", "MML005"}),
    (("--ignore", "MML004"), {"MML005"}),
    (("--select", "MML004,MML005", "--ignore", "MML005"), {"MML004"}),
])
def test_select_and_ignore(tmp_path, capsys, argv, expected):
    path = write(tmp_path, "log.c", ALL_RULES)
    _, data = run_json(capsys, "--frontend", "tree-sitter", *argv, str(path))
    assert {f["rule"] for f in data["findings"]} == expected


# -- suppressions --------------------------------------------------------------------------------

@pytest.mark.parametrize("comment, suppressed", [
    ("// mmaplint: ignore[MML001]", True),
    ("// mmaplint: ignore[MML003, MML001]", True),
    ("// mmaplint: ignore", True),
    ("// mmaplint: ignore[MML005]", False),
    ("// NOLINT(mmaplint-msync-in-loop)", True),
    ("// NOLINT(bugprone-*)", False),
    ("// NOLINT", True),
    ("/* mmaplint: ignore[MML001] */", True),
])
def test_suppression_on_the_line(tmp_path, capsys, comment, suppressed):
    source = PER_PAGE_MSYNC.replace("MS_SYNC);", f"MS_SYNC);  {comment}")
    path = write(tmp_path, "s.c", source)
    code, data = run_json(capsys, "--frontend", "tree-sitter", str(path))
    assert (data["findings"] == []) is suppressed


@pytest.mark.parametrize("comment, suppressed", [
    ("// mmaplint: ignore[MML001]", True),
    ("// NOLINTNEXTLINE(mmaplint-msync-in-loop)", True),
    ("// NOLINT(mmaplint-msync-in-loop)", False),      # NOLINT covers its own line only
])
def test_suppression_on_the_line_above(tmp_path, capsys, comment, suppressed):
    source = PER_PAGE_MSYNC.replace("        msync(", f"        {comment}\n        msync(")
    assert comment in source
    path = write(tmp_path, "s.c", source)
    _, data = run_json(capsys, "--frontend", "tree-sitter", str(path))
    assert (data["findings"] == []) is suppressed


# -- configuration -------------------------------------------------------------------------------

def test_pyproject_configuration(tmp_path, capsys):
    write(tmp_path, "pyproject.toml", '[tool.mmaplint]\nselect = ["MML005"]\nfrontend = "tree-sitter"\n')
    path = write(tmp_path, "log.c", ALL_RULES)
    code, data = run_json(capsys, str(path))
    assert {f["rule"] for f in data["findings"]} == {"MML005"}
    assert {f["frontend"] for f in data["findings"]} == {"tree-sitter"}
    _, data = run_json(capsys, "--select", "MML004", str(path))     # the command line wins
    assert {f["rule"] for f in data["findings"]} == {"MML004"}


def test_setup_cfg_configuration_found_upward(tmp_path, capsys, monkeypatch):
    write(tmp_path, "setup.cfg", "[mmaplint]\nignore = MML004\nper-file-ignores =\n"
                                 "    legacy/*: MML005\n")
    write(tmp_path, "legacy/old.c", ALL_RULES)
    write(tmp_path, "src/new.c", ALL_RULES)
    monkeypatch.chdir(tmp_path / "src")
    _, data = run_json(capsys, "--frontend", "tree-sitter", str(tmp_path))
    assert [(Path(f["path"]).name, f["rule"]) for f in data["findings"]] == [("new.c", "MML005")]


@pytest.mark.parametrize("name, text", [
    ("pyproject.toml", "[tool.mmaplint\nselect = 1"),
    ("pyproject.toml", "[tool.mmaplint]\nfrontend = \"gcc\"\n"),
    ("pyproject.toml", "[tool.mmaplint]\nselct = [\"MML001\"]\n"),
    ("setup.cfg", "[mmaplint]\nper-file-ignores =\n    no-colon-here\n"),
])
def test_bad_configuration_is_one_line(tmp_path, capsys, name, text):
    write(tmp_path, name, text)
    path = write(tmp_path, "c.c", CLEAN)
    code, out, err = run(capsys, str(path))
    assert code == 2
    assert err.startswith("mmaplint: error: ") and err.count("\n") == 1


# -- bad input -----------------------------------------------------------------------------------

def errors_for(capsys, *argv) -> tuple[int, list[dict], list[dict]]:
    code, data = run_json(capsys, *argv)
    for error in data["errors"]:
        assert "\n" not in error["message"]
    return code, data["errors"], data["findings"]


def test_missing_and_unreadable_files_do_not_stop_the_run(tmp_path, capsys):
    good = write(tmp_path, "good.c", PER_PAGE_MSYNC)
    dangling = tmp_path / "dangling.c"
    dangling.symlink_to(tmp_path / "gone.c")
    directory = tmp_path / "dir.c"
    directory.mkdir()
    code, errors, findings = errors_for(capsys, "--frontend", "tree-sitter", str(good), str(dangling),
                                        str(tmp_path / "missing.c"), str(directory / "x.h"))
    assert code == 2 and len(findings) == 1
    assert {Path(e["path"]).name for e in errors} == {"dangling.c", "missing.c", "x.h"}


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_permission_denied(tmp_path, capsys):
    locked = write(tmp_path, "locked.c", CLEAN)
    locked.chmod(0)
    code, errors, _ = errors_for(capsys, str(locked))
    assert code == 2 and errors == [{"path": "locked.c", "message": "permission denied"}]


def test_empty_file_is_clean(tmp_path, capsys):
    empty = write(tmp_path, "empty.c", "")
    for frontend in ("clang", "tree-sitter"):
        assert errors_for(capsys, "--frontend", frontend, str(empty)) == (0, [], [])


def test_binary_file(tmp_path, capsys):
    blob = write(tmp_path, "blob.c", b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4)
    good = write(tmp_path, "good.c", PER_PAGE_MSYNC)
    code, errors, findings = errors_for(capsys, str(blob), str(good))
    assert code == 1 and len(findings) == 1
    assert errors == [{"path": "blob.c", "message": "binary file (NUL bytes), not C or C++ source; skipped"}]


@pytest.mark.parametrize("frontend", ["auto", "clang", "tree-sitter"])
def test_non_utf8_source_is_analyzed(tmp_path, capsys, frontend):
    latin1 = PER_PAGE_MSYNC.encode().replace(b"#include <stddef.h>",
                                             b"#include <stddef.h>\n/* auteur: J\xe9r\xf4me \xff */")
    path = write(tmp_path, "latin1.c", latin1)
    code, errors, findings = errors_for(capsys, "--frontend", frontend, str(path))
    assert (code, errors) == (1, [])
    assert [f["line"] for f in findings] == [7]


def test_syntax_error(tmp_path, capsys):
    broken = write(tmp_path, "broken.c", PER_PAGE_MSYNC.replace("map[off] = 1;", "map[off] = = 1 +;"))
    code, errors, findings = errors_for(capsys, "--frontend", "clang", str(broken))
    assert code == 2 and len(errors) == 1 and errors[0]["message"].startswith("clang: ")
    code, errors, findings = errors_for(capsys, str(broken))          # auto falls back
    assert (code, errors, [f["frontend"] for f in findings]) == (1, [], ["tree-sitter"])


def test_huge_generated_file(tmp_path, capsys):
    rows = ",\n".join(f"    {{{i}, 0x{i * 2654435761 % 2**32:08x}}}" for i in range(220_000))
    huge = write(tmp_path, "table.c", f"static const unsigned t[][2] = {{\n{rows}\n}};\n")
    assert huge.stat().st_size > 5 * 2**20
    code, errors, _ = errors_for(capsys, str(huge))
    assert code == 2 and len(errors) == 1 and "over the 4.0 MiB limit" in errors[0]["message"]
    code, errors, _ = errors_for(capsys, "--frontend", "tree-sitter", "--max-file-size", str(2**23),
                                 str(huge))
    assert (code, errors) == (0, [])


def test_malformed_compile_commands(tmp_path, capsys):
    database = write(tmp_path, "compile_commands.json", "[{ this is not json")
    path = write(tmp_path, "bad.c", PER_PAGE_MSYNC)
    other = write(tmp_path, "other.c", PER_PAGE_MSYNC)
    code, errors, findings = errors_for(capsys, "--frontend", "clang", str(path), str(other))
    assert code == 1 and [(f["rule"], f["frontend"]) for f in findings] == [("MML001", "clang")] * 2
    assert len(errors) == 1 and errors[0]["path"] == database.name
    assert errors[0]["message"].startswith("malformed compile_commands.json")


def test_fast_frontend_uses_clang_only_with_a_database_entry(tmp_path, capsys):
    listed = write(tmp_path, "listed.c", PER_PAGE_MSYNC)
    unlisted = write(tmp_path, "unlisted.c", PER_PAGE_MSYNC)
    write(tmp_path, "compile_commands.json", json.dumps([
        {"directory": str(tmp_path), "file": "listed.c", "arguments": ["cc", "-c", "listed.c"]}]))
    _, data = run_json(capsys, "--frontend", "fast", str(listed), str(unlisted))
    assert [(Path(f["path"]).name, f["frontend"]) for f in data["findings"]] == [
        ("listed.c", "clang"), ("unlisted.c", "tree-sitter")]


def test_a_frontend_bug_is_one_files_error(tmp_path, capsys, monkeypatch):
    from mmaplint.analyzer.frontends import clang, treesitter

    def broken(path, source, options):
        raise AttributeError("simulated bug")

    bad = write(tmp_path, "bad.c", PER_PAGE_MSYNC)
    monkeypatch.setattr(clang, "parse", broken)
    code, errors, findings = errors_for(capsys, str(bad))        # auto: tree-sitter takes over
    assert (code, errors, [f["frontend"] for f in findings]) == (1, [], ["tree-sitter"])
    monkeypatch.setattr(treesitter, "parse", broken)
    code, errors, findings = errors_for(capsys, "--frontend", "tree-sitter", str(bad))
    assert (code, findings) == (2, [])
    assert errors == [{"path": "bad.c", "message": "internal error in the tree-sitter frontend "
                       "(AttributeError: simulated bug); please report it"}]


def test_a_native_crash_costs_one_file(tmp_path, capsys):
    # 30,000 terms overflow libclang's stack (a native crash no Python handler sees)
    deep = write(tmp_path, "deep.c", "void f(char *p, long i) { p[" + "+".join(["i"] * 30000) + "] = 0; }\n")
    good = write(tmp_path, "good.c", PER_PAGE_MSYNC)
    code, errors, findings = errors_for(capsys, "--frontend", "clang", "-j", "1", str(deep), str(good))
    assert code == 1 and [f["rule"] for f in findings] == ["MML001"]
    assert [error["path"] for error in errors] == ["deep.c"]
    message = errors[0]["message"]      # the signal that killed its worker: SIGSEGV on Linux
    assert message.startswith("the clang frontend crashed on this file (SIG") and message.endswith("); skipped")


def test_unwritable_output_is_a_usage_error(tmp_path, capsys):
    bad = write(tmp_path, "bad.c", PER_PAGE_MSYNC)
    code, out, err = run(capsys, "-o", str(tmp_path / "missing" / "report.txt"), str(bad))
    assert code == 2 and err.startswith("mmaplint: error: cannot write ") and err.count("\n") == 1


@pytest.mark.parametrize("text", [
    '[tool.mmaplint]\nper-file-ignores = {"*.c" = 5}\n',
    "[tool.mmaplint]\ncompile-commands = 5\n",
    "[tool.mmaplint]\nmax-file-size = 1.5\n",
    '[tool.mmaplint]\nper-file-ignores = {"*.c" = ["MML0O1"]}\n',
    "[tool.mmaplint]\nselect = []\n",
    "[tool]\nmmaplint = 5\n",
    "[tool]\nmmaplint = []\n",
    'tool = "x"\n',
    "[tool.mmaplint]\nparse-timeout = -1\n",
    "[tool.mmaplint]\nparse-memory = 0.5\n",
])
def test_bad_configuration_values_are_one_line(tmp_path, capsys, text):
    write(tmp_path, "pyproject.toml", text)
    code, out, err = run(capsys, str(write(tmp_path, "c.c", CLEAN)))
    assert code == 2 and err.startswith("mmaplint: error: ") and err.count("\n") == 1


def test_a_file_named_twice_is_analyzed_once(tmp_path, capsys, monkeypatch):
    write(tmp_path, "bad.c", PER_PAGE_MSYNC)
    _, data = run_json(capsys, "--frontend", "tree-sitter", "bad.c", "./bad.c", str(tmp_path / "bad.c"))
    assert len(data["findings"]) == 1


def test_columns_count_characters_not_bytes(tmp_path, capsys):
    source = PER_PAGE_MSYNC.replace("        msync(", "        /* é€ */ msync(")
    _, data = run_json(capsys, "--frontend", "tree-sitter", str(write(tmp_path, "u.c", source)))
    assert data["findings"][0]["column"] == len("        /* é€ */ ") + 1


def test_a_baseline_matches_from_another_directory(tmp_path, capsys, monkeypatch):
    write(tmp_path, "pyproject.toml", '[tool.mmaplint]\nfrontend = "tree-sitter"\n')
    write(tmp_path, "src/bad.c", PER_PAGE_MSYNC)
    monkeypatch.chdir(tmp_path / "src")
    assert run(capsys, "--baseline", "../baseline.json", "--write-baseline", "bad.c")[0] == 0
    monkeypatch.chdir(tmp_path)
    code, data = run_json(capsys, "--baseline", "baseline.json", "src")
    assert (code, data["findings"]) == (0, [])


def test_a_rule_bug_is_reported_and_other_rules_still_run(tmp_path):
    from dataclasses import replace

    from mmaplint.analyzer.engine import Settings, analyze, select_rules
    from mmaplint.analyzer.registry import load_rules

    def broken(program):
        raise ValueError("simulated")
        yield

    rules = select_rules(load_rules(), ("MML001", "MML005"), ())
    rules = [replace(r, check=broken) if r.id == "MML005" else r for r in rules]
    report = analyze([str(write(tmp_path, "bad.c", PER_PAGE_MSYNC))],
                     Settings(frontend="tree-sitter", jobs=1), rules)
    assert [f.rule for f in report.findings] == ["MML001"]
    assert [(e.path, e.message) for e in report.errors] == [
        ("<rule MML005>", "internal error in rule MML005 (ValueError: simulated); its findings are missing")]


def test_header_templates_are_read_as_headers(tmp_path):
    from mmaplint.analyzer.engine import discover, language_of

    for name in ("api.h.in", "main.c", "notes.in", "Makefile.in"):
        (tmp_path / name).write_text("\n")
    files = discover([str(tmp_path)]).files
    assert sorted(Path(f).name for f in files) == ["api.h.in", "main.c"]
    assert language_of(str(tmp_path / "api.hpp.in")) == "c++"


@pytest.mark.parametrize("collecting_before", [True, False])
def test_a_run_holds_collection_off_and_gives_it_back(tmp_path, collecting_before):
    """While the rules run, cyclic collection is off (the facts and the program's analyses
    live to the end of the run); afterwards it is as the caller had it, and objects the caller
    froze stay frozen."""
    import gc
    from dataclasses import replace

    from mmaplint.analyzer.engine import Settings, analyze, select_rules
    from mmaplint.analyzer.registry import load_rules

    during = []

    def watching(program):
        during.append(gc.isenabled())
        return iter(())

    rules = [replace(rule, check=watching) for rule in select_rules(load_rules(), ("MML001",), ())]
    path = str(write(tmp_path, "bad.c", PER_PAGE_MSYNC))
    was = gc.isenabled()
    (gc.enable if collecting_before else gc.disable)()
    kept = [object()]
    gc.freeze()
    try:
        analyze([path], Settings(frontend="tree-sitter", jobs=1), rules)
        collecting_after = gc.isenabled()
        still_frozen = not any(o is kept for o in gc.get_objects())
    finally:
        gc.unfreeze()
        (gc.enable if was else gc.disable)()
    assert during == [False]
    assert collecting_after == collecting_before and still_frozen
    assert any(o is kept for o in gc.get_objects())         # the check sees a thawed object


def _collecting(path, settings, callees, compile_args=None):
    """A stand-in for parse_file that tells, as a file's error, whether its process collects garbage."""
    import gc

    from mmaplint.analyzer.findings import FileError
    return FileError(path, f"collecting: {gc.isenabled()}")


def test_worker_processes_collect_garbage(tmp_path, monkeypatch):
    """Workers are forked while the run holds collection off; they must turn it back on, since
    the clang frontend leaves reference cycles behind it on every file."""
    from mmaplint.analyzer import engine

    monkeypatch.setattr(engine, "parse_file", _collecting)
    paths = [str(write(tmp_path, name, PER_PAGE_MSYNC)) for name in ("a.c", "b.c")]
    report = engine.analyze(paths, engine.Settings(frontend="clang", jobs=2))
    assert [e.message for e in report.errors] == ["collecting: True"] * 2


def test_call_chains_do_not_vary_with_the_hash_seed(tmp_path):
    """Two callbacks bound to one field reach the same sync: the chain shown through them is
    the same in every run (sets of names are walked in order, not in hash order)."""
    write(tmp_path, "ops.c", textwrap.dedent("""\
        #include <unistd.h>
        struct ops { int (*queue)(int fd); };
        static int do_sync(int fd) { return fsync(fd); }
        static int alpha_queue(int fd) { return do_sync(fd) + 1; }
        static int omega_queue(int fd) { return do_sync(fd) + 2; }
        struct ops alpha = { .queue = alpha_queue };
        struct ops omega = { .queue = omega_queue };
        void run(struct ops *o, int fd, int n)
        {
            for (int i = 0; i < n; i++)
                o->queue(fd);
        }
        """))
    assert len(_reports_over_hash_seeds(tmp_path, "ops.c")) == 1


def test_one_finding_per_call_site_is_the_same_whatever_the_hash_seed(tmp_path: Path):
    """A call in a loop that reaches fsync and fdatasync is one finding; which of the two it
    shows does not depend on the order the rule's set of callees is walked in."""
    write(tmp_path, "flush.c", textwrap.dedent("""\
        #include <unistd.h>
        static int flush(int fd, int how) { return how ? fsync(fd) : fdatasync(fd); }
        void run(int fd, int n)
        {
            for (int i = 0; i < n; i++)
                flush(fd, i & 1);
        }
        """))
    outputs = _reports_over_hash_seeds(tmp_path, "flush.c")
    assert len(outputs) == 1
    assert len(json.loads(outputs.pop())["findings"]) == 1


def _reports_over_hash_seeds(tmp_path: Path, name: str) -> set[str]:
    """The distinct JSON reports of a file with findings, checked under eight hash seeds."""
    outputs = set()
    for seed in range(8):
        result = mmaplint("check", "--frontend", "tree-sitter", "--format", "json", name, cwd=tmp_path,
                          env={**os.environ, "PYTHONHASHSEED": str(seed)})
        assert result.returncode == 1, result.stderr
        outputs.add(result.stdout)
    return outputs
