"""The six commands of Anthropic's memory tool (`memory_20250818`) as pure functions.

A command reads memories through a `FileView` and answers with the exact text the tool returns
to the model plus the `Change`s a caller must apply; it never writes. A failing command raises
`MemoryToolError` and changes nothing.
"""

# The texts are those of Anthropic's memory tool documentation, all in texts.py (which names the
# sources of the few the documentation lacks). Behaviour where the documentation is silent:
# - Sizes in a listing are the SDKs' human sizes (4096 bytes is "4K", 1536 "1.5K"); a folder
#   shows the total bytes of the memories under it (a store has no inode size). Both live in
#   listing.py.
# - insert counts lines like the text editor tool: a final newline ends the last line, it does
#   not start another. Lines are split on "\n" only, so a "\r" or U+2028 is never rewritten.
# - str_replace counts matches without overlap, as str.count() does, and names each line once.
# - str_replace or insert on a folder cannot arise: a path ending in .md is never a folder.
# - new_str may be omitted (the documentation makes it optional): it counts as "".
# - view_range outside the file is an error with the text editor tool's messages.

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from agent_memory.domain.kernel.errors import DomainError, InvalidRequest

from .listing import MAX_LINES, listing, numbered
from .paths import MEMORY_ROOT, is_under, normalize_folder, normalize_path
from .texts import line_list, text

DEFAULT_MAX_BYTES = 100 * 1024
COMMAND_NAMES = ("view", "create", "str_replace", "insert", "delete", "rename")
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
        raise MemoryToolError("memory.invalid_command", text("input.not_object"))
    name = command.get("command")
    if name is None:
        raise MemoryToolError("memory.invalid_command", text("command.missing", allowed=_ALLOWED))
    if name not in COMMAND_NAMES:
        raise MemoryToolError(
            "memory.invalid_command", text("command.unknown", name=name, allowed=_ALLOWED)
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
            raise MemoryToolError("memory.invalid_command", text("view_range.shape"))
        return value[0], value[1]

    def _missing(self, name: str) -> MemoryToolError:
        return MemoryToolError(
            "memory.invalid_command", text("parameter.missing", name=name, command=self.command)
        )

    def _ill_typed(self, name: str, kind: str) -> MemoryToolError:
        return MemoryToolError(
            "memory.invalid_command",
            text("parameter.type", name=name, kind=kind, command=self.command),
        )


def _view(args: _Args, files: FileView) -> CommandResult:
    raw = args.text("path")
    view_range = args.view_range()
    if not _names_file(raw):
        folder = _folder(raw)
        entries = files.list_under(folder)
        if not entries and folder != MEMORY_ROOT:
            raise _not_found(text("view.not_found", path=folder))
        # As in the SDKs, view_range applies to files only and is ignored for a folder.
        return CommandResult(listing(folder, entries), [])
    path = _file(raw)
    content = files.read(path)
    if content is None:
        raise _not_found(text("view.not_found", path=path))
    lines = content.split("\n")
    if len(lines) > MAX_LINES:
        raise MemoryToolError("memory.too_large", text("view.too_many_lines", path=path))
    first = 1
    if view_range is not None:
        first, last = view_range
        _check_view_range(view_range, len(lines))
        lines = lines[first - 1 :] if last == -1 else lines[first - 1 : last]
    return CommandResult(text("view.file", path=path) + "\n" + numbered(lines, first), [])


def _check_view_range(view_range: tuple[int, int], n_lines: int) -> None:
    first, last = view_range
    if first < 1 or first > n_lines:
        name = "view_range.first"
    elif last > n_lines:
        name = "view_range.last"
    elif last != -1 and last < first:
        name = "view_range.order"
    else:
        return
    shown = list(view_range)
    raise MemoryToolError(
        "memory.invalid_argument",
        text(name, view_range=shown, first=first, last=last, n_lines=n_lines),
    )


def _create(args: _Args, files: FileView, max_bytes: int) -> CommandResult:
    path = _file(args.text("path"))
    file_text = args.text("file_text")
    if files.read(path) is not None:
        raise MemoryToolError("memory.exists", text("create.exists", path=path))
    _check_size(path, file_text, max_bytes)
    return CommandResult(text("create.done", path=path), [Change("create", path, file_text)])


def _str_replace(args: _Args, files: FileView, max_bytes: int) -> CommandResult:
    path = _file(args.text("path"))
    old_str = args.text("old_str")
    new_str = args.text("new_str", default="")
    content = _existing(files, path, "str_replace.not_found")
    if old_str == "":
        # An empty old_str is found at every position; refuse it plainly instead.
        raise MemoryToolError("memory.invalid_argument", text("str_replace.empty"))
    starts = _occurrences(content, old_str)
    if not starts:
        raise MemoryToolError(
            "memory.invalid_argument", text("str_replace.no_match", old_str=old_str, path=path)
        )
    if len(starts) > 1:
        lines = [content.count("\n", 0, start) + 1 for start in starts]
        raise MemoryToolError(
            "memory.invalid_argument",
            text("str_replace.several", old_str=old_str, line_numbers=line_list(lines)),
        )
    start = starts[0]
    new_content = content[:start] + new_str + content[start + len(old_str) :]
    _check_size(path, new_content, max_bytes)
    # The snippet is two lines either side of the line where the match began.
    changed = content.count("\n", 0, start)
    new_lines = new_content.split("\n")
    low, high = max(0, changed - 2), min(len(new_lines), changed + 3)
    output = text("str_replace.done") + "\n" + numbered(new_lines[low:high], low + 1)
    # Replacing a text by itself leaves the file as it was: nothing to record.
    changes = [] if new_content == content else [Change("update", path, new_content)]
    return CommandResult(output, changes)


def _insert(args: _Args, files: FileView, max_bytes: int) -> CommandResult:
    path = _file(args.text("path"))
    insert_line = args.integer("insert_line")
    insert_text = args.text("insert_text")
    content = _existing(files, path, "insert.not_found")
    lines = content.split("\n")
    if lines[-1] == "":
        lines.pop()  # A final newline ends the last line; it does not start another.
    if insert_line < 0 or insert_line > len(lines):
        raise MemoryToolError(
            "memory.invalid_argument",
            text("insert.bad_line", insert_line=insert_line, n_lines=len(lines)),
        )
    lines.insert(insert_line, insert_text.rstrip("\n"))
    new_content = "\n".join(lines) + "\n"
    _check_size(path, new_content, max_bytes)
    return CommandResult(text("insert.done", path=path), [Change("update", path, new_content)])


def _delete(args: _Args, files: FileView) -> CommandResult:
    raw = args.text("path")
    if _names_file(raw):
        path = _file(raw)
        if files.read(path) is None:
            raise _not_found(text("delete.not_found", path=path))
        return CommandResult(text("delete.done", path=path), [Change("delete", path, None)])
    folder = _folder(raw)
    if folder == MEMORY_ROOT:
        raise MemoryToolError("memory.invalid_argument", text("delete.root"))
    paths = sorted(path for path, _ in files.list_under(folder))
    if not paths:
        raise _not_found(text("delete.not_found", path=folder))
    return CommandResult(
        text("delete.done", path=folder), [Change("delete", path, None) for path in paths]
    )


def _rename(args: _Args, files: FileView) -> CommandResult:
    raw_old, raw_new = args.text("old_path"), args.text("new_path")
    if _names_file(raw_old):
        old, new = _file(raw_old), _file(raw_new)
        if files.read(new) is not None:
            raise _destination_exists(new)
        content = files.read(old)
        if content is None:
            raise _not_found(text("rename.not_found", old_path=old))
        return CommandResult(_renamed(old, new), [Change("rename", new, content, from_path=old)])
    old, new = _folder(raw_old), _folder(raw_new)
    if old == MEMORY_ROOT:
        raise MemoryToolError("memory.invalid_argument", text("rename.root"))
    if is_under(new, old):
        raise MemoryToolError(
            "memory.invalid_argument",
            text("rename.into_itself", old_path=old, new_path=new),
        )
    if new == MEMORY_ROOT or files.list_under(new):
        raise _destination_exists(new)
    moved = sorted(path for path, _ in files.list_under(old))
    if not moved:
        raise _not_found(text("rename.not_found", old_path=old))
    changes = []
    for path in moved:
        # Re-validated: a longer folder name can push a moved path past the length limit.
        target = _file(new + path[len(old) :])
        content = files.read(path)
        if content is None:
            raise _not_found(text("rename.not_found", old_path=path))
        changes.append(Change("rename", target, content, from_path=path))
    return CommandResult(_renamed(old, new), changes)


def _renamed(old: str, new: str) -> str:
    return text("rename.done", old_path=old, new_path=new)


def _destination_exists(path: str) -> MemoryToolError:
    return MemoryToolError("memory.exists", text("rename.exists", new_path=path))


def _not_found(message: str) -> MemoryToolError:
    return MemoryToolError("memory.not_found", message)


def _existing(files: FileView, path: str, missing: str) -> str:
    content = files.read(path)
    if content is None:
        raise _not_found(text(missing, path=path))
    return content


def _check_size(path: str, content: str, max_bytes: int) -> None:
    size = len(content.encode("utf-8"))
    if size > max_bytes:
        raise MemoryToolError(
            "memory.too_large", text("too_large", path=path, size=size, max_bytes=max_bytes)
        )


def _occurrences(content: str, text: str) -> list[int]:
    """Start of each non-overlapping match, the ones str.count() and str.replace() see."""
    starts: list[int] = []
    start = content.find(text)
    while start != -1:
        starts.append(start)
        start = content.find(text, start + len(text))
    return starts


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
