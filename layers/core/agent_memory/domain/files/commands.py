"""The six commands of Anthropic's memory tool (`memory_20250818`) as pure functions.

A command reads memories through a `FileView` and answers with the exact text the tool returns
to the model plus the `Change`s a caller must apply; it never writes. A failing command raises
`MemoryToolError` and changes nothing.
"""

# References, matched string for string:
# - SDK (the texts and behaviour followed here): anthropics/anthropic-sdk-python,
#   src/anthropic/lib/tools/_beta_builtin_memory_tool.py (BetaAbstractMemoryTool and
#   BetaLocalFilesystemMemoryTool), and anthropics/anthropic-sdk-typescript,
#   src/tools/memory/node.ts (BetaLocalFilesystemMemoryTool behind betaMemoryTool).
# - Official doc: https://platform.claude.com/docs/en/agents-and-tools/tool-use/memory-tool
# - Texts the SDKs lack (bad view_range, missing parameter, unknown command) come from
#   Anthropic's text editor tool, which the doc points to for error handling:
#   anthropics/anthropic-quickstarts, computer-use-demo/computer_use_demo/tools/edit.py.
#
# Where the sources disagree:
# - Error prefix. The doc writes most errors as "Error: ..."; the Python SDK raises ToolError
#   texts without it and its runner sends them unchanged, while the TypeScript runner prefixes
#   "Error: " to the plain Errors its tool throws. Messages here are the bare SDK texts.
# - Listing header. Python SDK: "..., excluding hidden items:"; doc and TypeScript SDK:
#   "..., excluding hidden items and node_modules:". We use the latter and skip node_modules.
# - Sizes. Both SDKs print 4096 bytes as "4K" and 1536 as "1.5K"; the doc's example shows
#   "4.0K". We use the SDK formatter. The SDKs print a folder's own inode size, which a store
#   has no equivalent of, so a folder shows the total bytes of the memories under it.
# - insert. The doc and TypeScript SDK say "...within the range of lines of the file:
#   [0, N]" and count a trailing newline as a line; the Python SDK (followed) says
#   "...within the range [0, N]." and counts lines like str.splitlines(). Unlike
#   splitlines() we split on "\n" only, so a "\r" or U+2028 in a file is never rewritten.
# - Missing path. The doc gives insert "Error: The path {path} does not exist"; both SDKs
#   use "The path {path} does not exist. Please provide a valid path." as for view.
# - str_replace on several matches. The TypeScript SDK lists lines containing old_str (and
#   misses matches across lines); Python lists the line of each match, as here, twice when a
#   line has two. Matches are counted without overlap, as str.count() does.
# - str_replace or insert on a folder: the doc says "does not exist", the SDKs "The path
#   {path} is not a file.". Neither arises here: a path ending in .md is never a folder.
# - Over 999,999 lines: the doc and Python SDK text is used; the TypeScript SDK words it
#   "File {path} has too many lines (N). Maximum is 999,999 lines."
# - create on an existing file: the doc allows overwriting; the SDKs refuse, as here.
# - The doc makes new_str optional (omitted = delete old_str); the SDKs require it. Omitted
#   counts as "" here.
# - The doc says to refuse renaming /memories itself; the SDKs do not check. Refused here.
# - view_range: the SDKs slice silently ([0, 2] starts at 1, [9, 2] shows nothing). Here a
#   range outside the file is an error with the text editor tool's messages.

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from agent_memory.domain.errors import DomainError, InvalidRequest

from .paths import MEMORY_ROOT, is_under, normalize_folder, normalize_path

DEFAULT_MAX_BYTES = 100 * 1024
MAX_LINES = 999_999
LINE_NUMBER_WIDTH = len(str(MAX_LINES))
COMMAND_NAMES = ("view", "create", "str_replace", "insert", "delete", "rename")
# The listing skips these, as the reference skips names starting with "." and node_modules.
_SKIPPED_NAME = "node_modules"
_ALLOWED = ", ".join(COMMAND_NAMES)


class MemoryToolError(DomainError):
    """A memory tool call that failed; `message` is the exact text the model is given."""

    status = 400
    code = "memory.invalid_command"

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message, code=code)


class FileView(Protocol):
    """Read-only access to one agent's memories, keyed by canonical `/memories/...md` path."""

    def read(self, path: str) -> str | None:
        """The content of one memory, or None when there is none at `path`."""
        ...

    def list_under(self, folder: str) -> list[tuple[str, int]]:
        """`(path, bytes)` of every memory strictly under `folder`, at any depth, any order."""
        ...


@dataclass(frozen=True)
class Change:
    """One memory a command changes; a rename's `path` is the new path."""

    operation: Literal["create", "update", "delete", "rename"]
    path: str
    content: str | None
    from_path: str | None = None


@dataclass(frozen=True)
class CommandResult:
    """What the tool answers the model, and the changes to apply for it."""

    output: str
    changes: list[Change]


def run_command(
    command: dict[str, Any], files: FileView, *, max_bytes: int = DEFAULT_MAX_BYTES
) -> CommandResult:
    """Run one memory tool call (`{"command": "view", "path": ...}` etc.) against `files`.

    Raises `MemoryToolError` with the reference's text when the call fails; nothing is changed
    then. `max_bytes` caps the UTF-8 size of the content a command leaves in a file.
    """
    if not isinstance(command, dict):
        raise MemoryToolError(
            "memory.invalid_command", "The memory tool input must be an object with a `command`."
        )
    name = command.get("command")
    if name is None:
        raise MemoryToolError(
            "memory.invalid_command",
            f"Parameter `command` is required. The allowed commands for the memory tool are: "
            f"{_ALLOWED}",
        )
    if name not in COMMAND_NAMES:
        raise MemoryToolError(
            "memory.invalid_command",
            f"Unrecognized command {name}. The allowed commands for the memory tool are: "
            f"{_ALLOWED}",
        )
    args = _Args(command, name)
    if name == "view":
        return _view(args, files)
    if name == "create":
        return _create(args, files, max_bytes)
    if name == "str_replace":
        return _str_replace(args, files, max_bytes)
    if name == "insert":
        return _insert(args, files, max_bytes)
    if name == "delete":
        return _delete(args, files)
    return _rename(args, files)


class _Args:
    """Typed access to the tool input; a missing or ill-typed parameter is invalid_command."""

    def __init__(self, raw: dict[str, Any], command: str) -> None:
        self.raw = raw
        self.command = command

    def text(self, name: str, *, default: str | None = None) -> str:
        value = self.raw.get(name)
        if value is None and default is not None:
            return default
        if value is None:
            raise self._missing(name)
        if not isinstance(value, str):
            raise self._ill_typed(name, "a string")
        return value

    def integer(self, name: str) -> int:
        value = self.raw.get(name)
        if value is None:
            raise self._missing(name)
        if not isinstance(value, int) or isinstance(value, bool):
            raise self._ill_typed(name, "an integer")
        return value

    def view_range(self) -> tuple[int, int] | None:
        value = self.raw.get("view_range")
        if value is None:
            return None
        if (
            not isinstance(value, list | tuple)
            or len(value) != 2
            or not all(isinstance(i, int) and not isinstance(i, bool) for i in value)
        ):
            raise MemoryToolError(
                "memory.invalid_command",
                "Invalid `view_range`. It should be a list of two integers.",
            )
        return value[0], value[1]

    def _missing(self, name: str) -> MemoryToolError:
        return MemoryToolError(
            "memory.invalid_command", f"Parameter `{name}` is required for command: {self.command}"
        )

    def _ill_typed(self, name: str, kind: str) -> MemoryToolError:
        return MemoryToolError(
            "memory.invalid_command",
            f"Parameter `{name}` must be {kind} for command: {self.command}",
        )


def _view(args: _Args, files: FileView) -> CommandResult:
    raw = args.text("path")
    view_range = args.view_range()
    if not _names_file(raw):
        folder = _folder(raw)
        entries = files.list_under(folder)
        if not entries and folder != MEMORY_ROOT:
            raise _not_found(f"The path {folder} does not exist. Please provide a valid path.")
        # As in the SDKs, view_range applies to files only and is ignored for a folder.
        return CommandResult(_listing(folder, entries), [])
    path = _file(raw)
    content = files.read(path)
    if content is None:
        raise _not_found(f"The path {path} does not exist. Please provide a valid path.")
    lines = content.split("\n")
    if len(lines) > MAX_LINES:
        raise MemoryToolError(
            "memory.too_large", f"File {path} exceeds maximum line limit of 999,999 lines."
        )
    first = 1
    if view_range is not None:
        first, last = view_range
        _check_view_range(view_range, len(lines))
        lines = lines[first - 1 :] if last == -1 else lines[first - 1 : last]
    return CommandResult(
        f"Here's the content of {path} with line numbers:\n" + _numbered(lines, first), []
    )


def _check_view_range(view_range: tuple[int, int], n_lines: int) -> None:
    first, last = view_range
    shown = list(view_range)
    if first < 1 or first > n_lines:
        reason = (
            f"Its first element `{first}` should be within the range of lines of the file: "
            f"{[1, n_lines]}"
        )
    elif last > n_lines:
        reason = (
            f"Its second element `{last}` should be smaller than the number of lines in the "
            f"file: `{n_lines}`"
        )
    elif last != -1 and last < first:
        reason = f"Its second element `{last}` should be larger or equal than its first `{first}`"
    else:
        return
    raise MemoryToolError("memory.invalid_argument", f"Invalid `view_range`: {shown}. {reason}")


def _create(args: _Args, files: FileView, max_bytes: int) -> CommandResult:
    path = _file(args.text("path"))
    file_text = args.text("file_text")
    if files.read(path) is not None:
        raise MemoryToolError("memory.exists", f"File {path} already exists")
    _check_size(path, file_text, max_bytes)
    return CommandResult(
        f"File created successfully at: {path}", [Change("create", path, file_text)]
    )


def _str_replace(args: _Args, files: FileView, max_bytes: int) -> CommandResult:
    path = _file(args.text("path"))
    old_str = args.text("old_str")
    new_str = args.text("new_str", default="")
    content = _existing(files, path)
    if old_str == "":
        # The SDKs find an empty old_str at every position; refuse it plainly instead.
        raise MemoryToolError(
            "memory.invalid_argument", "No replacement was performed: old_str must not be empty."
        )
    starts = _occurrences(content, old_str)
    if not starts:
        raise MemoryToolError(
            "memory.invalid_argument",
            f"No replacement was performed, old_str `{old_str}` did not appear verbatim in {path}.",
        )
    if len(starts) > 1:
        lines = ", ".join(str(content.count("\n", 0, start) + 1) for start in starts)
        raise MemoryToolError(
            "memory.invalid_argument",
            f"No replacement was performed. Multiple occurrences of old_str `{old_str}` in "
            f"lines: {lines}. Please ensure it is unique",
        )
    start = starts[0]
    new_content = content[:start] + new_str + content[start + len(old_str) :]
    _check_size(path, new_content, max_bytes)
    # The snippet is two lines either side of the line where the match began, as the SDK shows.
    changed = content.count("\n", 0, start)
    new_lines = new_content.split("\n")
    low, high = max(0, changed - 2), min(len(new_lines), changed + 3)
    output = (
        "The memory file has been edited. Here is the snippet showing the change "
        "(with line numbers):\n" + _numbered(new_lines[low:high], low + 1)
    )
    # Replacing a text by itself leaves the file as it was: nothing to record.
    changes = [] if new_content == content else [Change("update", path, new_content)]
    return CommandResult(output, changes)


def _insert(args: _Args, files: FileView, max_bytes: int) -> CommandResult:
    path = _file(args.text("path"))
    insert_line = args.integer("insert_line")
    insert_text = args.text("insert_text")
    content = _existing(files, path)
    lines = content.split("\n")
    if lines[-1] == "":
        lines.pop()  # A final newline ends the last line; it does not start another.
    if insert_line < 0 or insert_line > len(lines):
        raise MemoryToolError(
            "memory.invalid_argument",
            f"Invalid `insert_line` parameter: {insert_line}. "
            f"It should be within the range [0, {len(lines)}].",
        )
    lines.insert(insert_line, insert_text.rstrip("\n"))
    new_content = "\n".join(lines) + "\n"
    _check_size(path, new_content, max_bytes)
    return CommandResult(f"The file {path} has been edited.", [Change("update", path, new_content)])


def _delete(args: _Args, files: FileView) -> CommandResult:
    raw = args.text("path")
    if _names_file(raw):
        path = _file(raw)
        if files.read(path) is None:
            raise _not_found(f"The path {path} does not exist")
        return CommandResult(f"Successfully deleted {path}", [Change("delete", path, None)])
    folder = _folder(raw)
    if folder == MEMORY_ROOT:
        raise MemoryToolError(
            "memory.invalid_argument", "Cannot delete the /memories directory itself"
        )
    paths = sorted(path for path, _ in files.list_under(folder))
    if not paths:
        raise _not_found(f"The path {folder} does not exist")
    return CommandResult(
        f"Successfully deleted {folder}", [Change("delete", path, None) for path in paths]
    )


def _rename(args: _Args, files: FileView) -> CommandResult:
    raw_old, raw_new = args.text("old_path"), args.text("new_path")
    if _names_file(raw_old):
        old, new = _file(raw_old), _file(raw_new)
        if files.read(new) is not None:
            raise _destination_exists(new)
        content = files.read(old)
        if content is None:
            raise _not_found(f"The path {old} does not exist")
        return CommandResult(_renamed(old, new), [Change("rename", new, content, from_path=old)])
    old, new = _folder(raw_old), _folder(raw_new)
    if old == MEMORY_ROOT:
        raise MemoryToolError(
            "memory.invalid_argument", "Cannot rename the /memories directory itself"
        )
    if is_under(new, old):
        raise MemoryToolError(
            "memory.invalid_argument",
            f"Cannot rename {old} to {new}: a folder cannot be moved inside itself",
        )
    if new == MEMORY_ROOT or files.list_under(new):
        raise _destination_exists(new)
    moved = sorted(path for path, _ in files.list_under(old))
    if not moved:
        raise _not_found(f"The path {old} does not exist")
    changes = []
    for path in moved:
        # Re-validated: a longer folder name can push a moved path past the length limit.
        target = _file(new + path[len(old) :])
        content = files.read(path)
        if content is None:
            raise _not_found(
                f"The file {path} no longer exists (may have been deleted or renamed concurrently)."
            )
        changes.append(Change("rename", target, content, from_path=path))
    return CommandResult(_renamed(old, new), changes)


def _renamed(old: str, new: str) -> str:
    return f"Successfully renamed {old} to {new}"


def _destination_exists(path: str) -> MemoryToolError:
    return MemoryToolError("memory.exists", f"The destination {path} already exists")


def _not_found(message: str) -> MemoryToolError:
    return MemoryToolError("memory.not_found", message)


def _existing(files: FileView, path: str) -> str:
    content = files.read(path)
    if content is None:
        raise _not_found(f"The path {path} does not exist. Please provide a valid path.")
    return content


def _check_size(path: str, content: str, max_bytes: int) -> None:
    size = len(content.encode("utf-8"))
    if size > max_bytes:
        raise MemoryToolError(
            "memory.too_large",
            f"The file {path} would be {size} bytes; a memory file may be at most "
            f"{max_bytes} bytes.",
        )


def _occurrences(content: str, text: str) -> list[int]:
    """Start of each non-overlapping match, the ones str.count() and str.replace() see."""
    starts: list[int] = []
    start = content.find(text)
    while start != -1:
        starts.append(start)
        start = content.find(text, start + len(text))
    return starts


def _numbered(lines: list[str], first: int) -> str:
    return "\n".join(
        f"{str(number).rjust(LINE_NUMBER_WIDTH)}\t{line}"
        for number, line in enumerate(lines, start=first)
    )


def _listing(folder: str, entries: list[tuple[str, int]]) -> str:
    """The SDK's two-level listing: sorted by name, depth first, folders with a trailing /."""
    tree: dict[str, Any] = {}
    sizes: dict[str, int] = {}
    for path, size in entries:
        parts = path[len(folder) + 1 :].split("/")
        node = tree
        for depth, name in enumerate(parts, start=1):
            key = "/".join(parts[:depth])
            sizes[key] = sizes.get(key, 0) + size
            node = node.setdefault(name, {})
    lines = [f"{_format_size(sum(size for _, size in entries))}\t{folder}"]

    def walk(node: dict[str, Any], prefix: str, depth: int) -> None:
        for name in sorted(node):
            if name.startswith(".") or name == _SKIPPED_NAME:
                continue
            key = f"{prefix}{name}"
            is_folder = bool(node[name])
            lines.append(f"{_format_size(sizes[key])}\t{folder}/{key}{'/' if is_folder else ''}")
            if is_folder and depth < 2:
                walk(node[name], f"{key}/", depth + 1)

    walk(tree, "", 1)
    return (
        f"Here're the files and directories up to 2 levels deep in {folder}, "
        "excluding hidden items and node_modules:\n" + "\n".join(lines)
    )


def _format_size(size: int) -> str:
    """The SDK's human size: 0B, 512B, 1K, 1.5K, 2M (one decimal unless whole)."""
    if size == 0:
        return "0B"
    units = ["B", "K", "M", "G"]
    power = min((size.bit_length() - 1) // 10, len(units) - 1)
    scaled = size / 1024**power
    return (
        f"{int(scaled)}{units[power]}" if scaled == int(scaled) else f"{scaled:.1f}{units[power]}"
    )


def _names_file(raw: str) -> bool:
    # A path ending in .md names a file (folder names may not end in .md); a trailing slash
    # after it is then reported by normalize_path as a trailing slash on a file.
    return raw.rstrip("/").endswith(".md")


def _file(raw: str) -> str:
    try:
        return normalize_path(raw)
    except InvalidRequest as error:
        raise MemoryToolError("invalid_path", error.message) from error


def _folder(raw: str) -> str:
    try:
        return normalize_folder(raw)
    except InvalidRequest as error:
        raise MemoryToolError("invalid_path", error.message) from error
