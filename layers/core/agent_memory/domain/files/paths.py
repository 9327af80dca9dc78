"""Path rules of file memory: every memory is a Markdown file under `/memories`.

A path may be given with or without the `/memories/` prefix; the canonical form always has it.
Folders are never stored: they are the prefixes of memory paths. Because a file path always
ends in `.md` and no folder name may, a string names a file or a folder by its shape alone, so
a file and a folder can never share a path.
"""

from __future__ import annotations

import unicodedata

from agent_memory.domain.kernel.errors import InvalidRequest

MEMORY_ROOT = "/memories"
MAX_PATH_CHARS = 512

_PREFIX = MEMORY_ROOT + "/"
_SUFFIX = ".md"
# Characters no path shows: controls (Cc) and format characters (Cf: zero-width, bidi
# overrides such as U+202E, which make a path read as another).
_INVISIBLE = frozenset(("Cc", "Cf"))
# Past this a raw path cannot shrink (NFC composes at most a few characters into one) to the
# limit: refused before each character is looked at.
_RAW_MAX_CHARS = 4 * MAX_PATH_CHARS
# Messages quote the path the caller sent; a runaway path is cut so the message stays readable.
_SHOWN_CHARS = 80


def normalize_path(raw: str) -> str:
    """Return the canonical `/memories/...md` path of one memory file.

    Accepts `conventions/release.md` as well as `/memories/conventions/release.md`. Raises
    `InvalidRequest` (code `invalid_path`) naming the rule the path breaks.
    """
    relative = _relative(raw)
    if relative == "":
        raise _invalid(
            raw, "/memories is the memory folder; name a file such as /memories/notes.md"
        )
    if relative.endswith("/"):
        raise _invalid(raw, "a memory file path must not end with /")
    segments = relative.split("/")
    _check_segments(raw, segments)
    name = segments[-1]
    if not name.endswith(_SUFFIX):
        raise _invalid(raw, "a memory file path must end in .md")
    if name == _SUFFIX:
        raise _invalid(raw, "the file needs a name before .md")
    _check_folder_names(raw, segments[:-1])
    return _checked_length(raw, _PREFIX + relative)


def normalize_folder(raw: str) -> str:
    """Return the canonical form of a folder prefix, without a trailing slash.

    `/memories`, `/memories/`, `conventions` and `/memories/conventions/` are all accepted;
    `/memories` itself is the root folder. Raises `InvalidRequest` (code `invalid_path`).
    """
    relative = _relative(raw)
    if relative == "":
        return MEMORY_ROOT
    if relative.endswith("/"):
        relative = relative[:-1]
    segments = relative.split("/")
    _check_segments(raw, segments)
    _check_folder_names(raw, segments)
    return _checked_length(raw, _PREFIX + relative)


def is_under(path: str, folder: str) -> bool:
    """Whether canonical `path` lies strictly below canonical `folder` (at any depth)."""
    return path.startswith(folder + "/")


def _relative(raw: str) -> str:
    """The part of `raw` after `/memories/`, once the checks that hold for any path pass."""
    if raw == "":
        raise _invalid(raw, "a path must not be empty")
    if len(raw) > _RAW_MAX_CHARS:
        raise _invalid(raw, f"a path may be at most {MAX_PATH_CHARS} characters")
    invisible = next((c for c in raw if unicodedata.category(c) in _INVISIBLE), None)
    if invisible is not None:
        raise _invalid(
            raw,
            f"control and format characters (Unicode Cc and Cf, here U+{ord(invisible):04X}) "
            "are not allowed",
        )
    # One name, one memory: `café` typed precomposed or with a combining accent is one path.
    raw = unicodedata.normalize("NFC", raw)
    if "\\" in raw:
        raise _invalid(raw, "backslashes are not allowed; separate folders with /")
    if raw == MEMORY_ROOT:
        return ""
    if raw.startswith(_PREFIX):
        return raw[len(_PREFIX) :]
    if raw.startswith("/"):
        # `/etc/x.md` or `/memoriesx.md`: an absolute path elsewhere is a mistake, not a
        # relative path, so it is refused rather than quietly moved under /memories.
        raise _invalid(raw, "a path must start with /memories/ or be relative to /memories")
    return raw


def _check_segments(raw: str, segments: list[str]) -> None:
    for segment in segments:
        if segment == "":
            raise _invalid(raw, "empty segments (//) are not allowed")
        if segment in (".", ".."):
            raise _invalid(raw, "'.' and '..' segments are not allowed")


def _check_folder_names(raw: str, folders: list[str]) -> None:
    for segment in folders:
        if segment.endswith(_SUFFIX):
            raise _invalid(raw, "a folder name must not end in .md; a path ending in .md is a file")


def _checked_length(raw: str, canonical: str) -> str:
    if len(canonical) > MAX_PATH_CHARS:
        raise _invalid(
            raw,
            f"a path may be at most {MAX_PATH_CHARS} characters with the /memories/ prefix, "
            f"and this one is {len(canonical)}",
        )
    return canonical


def _invalid(raw: str, reason: str) -> InvalidRequest:
    shown = raw if len(raw) <= _SHOWN_CHARS else raw[: _SHOWN_CHARS - 3] + "..."
    # repr() makes control characters and surrounding spaces visible in the message.
    return InvalidRequest(f"Invalid path {shown!r}: {reason}.", code="invalid_path")
