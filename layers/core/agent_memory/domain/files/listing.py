"""How the memory tool shows memories to the model: a file's numbered lines and a folder's
two-level listing with the SDKs' human sizes."""

from __future__ import annotations

from typing import Any

from .texts import text

MAX_LINES = 999_999
LINE_NUMBER_WIDTH = len(str(MAX_LINES))
# The listing skips these, as the reference skips names starting with "." and node_modules.
_SKIPPED_NAME = "node_modules"


def numbered(lines: list[str], first: int) -> str:
    return "\n".join(
        f"{str(number).rjust(LINE_NUMBER_WIDTH)}\t{line}"
        for number, line in enumerate(lines, start=first)
    )


def listing(folder: str, entries: list[tuple[str, int]]) -> str:
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
    lines = [f"{format_size(sum(size for _, size in entries))}\t{folder}"]

    def walk(node: dict[str, Any], prefix: str, depth: int) -> None:
        for name in sorted(node):
            if name.startswith(".") or name == _SKIPPED_NAME:
                continue
            key = f"{prefix}{name}"
            is_folder = bool(node[name])
            lines.append(f"{format_size(sizes[key])}\t{folder}/{key}{'/' if is_folder else ''}")
            if is_folder and depth < 2:
                walk(node[name], f"{key}/", depth + 1)

    walk(tree, "", 1)
    return text("view.listing", path=folder) + "\n" + "\n".join(lines)


def format_size(size: int) -> str:
    """The SDK's human size: 0B, 512B, 1K, 1.5K, 2M (one decimal unless whole)."""
    if size == 0:
        return "0B"
    units = ["B", "K", "M", "G"]
    power = min((size.bit_length() - 1) // 10, len(units) - 1)
    scaled = size / 1024**power
    return (
        f"{int(scaled)}{units[power]}" if scaled == int(scaled) else f"{scaled:.1f}{units[power]}"
    )
