"""Models as data: a function mmaplint does not analyze is, through its model, the C library
call it stands for, for every rule; models come built in, from plugins and from the
project's configuration, and `mmaplint models` lists them."""
from __future__ import annotations

from pathlib import Path

import pytest

from mmaplint.analyzer.models import BUILTIN, ModelError, parse

from mmaplint_cli import mmaplint

DB_SYNC_LOOP = """\
#include <stddef.h>

int db_sync(void *handle);
void *xfopen(const char *path, const char *mode);

void commit_each(void *db, size_t n) {
    for (size_t i = 0; i < n; i++)
        db_sync(db);
}

void read_each(size_t n) {
    for (size_t i = 0; i < n; i++) {
        void *f = xfopen("/etc/hosts", "r");
        (void)f;
    }
}
"""

PYPROJECT = """\
[tool.mmaplint.models]
db_sync = "fsync($0)"
xfopen = "fopen"
"""


def test_a_model_is_a_call_or_a_name():
    sync = parse("db_sync", "fsync($0)", "test")
    assert (sync.callee, [a.op for a in sync.args]) == ("fsync", ["$0"])
    assert parse("xfopen", "fopen", "test").args is None
    flags = parse("log_open", "open($0, O_WRONLY | O_APPEND | O_DSYNC)", "test")
    assert flags.callee == "open" and flags.args[1].text == "O_WRONLY | O_APPEND | O_DSYNC"


@pytest.mark.parametrize("spec", ["fsync(", "1 + 2", 3, ""])
def test_a_malformed_model_is_a_clear_error(spec):
    with pytest.raises(ModelError, match="model db_sync"):
        parse("db_sync", spec, "pyproject.toml")


def test_configured_models_make_calls_visible(tmp_path: Path):
    (tmp_path / "store.c").write_text(DB_SYNC_LOOP)
    without = mmaplint("check", "--frontend", "tree-sitter", "store.c", cwd=tmp_path)
    assert without.returncode == 0, without.stdout + without.stderr
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    done = mmaplint("check", "--frontend", "tree-sitter", "store.c", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "store.c:8:9: MML009 [sync-per-iteration] fsync() runs" in done.stdout
    assert "store.c:13:19: MML004 [stdio-default-buffer-in-loop] fopen() runs" in done.stdout
    listed = mmaplint("models", cwd=tmp_path).stdout.splitlines()
    assert any(line.split()[:3] == ["db_sync", "is", "fsync($0)"] and line.endswith("pyproject.toml)")
               for line in listed)
    assert any(line.split()[:3] == ["open64", "is", "open"] and line.endswith("(built-in)") for line in listed)


def test_a_bad_model_in_the_configuration_is_one_line(tmp_path: Path):
    (tmp_path / "store.c").write_text(DB_SYNC_LOOP)
    (tmp_path / "pyproject.toml").write_text('[tool.mmaplint.models]\ndb_sync = "fsync("\n')
    done = mmaplint("check", "store.c", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "model db_sync" in done.stderr


def test_a_program_definition_wins_over_a_model(tmp_path: Path):
    """A model describes a body mmaplint does not see; the program's own body is seen."""
    (tmp_path / "store.c").write_text(DB_SYNC_LOOP + "int db_sync(void *handle) { (void)handle; return 0; }\n")
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    done = mmaplint("check", "--frontend", "tree-sitter", "--select", "MML009", "store.c", cwd=tmp_path)
    assert done.returncode == 0, done.stdout


def test_builtin_models_cover_libc_variants():
    assert BUILTIN["open64"] == "open" and BUILTIN["fopen64"] == "fopen" and BUILTIN["mmap64"] == "mmap"
