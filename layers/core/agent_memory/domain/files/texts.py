"""Every text the memory tool answers the model with, in one table.

Reference: Anthropic's memory tool documentation (tool type `memory_20250818`),
https://platform.claude.com/docs/en/agents-and-tools/tool-use/memory-tool, section "Tool
commands": each command's "Return values" and "Error handling" are used word for word, with the
"Error: " prefix exactly where the documentation writes it (it does on some errors, not on
others). The SDKs' local-filesystem examples word several of them differently; they are not
followed.

The documentation gives no text for some failures. Those marked "text editor tool" come from
Anthropic's text editor tool, which the memory tool documentation names for its error handling
(anthropics/anthropic-quickstarts, computer-use-demo/computer_use_demo/tools/edit.py); those
marked "ours" are this service's own rules and limits.
"""

from __future__ import annotations

from typing import Any

TEXTS: dict[str, str] = {
    # -- the documentation -------------------------------------------------------------------
    "view.listing": (
        "Here're the files and directories up to 2 levels deep in {path}, "
        "excluding hidden items and node_modules:"
    ),
    "view.file": "Here's the content of {path} with line numbers:",
    "view.not_found": "The path {path} does not exist. Please provide a valid path.",
    "view.too_many_lines": "File {path} exceeds maximum line limit of 999,999 lines.",
    "create.done": "File created successfully at: {path}",
    "create.exists": "Error: File {path} already exists",
    # Followed by a snippet of the edited file with line numbers.
    "str_replace.done": "The memory file has been edited.",
    "str_replace.not_found": "Error: The path {path} does not exist. Please provide a valid path.",
    "str_replace.no_match": (
        "No replacement was performed, old_str `{old_str}` did not appear verbatim in {path}."
    ),
    "str_replace.several": (
        "No replacement was performed. Multiple occurrences of old_str `{old_str}` in lines: "
        "{line_numbers}. Please ensure it is unique"
    ),
    "insert.done": "The file {path} has been edited.",
    "insert.not_found": "Error: The path {path} does not exist",
    "insert.bad_line": (
        "Error: Invalid `insert_line` parameter: {insert_line}. It should be within the range "
        "of lines of the file: [0, {n_lines}]"
    ),
    "delete.done": "Successfully deleted {path}",
    "delete.not_found": "Error: The path {path} does not exist",
    "rename.done": "Successfully renamed {old_path} to {new_path}",
    "rename.not_found": "Error: The path {old_path} does not exist",
    "rename.exists": "Error: The destination {new_path} already exists",
    # -- text editor tool ----------------------------------------------------------------------
    "command.missing": (
        "Parameter `command` is required. The allowed commands for the memory tool are: {allowed}"
    ),
    "command.unknown": (
        "Unrecognized command {name}. The allowed commands for the memory tool are: {allowed}"
    ),
    "parameter.missing": "Parameter `{name}` is required for command: {command}",
    "view_range.shape": "Invalid `view_range`. It should be a list of two integers.",
    "view_range.first": (
        "Invalid `view_range`: {view_range}. Its first element `{first}` should be within the "
        "range of lines of the file: [1, {n_lines}]"
    ),
    "view_range.last": (
        "Invalid `view_range`: {view_range}. Its second element `{last}` should be smaller than "
        "the number of lines in the file: `{n_lines}`"
    ),
    "view_range.order": (
        "Invalid `view_range`: {view_range}. Its second element `{last}` should be larger or "
        "equal than its first `{first}`"
    ),
    # -- ours ----------------------------------------------------------------------------------
    "input.not_object": "The memory tool input must be an object with a `command`.",
    "parameter.type": "Parameter `{name}` must be {kind} for command: {command}",
    "str_replace.empty": "No replacement was performed: old_str must not be empty.",
    "delete.root": "Error: Cannot delete the /memories directory itself",
    "rename.root": "Error: Cannot rename the /memories directory itself",
    "rename.into_itself": (
        "Error: Cannot rename {old_path} to {new_path}: a folder cannot be moved inside itself"
    ),
    "too_large": (
        "Error: The file {path} would be {size} bytes; a memory file may be at most "
        "{max_bytes} bytes."
    ),
    "limit": (
        "Error: Cannot create more memories: this agent keeps at most {limit}. "
        "Delete or merge some first."
    ),
    "forbidden": "Error: Memory is read-only here: {reason}.",
}

# The multiple-occurrence error names this many lines at most: a short old_str in a large file
# would otherwise list every line of it (75 KB for "a" in a 100 KiB file).
SHOWN_LINES = 5


def text(key: str, /, **fields: Any) -> str:
    """The text `key` of the table with its fields filled in."""
    return TEXTS[key].format(**fields)


def line_list(lines: list[int]) -> str:
    """The distinct line numbers, at most SHOWN_LINES of them, saying how many more there are."""
    distinct = sorted(set(lines))
    shown = ", ".join(str(n) for n in distinct[:SHOWN_LINES])
    rest = len(distinct) - SHOWN_LINES
    return f"{shown} and {rest} more" if rest > 0 else shown
