"""Regular expressions compiled on first use, not at import.

The date words of history search, the secret guard's rules, the restatement shapes and the
body checks are about 15 ms of compiling at import: a cost every cold start of the API paid
whether or not its first request searched, stored a secret or restated a fact. A `Pattern` here
compiles on its first match; `compile_all` compiles every one made so far, for a process that
would rather pay now (Lambda SnapStart, before its snapshot: adapters/snapstart.py).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from typing import Any

_made: list[Pattern] = []
_lock = threading.Lock()


class Pattern:
    """`re.compile(pattern, flags)`, compiled when first used; the methods the code calls."""

    __slots__ = ("_compiled", "_flags", "_source")

    def __init__(self, source: str, flags: int | re.RegexFlag = 0) -> None:
        self._source = source
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None
        with _lock:
            _made.append(self)

    @property
    def compiled(self) -> re.Pattern[str]:
        compiled = self._compiled
        if compiled is None:
            # Two threads may both compile: re caches the result, and either is the same.
            compiled = self._compiled = re.compile(self._source, self._flags)
        return compiled

    @property
    def pattern(self) -> str:
        return self._source

    @property
    def groupindex(self) -> Any:
        return self.compiled.groupindex

    def search(self, string: str, pos: int = 0, endpos: int = 2**63 - 1) -> re.Match[str] | None:
        return self.compiled.search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = 2**63 - 1) -> re.Match[str] | None:
        return self.compiled.match(string, pos, endpos)

    def fullmatch(self, string: str, pos: int = 0, endpos: int = 2**63 - 1) -> re.Match[str] | None:
        return self.compiled.fullmatch(string, pos, endpos)

    def finditer(
        self, string: str, pos: int = 0, endpos: int = 2**63 - 1
    ) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = 2**63 - 1) -> list[Any]:
        return self.compiled.findall(string, pos, endpos)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        return self.compiled.sub(repl, string, count)

    def subn(
        self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0
    ) -> tuple[str, int]:
        return self.compiled.subn(repl, string, count)

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        return self.compiled.split(string, maxsplit)

    def __repr__(self) -> str:
        return f"Pattern({self._source!r}, {self._flags!r})"


def compile_all() -> int:
    """Compile every pattern made so far; how many there were."""
    with _lock:
        made = list(_made)
    for pattern in made:
        pattern.compiled  # noqa: B018 - compiling is the point
    return len(made)
