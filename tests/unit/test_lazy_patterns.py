"""Regular expressions compiled on first use (domain/kernel/patterns.py): the same answers as
`re.compile`, and no compiling at import."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from agent_memory.domain.kernel import patterns
from agent_memory.domain.kernel.patterns import Pattern, compile_all

pytestmark = pytest.mark.unit

SOURCE = r"(?P<key>[a-z]+)=(?P<value>\d+)"


def test_a_pattern_answers_as_the_compiled_expression_does():
    lazy, eager = Pattern(SOURCE, re.I), re.compile(SOURCE, re.I)
    text = "A=1, b=22 and c=x"
    assert lazy._compiled is None  # nothing compiled until it is used
    assert lazy.search(text).group("value") == eager.search(text).group("value") == "1"
    assert lazy._compiled is not None
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in eager.finditer(text)]
    assert lazy.findall(text) == eager.findall(text)
    assert lazy.match(text, 5) is not None and lazy.fullmatch("b=22") is not None
    assert lazy.sub("*", text) == eager.sub("*", text)
    assert lazy.subn("*", text, 1) == eager.subn("*", text, 1)
    assert lazy.split(text) == eager.split(text)
    assert lazy.groupindex == eager.groupindex and lazy.pattern == SOURCE


def test_a_bad_expression_fails_where_it_is_first_used(monkeypatch):
    # Given an expression re cannot compile, made at import as every Pattern is (kept out of the
    # process's list: the other tests compile all of it)
    monkeypatch.setattr(patterns, "_made", [])
    broken = Pattern("(unclosed")
    # When it is first used, then re's own error says what is wrong, as re.compile's would
    with pytest.raises(re.error, match="missing \\)"):
        broken.search("text")


def test_compile_all_compiles_every_pattern_made():
    made = [Pattern(rf"word{n}") for n in range(3)]
    assert compile_all() >= 3
    assert all(p._compiled is not None for p in made)


def test_importing_the_guard_and_the_date_words_compiles_none_of_their_patterns():
    # A fresh interpreter: what the modules make at import waits for its first use.
    probe = (
        "import agent_memory.domain.secrets, agent_memory.domain.search.when, "
        "agent_memory.domain.extraction.restatements, agent_memory.api.body_limits\n"
        "from agent_memory.domain.kernel import patterns\n"
        "print(len(patterns._made), sum(p._compiled is not None for p in patterns._made))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    made, compiled = (int(v) for v in out.stdout.split())
    assert made >= 30 and compiled == 0
