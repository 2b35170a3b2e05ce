import json
import os
from pathlib import Path

import pytest

from mmaplint.analyzer.compdb import CompdbError, CompilationDatabase


def write_db(directory: Path, entries: object) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "compile_commands.json"
    path.write_text(entries if isinstance(entries, str) else json.dumps(entries))
    return path


def test_arguments_form_drops_compiler_outputs_and_source(tmp_path: Path) -> None:
    write_db(tmp_path, [{
        "directory": str(tmp_path), "file": "src/a.c",
        "arguments": ["gcc", "-DX=1", "-Iinc", "-c", "src/a.c", "-o", "a.o",
                      "-MD", "-MF", "a.d", "-MT", "a.o", "-MQ", "q", "-MMD", "-O2"],
    }])
    args = CompilationDatabase().arguments(str(tmp_path / "src" / "a.c"))
    assert args == ("-DX=1", f"-I{tmp_path / 'inc'}", "-O2")


def test_command_form_is_split_like_a_shell(tmp_path: Path) -> None:
    write_db(tmp_path, [{
        "directory": str(tmp_path / "build"), "file": str(tmp_path / "a.c"),
        "command": "cc '-DMSG=\"a b\"' -isystem ../sys -include cfg.h -o out/a.o -c ../a.c",
    }])
    args = CompilationDatabase().arguments(str(tmp_path / "a.c"))
    assert args == ('-DMSG="a b"', "-isystem", str(tmp_path / "sys"),
                    "-include", str(tmp_path / "build" / "cfg.h"))


def test_first_of_several_entries_wins(tmp_path: Path) -> None:
    write_db(tmp_path, [
        {"directory": str(tmp_path), "file": "a.c", "arguments": ["cc", "-DFIRST", "-c", "a.c"]},
        {"directory": str(tmp_path), "file": "a.c", "arguments": ["cc", "-DSECOND", "-c", "a.c"]},
    ])
    assert CompilationDatabase().arguments(str(tmp_path / "a.c")) == ("-DFIRST",)


def test_file_without_entry_has_no_arguments(tmp_path: Path) -> None:
    write_db(tmp_path, [{"directory": str(tmp_path), "file": "a.c", "arguments": ["cc", "a.c"]}])
    assert CompilationDatabase().arguments(str(tmp_path / "other.c")) is None


def test_found_upward_from_the_file(tmp_path: Path) -> None:
    write_db(tmp_path, [])
    nested = tmp_path / "x" / "y"
    nested.mkdir(parents=True)
    assert CompilationDatabase().find(str(nested / "a.c")) == str(tmp_path / "compile_commands.json")


def test_found_in_a_build_subdirectory(tmp_path: Path) -> None:
    db = write_db(tmp_path / "build", [])
    (tmp_path / "src").mkdir()
    assert CompilationDatabase().find(str(tmp_path / "src" / "a.c")) == str(db)


def test_explicit_directory_or_file(tmp_path: Path) -> None:
    db = write_db(tmp_path / "out", [])
    finder = CompilationDatabase()
    assert finder.find("/elsewhere/a.c", str(tmp_path / "out")) == str(db)
    assert finder.find("/elsewhere/a.c", str(db)) == str(db)


def test_nothing_found(tmp_path: Path) -> None:
    root = tmp_path / "deep"
    root.mkdir()
    found = CompilationDatabase().find(str(root / "a.c"))
    assert found is None or not found.startswith(str(tmp_path))


@pytest.mark.parametrize("content, reason", [
    ("[{", "bad JSON"),
    ('{"directory": "/"}', "not a list"),
    ('[{"file": "a.c", "arguments": ["cc"]}]', "lacks"),
    ('[{"directory": "/", "file": "a.c"}]', "neither"),
    ('[{"directory": "/", "file": "a.c", "command": "cc \'unclosed"}]', "bad command"),
    ('[3]', "lacks"),
])
def test_malformed_databases(tmp_path: Path, content: str, reason: str) -> None:
    db = write_db(tmp_path, content)
    finder = CompilationDatabase()
    with pytest.raises(CompdbError) as raised:
        finder.arguments(str(tmp_path / "a.c"))
    message = str(raised.value)
    assert message.startswith(f"{db}: malformed compile_commands.json: ") and reason in message
    assert "\n" not in message
    assert finder.arguments(str(tmp_path / "a.c")) is None   # reported once, then no database


def test_relative_directory_is_relative_to_the_database(tmp_path: Path) -> None:
    write_db(tmp_path, [{"directory": "sub", "file": "a.c", "arguments": ["cc", "-Iinc", "a.c"]}])
    args = CompilationDatabase().arguments(os.path.join(tmp_path, "sub", "a.c"))
    assert args == (f"-I{tmp_path / 'sub' / 'inc'}",)
