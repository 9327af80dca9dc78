"""The memory tool's six commands: the exact text the model gets, and the changes to apply."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_memory.domain.files.commands import (
    Change,
    CommandResult,
    MemoryToolError,
    run_command,
)
from agent_memory.domain.kernel.errors import DomainError

pytestmark = pytest.mark.unit

LISTING_HEADER = (
    "Here're the files and directories up to 2 levels deep in {}, "
    "excluding hidden items and node_modules:"
)


class DictFiles:
    """A FileView over a dict of path -> content, with a helper that applies changes."""

    def __init__(self, memories=None):
        self.memories = dict(memories or {})

    def read(self, path):
        return self.memories.get(path)

    def list_under(self, folder):
        found = [
            (path, len(content.encode("utf-8")))
            for path, content in self.memories.items()
            if path.startswith(folder + "/")
        ]
        # "Any order": hand them back reverse-sorted so the commands must sort for themselves.
        return sorted(found, reverse=True)

    def apply(self, changes):
        for change in changes:
            if change.operation == "delete":
                del self.memories[change.path]
            elif change.operation == "rename":
                del self.memories[change.from_path]
                self.memories[change.path] = change.content
            else:
                self.memories[change.path] = change.content


def run(files, **command):
    return run_command(command, files)


def failure(files, command, **kwargs):
    before = dict(files.memories)
    with pytest.raises(MemoryToolError) as caught:
        run_command(command, files, **kwargs)
    assert files.memories == before
    return caught.value.code, caught.value.message


# A store with folders two and three levels deep, hidden items and node_modules.
TREE = {
    "/memories/notes.md": "a" * 100,
    "/memories/conventions/release.md": "b" * 1536,
    "/memories/conventions/old/2024.md": "c" * 2048,
    "/memories/conventions/old/deep/x.md": "d" * 10,
    "/memories/conventions/.draft.md": "g" * 3,
    "/memories/.hidden.md": "e" * 5,
    "/memories/node_modules/pkg.md": "f" * 7,
}
RELEASE = "# Release\n\nTag vX.Y.Z — from main.\nShip on Tuesdays ☕\n"


# --- view -------------------------------------------------------------------------------------


def test_view_of_an_empty_memory_lists_the_root_alone():
    result = run(DictFiles(), command="view", path="/memories")
    assert result == CommandResult(LISTING_HEADER.format("/memories") + "\n0B\t/memories", [])


def test_view_of_the_root_lists_two_levels_with_sizes_and_skips_hidden_items():
    result = run(DictFiles(TREE), command="view", path="/memories")
    assert result.output == (
        "Here're the files and directories up to 2 levels deep in /memories, "
        "excluding hidden items and node_modules:\n"
        "3.6K\t/memories\n"
        "3.5K\t/memories/conventions/\n"
        "2.0K\t/memories/conventions/old/\n"
        "1.5K\t/memories/conventions/release.md\n"
        "100B\t/memories/notes.md"
    )
    assert result.changes == []


@pytest.mark.parametrize(
    "path", ["conventions", "conventions/", "/memories/conventions", "/memories/conventions/"]
)
def test_view_of_a_folder_counts_levels_from_that_folder(path):
    result = run(DictFiles(TREE), command="view", path=path)
    assert result.output == (
        "Here're the files and directories up to 2 levels deep in /memories/conventions, "
        "excluding hidden items and node_modules:\n"
        "3.5K\t/memories/conventions\n"
        "2.0K\t/memories/conventions/old/\n"
        "2K\t/memories/conventions/old/2024.md\n"
        "10B\t/memories/conventions/old/deep/\n"
        "1.5K\t/memories/conventions/release.md"
    )


def test_view_of_a_file_numbers_every_line_including_the_empty_one_after_the_last_newline():
    files = DictFiles({"/memories/conventions/release.md": RELEASE})
    result = run(files, command="view", path="conventions/release.md")
    assert result == CommandResult(
        "Here's the content of /memories/conventions/release.md with line numbers:\n"
        "     1\t# Release\n"
        "     2\t\n"
        "     3\tTag vX.Y.Z — from main.\n"
        "     4\tShip on Tuesdays ☕\n"
        "     5\t",
        [],
    )


def test_view_of_an_empty_file_shows_one_empty_line():
    result = run(DictFiles({"/memories/empty.md": ""}), command="view", path="/memories/empty.md")
    assert result.output == "Here's the content of /memories/empty.md with line numbers:\n     1\t"


def test_view_range_shows_those_lines_with_their_own_numbers():
    files = DictFiles({"/memories/n.md": "\n".join(f"line {i}" for i in range(1, 13))})
    result = run(files, command="view", path="/memories/n.md", view_range=[9, 11])
    assert result.output == (
        "Here's the content of /memories/n.md with line numbers:\n"
        "     9\tline 9\n"
        "    10\tline 10\n"
        "    11\tline 11"
    )


def test_view_range_ending_in_minus_one_runs_to_the_end():
    files = DictFiles({"/memories/n.md": "a\nb\nc\nd\ne"})
    result = run(files, command="view", path="/memories/n.md", view_range=[4, -1])
    assert result.output == (
        "Here's the content of /memories/n.md with line numbers:\n     4\td\n     5\te"
    )
    result = run(files, command="view", path="/memories/n.md", view_range=[5, 5])
    assert result.output == "Here's the content of /memories/n.md with line numbers:\n     5\te"


def test_view_range_is_ignored_for_a_folder_as_in_the_sdk():
    result = run(DictFiles(), command="view", path="/memories", view_range=[1, 2])
    assert result.output == LISTING_HEADER.format("/memories") + "\n0B\t/memories"


def test_view_of_a_file_past_999999_lines_is_refused():
    files = DictFiles({"/memories/big.md": "\n" * 999_999})
    assert failure(files, {"command": "view", "path": "/memories/big.md"}) == (
        "memory.too_large",
        "File /memories/big.md exceeds maximum line limit of 999,999 lines.",
    )


# --- create -----------------------------------------------------------------------------------


def test_create_makes_a_file_and_answers_with_its_canonical_path():
    files = DictFiles()
    result = run(files, command="create", path="conventions/release.md", file_text=RELEASE)
    assert result == CommandResult(
        "File created successfully at: /memories/conventions/release.md",
        [Change("create", "/memories/conventions/release.md", RELEASE)],
    )


def test_create_at_exactly_max_bytes_is_allowed_and_one_byte_more_is_too_large():
    files = DictFiles()
    # "é" is two bytes in UTF-8: the limit counts bytes, not characters.
    result = run_command(
        {"command": "create", "path": "/memories/a.md", "file_text": "é" * 5}, files, max_bytes=10
    )
    assert result.changes == [Change("create", "/memories/a.md", "é" * 5)]
    assert failure(
        files,
        {"command": "create", "path": "/memories/a.md", "file_text": "é" * 5 + "x"},
        max_bytes=10,
    ) == (
        "memory.too_large",
        "Error: The file /memories/a.md would be 11 bytes; a memory file may be at most 10 bytes.",
    )


def test_the_default_limit_is_100_kib():
    files = DictFiles()
    assert run(files, command="create", path="a.md", file_text="x" * 102_400).changes
    assert failure(files, {"command": "create", "path": "a.md", "file_text": "x" * 102_401}) == (
        "memory.too_large",
        "Error: The file /memories/a.md would be 102401 bytes; a memory file may be at most 102400 bytes.",
    )


# --- str_replace ------------------------------------------------------------------------------

SEVEN = "l1\nl2\nl3\nl4\nl5\nl6\nl7\n"


def test_str_replace_edits_and_shows_two_lines_either_side():
    files = DictFiles({"/memories/s.md": SEVEN})
    result = run(files, command="str_replace", path="s.md", old_str="l4", new_str="FOUR")
    assert result == CommandResult(
        "The memory file has been edited.\n"
        "     2\tl2\n"
        "     3\tl3\n"
        "     4\tFOUR\n"
        "     5\tl5\n"
        "     6\tl6",
        [Change("update", "/memories/s.md", "l1\nl2\nl3\nFOUR\nl5\nl6\nl7\n")],
    )


def test_str_replace_snippet_is_cut_at_the_start_of_the_file():
    files = DictFiles({"/memories/s.md": SEVEN})
    result = run(files, command="str_replace", path="s.md", old_str="l1\nl2", new_str="one")
    assert result.output == (
        "The memory file has been edited.\n     1\tone\n     2\tl3\n     3\tl4"
    )
    assert result.changes == [Change("update", "/memories/s.md", "one\nl3\nl4\nl5\nl6\nl7\n")]


def test_str_replace_with_an_empty_or_missing_new_str_deletes_the_text():
    files = DictFiles({"/memories/u.md": "café ☕ au lait\n"})
    empty = run(files, command="str_replace", path="u.md", old_str=" ☕", new_str="")
    missing = run(files, command="str_replace", path="u.md", old_str=" ☕")
    assert (
        empty.changes == missing.changes == [Change("update", "/memories/u.md", "café au lait\n")]
    )
    assert empty.output == ("The memory file has been edited.\n     1\tcafé au lait\n     2\t")


def test_str_replace_by_the_same_text_changes_nothing():
    files = DictFiles({"/memories/s.md": SEVEN})
    result = run(files, command="str_replace", path="s.md", old_str="l4", new_str="l4")
    assert result.changes == []


def test_str_replace_result_over_max_bytes_is_too_large():
    files = DictFiles({"/memories/s.md": "12345678"})
    command = {"command": "str_replace", "path": "s.md", "old_str": "8", "new_str": "89"}
    assert failure(files, command, max_bytes=8) == (
        "memory.too_large",
        "Error: The file /memories/s.md would be 9 bytes; a memory file may be at most 8 bytes.",
    )
    command["new_str"] = "9"
    assert run_command(command, files, max_bytes=8).changes == [
        Change("update", "/memories/s.md", "12345679")
    ]


COMMON = st.text(alphabet="ab \né☕", max_size=40)


@given(
    before=COMMON, left=COMMON, right=COMMON, after=COMMON, new_str=st.text("xy\n€§", max_size=10)
)
def test_create_then_str_replace_of_a_unique_text_equals_python_replace(
    before, left, right, after, new_str
):
    # The one "§" in the file sits inside old_str, so old_str occurs exactly once.
    old_str = f"{left}§{right}"
    content = before + old_str + after
    files = DictFiles()
    files.apply(run(files, command="create", path="p/q.md", file_text=content).changes)
    files.apply(
        run(files, command="str_replace", path="p/q.md", old_str=old_str, new_str=new_str).changes
    )
    assert files.memories == {"/memories/p/q.md": content.replace(old_str, new_str)}


# --- insert -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "line", "text", "after"),
    [
        ("one\ntwo\n", 0, "zero", "zero\none\ntwo\n"),
        ("one\ntwo\n", 1, "one and a half\n\n", "one\none and a half\ntwo\n"),
        ("one\ntwo\n", 2, "three\n", "one\ntwo\nthree\n"),
        ("one\ntwo", 2, "three", "one\ntwo\nthree\n"),
        ("", 0, "first", "first\n"),
        ("a\r\nb\r\n", 1, "ünï", "a\r\nünï\nb\r\n"),
    ],
)
def test_insert_puts_the_text_after_the_given_line(content, line, text, after):
    files = DictFiles({"/memories/t.md": content})
    result = run(files, command="insert", path="t.md", insert_line=line, insert_text=text)
    assert result == CommandResult(
        "The file /memories/t.md has been edited.", [Change("update", "/memories/t.md", after)]
    )


def test_insert_result_over_max_bytes_is_too_large():
    files = DictFiles({"/memories/t.md": "1234\n"})
    command = {"command": "insert", "path": "t.md", "insert_line": 1, "insert_text": "5678"}
    assert failure(files, command, max_bytes=9) == (
        "memory.too_large",
        "Error: The file /memories/t.md would be 10 bytes; a memory file may be at most 9 bytes.",
    )
    assert run_command(command, files, max_bytes=10).changes == [
        Change("update", "/memories/t.md", "1234\n5678\n")
    ]


# --- delete -----------------------------------------------------------------------------------


def test_delete_of_a_file():
    files = DictFiles(TREE)
    result = run(files, command="delete", path="notes.md")
    assert result == CommandResult(
        "Successfully deleted /memories/notes.md", [Change("delete", "/memories/notes.md", None)]
    )


def test_delete_of_a_folder_deletes_every_memory_under_it():
    files = DictFiles(TREE)
    result = run(files, command="delete", path="/memories/conventions/")
    assert result == CommandResult(
        "Successfully deleted /memories/conventions",
        [
            Change("delete", "/memories/conventions/.draft.md", None),
            Change("delete", "/memories/conventions/old/2024.md", None),
            Change("delete", "/memories/conventions/old/deep/x.md", None),
            Change("delete", "/memories/conventions/release.md", None),
        ],
    )
    files.apply(result.changes)
    assert sorted(files.memories) == [
        "/memories/.hidden.md",
        "/memories/node_modules/pkg.md",
        "/memories/notes.md",
    ]


# --- rename -----------------------------------------------------------------------------------


def test_rename_of_a_file_keeps_its_content():
    files = DictFiles({"/memories/draft.md": RELEASE})
    result = run(files, command="rename", old_path="draft.md", new_path="/memories/final/r.md")
    assert result == CommandResult(
        "Successfully renamed /memories/draft.md to /memories/final/r.md",
        [Change("rename", "/memories/final/r.md", RELEASE, from_path="/memories/draft.md")],
    )


def test_rename_of_a_folder_moves_every_memory_under_it():
    files = DictFiles(TREE)
    result = run(files, command="rename", old_path="conventions", new_path="archive/2025/")
    assert result.output == "Successfully renamed /memories/conventions to /memories/archive/2025"
    assert result.changes == [
        Change(
            "rename", "/memories/archive/2025/.draft.md", "g" * 3, "/memories/conventions/.draft.md"
        ),
        Change(
            "rename",
            "/memories/archive/2025/old/2024.md",
            "c" * 2048,
            "/memories/conventions/old/2024.md",
        ),
        Change(
            "rename",
            "/memories/archive/2025/old/deep/x.md",
            "d" * 10,
            "/memories/conventions/old/deep/x.md",
        ),
        Change(
            "rename",
            "/memories/archive/2025/release.md",
            "b" * 1536,
            "/memories/conventions/release.md",
        ),
    ]
    files.apply(result.changes)
    assert not [path for path in files.memories if path.startswith("/memories/conventions/")]


def test_rename_of_a_folder_that_would_make_a_path_too_long_is_refused():
    name = "n" * (512 - len("/memories/a/") - len(".md"))
    files = DictFiles({f"/memories/a/{name}.md": "x"})
    shown = f"/memories/ab/{'n' * 64}..."
    assert failure(files, {"command": "rename", "old_path": "a", "new_path": "ab"}) == (
        "invalid_path",
        f"Invalid path '{shown}': a path may be at most 512 characters with the /memories/ "
        "prefix, and this one is 513.",
    )
    assert run(files, command="rename", old_path="a", new_path="b").changes


# --- every failure: its code, its exact text, and nothing changed ------------------------------

STORE = {
    "/memories/notes.md": "alpha\nbeta\nalpha beta\n",
    "/memories/same-line.md": "a-a\n",
    "/memories/two.md": "one\ntwo\n",
    "/memories/five.md": "a\nb\nc\nd\ne",
    "/memories/team/a.md": "A",
    "/memories/team/b.md": "B",
    "/memories/other/c.md": "C",
}

FAILURES = [
    # dispatch and parameters
    (
        {"path": "/memories"},
        "memory.invalid_command",
        "Parameter `command` is required. The allowed commands for the memory tool are: "
        "view, create, str_replace, insert, delete, rename",
    ),
    (
        {"command": "undo_edit", "path": "/memories/notes.md"},
        "memory.invalid_command",
        "Unrecognized command undo_edit. The allowed commands for the memory tool are: "
        "view, create, str_replace, insert, delete, rename",
    ),
    (
        {"command": "view"},
        "memory.invalid_command",
        "Parameter `path` is required for command: view",
    ),
    (
        {"command": "view", "path": 7},
        "memory.invalid_command",
        "Parameter `path` must be a string for command: view",
    ),
    (
        {"command": "create", "path": "x.md"},
        "memory.invalid_command",
        "Parameter `file_text` is required for command: create",
    ),
    (
        {"command": "str_replace", "path": "notes.md", "new_str": "x"},
        "memory.invalid_command",
        "Parameter `old_str` is required for command: str_replace",
    ),
    (
        {"command": "str_replace", "path": "notes.md", "old_str": "beta", "new_str": 1},
        "memory.invalid_command",
        "Parameter `new_str` must be a string for command: str_replace",
    ),
    (
        {"command": "insert", "path": "two.md", "insert_text": "x"},
        "memory.invalid_command",
        "Parameter `insert_line` is required for command: insert",
    ),
    (
        {"command": "insert", "path": "two.md", "insert_line": True, "insert_text": "x"},
        "memory.invalid_command",
        "Parameter `insert_line` must be an integer for command: insert",
    ),
    (
        {"command": "insert", "path": "two.md", "insert_line": 1},
        "memory.invalid_command",
        "Parameter `insert_text` is required for command: insert",
    ),
    (
        {"command": "rename", "old_path": "notes.md"},
        "memory.invalid_command",
        "Parameter `new_path` is required for command: rename",
    ),
    (
        {"command": "view", "path": "five.md", "view_range": [1]},
        "memory.invalid_command",
        "Invalid `view_range`. It should be a list of two integers.",
    ),
    (
        {"command": "view", "path": "five.md", "view_range": "1-2"},
        "memory.invalid_command",
        "Invalid `view_range`. It should be a list of two integers.",
    ),
    # view
    (
        {"command": "view", "path": "/memories/missing.md"},
        "memory.not_found",
        "The path /memories/missing.md does not exist. Please provide a valid path.",
    ),
    (
        {"command": "view", "path": "missing/"},
        "memory.not_found",
        "The path /memories/missing does not exist. Please provide a valid path.",
    ),
    (
        {"command": "view", "path": "five.md", "view_range": [0, 2]},
        "memory.invalid_argument",
        "Invalid `view_range`: [0, 2]. Its first element `0` should be within the range of "
        "lines of the file: [1, 5]",
    ),
    (
        {"command": "view", "path": "five.md", "view_range": [6, -1]},
        "memory.invalid_argument",
        "Invalid `view_range`: [6, -1]. Its first element `6` should be within the range of "
        "lines of the file: [1, 5]",
    ),
    (
        {"command": "view", "path": "five.md", "view_range": [2, 6]},
        "memory.invalid_argument",
        "Invalid `view_range`: [2, 6]. Its second element `6` should be smaller than the "
        "number of lines in the file: `5`",
    ),
    (
        {"command": "view", "path": "five.md", "view_range": [3, 2]},
        "memory.invalid_argument",
        "Invalid `view_range`: [3, 2]. Its second element `2` should be larger or equal than "
        "its first `3`",
    ),
    (
        {"command": "view", "path": "/memories/../etc"},
        "invalid_path",
        "Invalid path '/memories/../etc': '.' and '..' segments are not allowed.",
    ),
    (
        {"command": "view", "path": "/memories/notes.md/"},
        "invalid_path",
        "Invalid path '/memories/notes.md/': a memory file path must not end with /.",
    ),
    # create
    (
        {"command": "create", "path": "/memories/notes.md", "file_text": "new"},
        "memory.exists",
        "Error: File /memories/notes.md already exists",
    ),
    (
        {"command": "create", "path": "notes.txt", "file_text": "x"},
        "invalid_path",
        "Invalid path 'notes.txt': a memory file path must end in .md.",
    ),
    (
        {"command": "create", "path": "/memories", "file_text": "x"},
        "invalid_path",
        "Invalid path '/memories': /memories is the memory folder; name a file such as "
        "/memories/notes.md.",
    ),
    # str_replace
    (
        {"command": "str_replace", "path": "missing.md", "old_str": "a", "new_str": "b"},
        "memory.not_found",
        "Error: The path /memories/missing.md does not exist. Please provide a valid path.",
    ),
    (
        {"command": "str_replace", "path": "notes.md", "old_str": "gamma", "new_str": "x"},
        "memory.invalid_argument",
        "No replacement was performed, old_str `gamma` did not appear verbatim in "
        "/memories/notes.md.",
    ),
    (
        {"command": "str_replace", "path": "notes.md", "old_str": "alpha", "new_str": "x"},
        "memory.invalid_argument",
        "No replacement was performed. Multiple occurrences of old_str `alpha` in lines: 1, 3. "
        "Please ensure it is unique",
    ),
    (
        {"command": "str_replace", "path": "same-line.md", "old_str": "a", "new_str": "x"},
        "memory.invalid_argument",
        "No replacement was performed. Multiple occurrences of old_str `a` in lines: 1. "
        "Please ensure it is unique",
    ),
    (
        {"command": "str_replace", "path": "notes.md", "old_str": "", "new_str": "x"},
        "memory.invalid_argument",
        "No replacement was performed: old_str must not be empty.",
    ),
    # insert
    (
        {"command": "insert", "path": "missing.md", "insert_line": 0, "insert_text": "x"},
        "memory.not_found",
        "Error: The path /memories/missing.md does not exist",
    ),
    (
        {"command": "insert", "path": "two.md", "insert_line": -1, "insert_text": "x"},
        "memory.invalid_argument",
        "Error: Invalid `insert_line` parameter: -1. It should be within the range of lines of "
        "the file: [0, 2]",
    ),
    (
        {"command": "insert", "path": "two.md", "insert_line": 3, "insert_text": "x"},
        "memory.invalid_argument",
        "Error: Invalid `insert_line` parameter: 3. It should be within the range of lines of "
        "the file: [0, 2]",
    ),
    # delete
    (
        {"command": "delete", "path": "/memories"},
        "memory.invalid_argument",
        "Error: Cannot delete the /memories directory itself",
    ),
    (
        {"command": "delete", "path": "/memories/"},
        "memory.invalid_argument",
        "Error: Cannot delete the /memories directory itself",
    ),
    (
        {"command": "delete", "path": "missing.md"},
        "memory.not_found",
        "Error: The path /memories/missing.md does not exist",
    ),
    (
        {"command": "delete", "path": "/memories/missing"},
        "memory.not_found",
        "Error: The path /memories/missing does not exist",
    ),
    # rename
    (
        {"command": "rename", "old_path": "notes.md", "new_path": "two.md"},
        "memory.exists",
        "Error: The destination /memories/two.md already exists",
    ),
    (
        # As in the SDK, an existing destination is reported before a missing source.
        {"command": "rename", "old_path": "missing.md", "new_path": "/memories/two.md"},
        "memory.exists",
        "Error: The destination /memories/two.md already exists",
    ),
    (
        {"command": "rename", "old_path": "team", "new_path": "other"},
        "memory.exists",
        "Error: The destination /memories/other already exists",
    ),
    (
        {"command": "rename", "old_path": "team", "new_path": "/memories"},
        "memory.exists",
        "Error: The destination /memories already exists",
    ),
    (
        {"command": "rename", "old_path": "missing.md", "new_path": "new.md"},
        "memory.not_found",
        "Error: The path /memories/missing.md does not exist",
    ),
    (
        {"command": "rename", "old_path": "missing", "new_path": "new"},
        "memory.not_found",
        "Error: The path /memories/missing does not exist",
    ),
    (
        {"command": "rename", "old_path": "/memories", "new_path": "/memories/all"},
        "memory.invalid_argument",
        "Error: Cannot rename the /memories directory itself",
    ),
    (
        {"command": "rename", "old_path": "team", "new_path": "team/sub"},
        "memory.invalid_argument",
        "Error: Cannot rename /memories/team to /memories/team/sub: a folder cannot be moved "
        "inside itself",
    ),
    (
        {"command": "rename", "old_path": "notes.md", "new_path": "notes"},
        "invalid_path",
        "Invalid path 'notes': a memory file path must end in .md.",
    ),
    (
        {"command": "rename", "old_path": "team", "new_path": "team.md"},
        "invalid_path",
        "Invalid path 'team.md': a folder name must not end in .md; a path ending in .md is "
        "a file.",
    ),
]


@pytest.mark.parametrize(("command", "code", "message"), FAILURES)
def test_a_failing_call_raises_the_reference_text_and_changes_nothing(command, code, message):
    assert failure(DictFiles(STORE), command) == (code, message)


def test_input_that_is_not_an_object_is_an_invalid_command():
    with pytest.raises(MemoryToolError) as caught:
        run_command(["view"], DictFiles())
    assert (caught.value.code, caught.value.message) == (
        "memory.invalid_command",
        "The memory tool input must be an object with a `command`.",
    )


@pytest.mark.parametrize(
    ("code", "status"),
    [("memory.not_found", 404), ("memory.forbidden", 403), ("memory.exists", 400)],
)
def test_a_memory_tool_error_answers_as_every_tool_does_with_its_code(code, status):
    # memory.not_found is a 404 from read_memory too, memory.forbidden a 403 from add_memory.
    assert MemoryToolError(code, "x").status == status


def test_a_memory_tool_error_is_a_domain_error_with_the_exact_text():
    error = MemoryToolError("memory.not_found", "The path /memories/x.md does not exist")
    assert isinstance(error, DomainError)
    assert error.to_body() == {
        "error": {"code": "memory.not_found", "message": "The path /memories/x.md does not exist"}
    }
