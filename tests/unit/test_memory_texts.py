"""Each text of the memory tool, one case per entry of the table, as the model receives it.

The texts follow Anthropic's memory tool documentation word for word (domain/files/texts.py says
which come from elsewhere and why).
"""

import pytest

from agent_memory.domain.files.commands import MemoryToolError, run_command
from agent_memory.domain.files.texts import TEXTS

pytestmark = pytest.mark.unit


class Files:
    def __init__(self, memories):
        self.memories = memories

    def read(self, path):
        return self.memories.get(path)

    def list_under(self, folder):
        return [
            (p, len(c.encode())) for p, c in self.memories.items() if p.startswith(folder + "/")
        ]


STORE = {
    "/memories/notes.md": "alpha\nbeta\nalpha beta\n",
    "/memories/two.md": "one\ntwo\n",
    "/memories/five.md": "a\nb\nc\nd\ne",
    "/memories/team/a.md": "A",
}
ALLOWED = "view, create, str_replace, insert, delete, rename"

# name -> (command, the exact text: the output, or the message of the error it raises)
CASES = {
    "view.listing": (
        {"command": "view", "path": "/memories/team"},
        "Here're the files and directories up to 2 levels deep in /memories/team, "
        "excluding hidden items and node_modules:\n1B\t/memories/team\n1B\t/memories/team/a.md",
    ),
    "view.file": (
        {"command": "view", "path": "/memories/two.md"},
        "Here's the content of /memories/two.md with line numbers:\n     1\tone\n     2\ttwo\n"
        "     3\t",
    ),
    "view.not_found": (
        {"command": "view", "path": "/memories/gone.md"},
        "The path /memories/gone.md does not exist. Please provide a valid path.",
    ),
    "view.too_many_lines": (
        {"command": "view", "path": "/memories/big.md"},
        "File /memories/big.md exceeds maximum line limit of 999,999 lines.",
    ),
    "create.done": (
        {"command": "create", "path": "/memories/new.md", "file_text": "x"},
        "File created successfully at: /memories/new.md",
    ),
    "create.exists": (
        {"command": "create", "path": "/memories/two.md", "file_text": "x"},
        "Error: File /memories/two.md already exists",
    ),
    "str_replace.done": (
        {"command": "str_replace", "path": "/memories/two.md", "old_str": "two", "new_str": "2"},
        "The memory file has been edited.\n     1\tone\n     2\t2\n     3\t",
    ),
    "str_replace.not_found": (
        {"command": "str_replace", "path": "/memories/gone.md", "old_str": "a", "new_str": "b"},
        "Error: The path /memories/gone.md does not exist. Please provide a valid path.",
    ),
    "str_replace.no_match": (
        {"command": "str_replace", "path": "/memories/notes.md", "old_str": "zz", "new_str": ""},
        "No replacement was performed, old_str `zz` did not appear verbatim in /memories/notes.md.",
    ),
    "str_replace.several": (
        {"command": "str_replace", "path": "/memories/notes.md", "old_str": "alpha"},
        "No replacement was performed. Multiple occurrences of old_str `alpha` in lines: 1, 3. "
        "Please ensure it is unique",
    ),
    "insert.done": (
        {"command": "insert", "path": "/memories/two.md", "insert_line": 1, "insert_text": "x"},
        "The file /memories/two.md has been edited.",
    ),
    "insert.not_found": (
        {"command": "insert", "path": "/memories/gone.md", "insert_line": 0, "insert_text": "x"},
        "Error: The path /memories/gone.md does not exist",
    ),
    "insert.bad_line": (
        {"command": "insert", "path": "/memories/two.md", "insert_line": 3, "insert_text": "x"},
        "Error: Invalid `insert_line` parameter: 3. It should be within the range of lines of "
        "the file: [0, 2]",
    ),
    "delete.done": (
        {"command": "delete", "path": "/memories/two.md"},
        "Successfully deleted /memories/two.md",
    ),
    "delete.not_found": (
        {"command": "delete", "path": "/memories/gone.md"},
        "Error: The path /memories/gone.md does not exist",
    ),
    "rename.done": (
        {"command": "rename", "old_path": "/memories/two.md", "new_path": "/memories/2.md"},
        "Successfully renamed /memories/two.md to /memories/2.md",
    ),
    "rename.not_found": (
        {"command": "rename", "old_path": "/memories/gone.md", "new_path": "/memories/x.md"},
        "Error: The path /memories/gone.md does not exist",
    ),
    "rename.exists": (
        {"command": "rename", "old_path": "/memories/two.md", "new_path": "/memories/five.md"},
        "Error: The destination /memories/five.md already exists",
    ),
    "command.missing": (
        {"path": "/memories"},
        f"Parameter `command` is required. The allowed commands for the memory tool are: {ALLOWED}",
    ),
    "command.unknown": (
        {"command": "undo_edit", "path": "/memories/two.md"},
        f"Unrecognized command undo_edit. The allowed commands for the memory tool are: {ALLOWED}",
    ),
    "parameter.missing": (
        {"command": "create", "path": "/memories/x.md"},
        "Parameter `file_text` is required for command: create",
    ),
    "parameter.type": (
        {"command": "insert", "path": "/memories/two.md", "insert_line": "1", "insert_text": "x"},
        "Parameter `insert_line` must be an integer for command: insert",
    ),
    "view_range.shape": (
        {"command": "view", "path": "/memories/five.md", "view_range": [1]},
        "Invalid `view_range`. It should be a list of two integers.",
    ),
    "view_range.first": (
        {"command": "view", "path": "/memories/five.md", "view_range": [0, 2]},
        "Invalid `view_range`: [0, 2]. Its first element `0` should be within the range of "
        "lines of the file: [1, 5]",
    ),
    "view_range.last": (
        {"command": "view", "path": "/memories/five.md", "view_range": [2, 6]},
        "Invalid `view_range`: [2, 6]. Its second element `6` should be smaller than the "
        "number of lines in the file: `5`",
    ),
    "view_range.order": (
        {"command": "view", "path": "/memories/five.md", "view_range": [3, 2]},
        "Invalid `view_range`: [3, 2]. Its second element `2` should be larger or equal than "
        "its first `3`",
    ),
    "input.not_object": (["view"], "The memory tool input must be an object with a `command`."),
    "str_replace.empty": (
        {"command": "str_replace", "path": "/memories/two.md", "old_str": "", "new_str": "x"},
        "No replacement was performed: old_str must not be empty.",
    ),
    "delete.root": (
        {"command": "delete", "path": "/memories"},
        "Error: Cannot delete the /memories directory itself",
    ),
    "rename.root": (
        {"command": "rename", "old_path": "/memories", "new_path": "/memories/all"},
        "Error: Cannot rename the /memories directory itself",
    ),
    "rename.into_itself": (
        {"command": "rename", "old_path": "/memories/team", "new_path": "/memories/team/sub"},
        "Error: Cannot rename /memories/team to /memories/team/sub: a folder cannot be moved "
        "inside itself",
    ),
    "too_large": (
        {"command": "create", "path": "/memories/x.md", "file_text": "x" * 102_401},
        "Error: The file /memories/x.md would be 102401 bytes; a memory file may be at most "
        "102400 bytes.",
    ),
}
# Raised by the file service, not by a command; checked through the API on both stores:
# tests/integration/test_api_memories.py::test_only_the_sessions_own_agent_writes ("forbidden")
# and tests/integration/test_api_tenant_limits.py::test_memories_per_agent_holds_... ("limit").
SERVICE_TEXTS = {"limit", "forbidden"}


def test_every_text_of_the_table_has_a_case():
    assert set(CASES) | SERVICE_TEXTS == set(TEXTS)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_memory_tool_answers_each_text_exactly(name):
    command, expected = CASES[name]
    files = Files({**STORE, "/memories/big.md": "\n" * 999_999})
    try:
        answer = run_command(command, files).output
    except MemoryToolError as error:
        answer = error.message
    assert answer == expected


def test_several_occurrences_name_a_handful_of_lines_even_in_a_large_file():
    # Before: every line was listed, 75 KB of text for "a" in a 100 KiB file.
    files = Files({"/memories/a.md": "a\n" * 51_200})
    with pytest.raises(MemoryToolError) as caught:
        run_command({"command": "str_replace", "path": "a.md", "old_str": "a"}, files)
    assert caught.value.message == (
        "No replacement was performed. Multiple occurrences of old_str `a` in lines: "
        "1, 2, 3, 4, 5 and 51195 more. Please ensure it is unique"
    )


def test_two_occurrences_on_one_line_name_that_line_once():
    files = Files({"/memories/a.md": "x\na-a\n"})
    with pytest.raises(MemoryToolError) as caught:
        run_command({"command": "str_replace", "path": "a.md", "old_str": "a"}, files)
    assert "in lines: 2. Please" in caught.value.message
