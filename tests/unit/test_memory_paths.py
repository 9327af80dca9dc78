"""Memory paths: the canonical /memories/...md form, folder prefixes, and every refusal."""

import pytest

from agent_memory.domain.files.paths import (
    MAX_PATH_CHARS,
    MEMORY_ROOT,
    is_under,
    normalize_folder,
    normalize_path,
)
from agent_memory.domain.kernel.errors import InvalidRequest

pytestmark = pytest.mark.unit


def refusal(call, raw):
    with pytest.raises(InvalidRequest) as caught:
        call(raw)
    assert caught.value.code == "invalid_path"
    assert caught.value.status == 400
    return caught.value.message


def test_constants():
    assert MEMORY_ROOT == "/memories"
    assert MAX_PATH_CHARS == 512


@pytest.mark.parametrize(
    "raw",
    ["conventions/release.md", "/memories/conventions/release.md"],
)
def test_a_path_with_or_without_the_prefix_is_the_same_memory(raw):
    assert normalize_path(raw) == "/memories/conventions/release.md"


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("a\u202eb.md", "202E"),  # right-to-left override: `a<RLO>dm.exe` reads as another
        ("a\u200bb.md", "200B"),  # zero-width space
        ("a\u2066b.md", "2066"),  # left-to-right isolate
        ("a\ufeffb.md", "FEFF"),  # byte order mark
        ("a\x85b.md", "0085"),  # next line, a C1 control
    ],
)
def test_format_and_bidi_characters_are_refused(raw, code):
    assert f"here U+{code}) are not allowed" in refusal(normalize_path, raw)
    assert f"here U+{code}) are not allowed" in refusal(normalize_folder, raw[:-3])


def test_paths_are_nfc_normalised_so_one_name_is_one_memory():
    composed, decomposed = "caf\u00e9.md", "cafe\u0301.md"
    assert normalize_path(decomposed) == normalize_path(composed) == "/memories/caf\u00e9.md"
    assert normalize_folder("e\u0301quipe") == "/memories/\u00e9quipe"


def test_top_level_and_unicode_paths_are_accepted():
    assert normalize_path("notes.md") == "/memories/notes.md"
    assert normalize_path("équipe/café ☕.md") == "/memories/équipe/café ☕.md"
    assert normalize_path("/memories/a/b/c/d.md") == "/memories/a/b/c/d.md"


def test_a_path_of_exactly_512_characters_is_accepted_and_513_is_refused():
    name = "n" * (512 - len("/memories/") - len(".md"))
    assert len(normalize_path(f"/memories/{name}.md")) == 512
    # The limit counts the canonical form, so a relative path is measured with its prefix.
    assert normalize_path(f"{name}.md") == f"/memories/{name}.md"

    too_long = f"{name}x.md"
    assert refusal(normalize_path, too_long) == (
        f"Invalid path '{'n' * 77}...': a path may be at most 512 characters with the "
        "/memories/ prefix, and this one is 513."
    )


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("", "Invalid path '': a path must not be empty."),
        (
            "a\x00b.md",
            "Invalid path 'a\\x00b.md': control and format characters (Unicode Cc and Cf, "
            "here U+0000) are not allowed.",
        ),
        (
            "a\nb.md",
            "Invalid path 'a\\nb.md': control and format characters (Unicode Cc and Cf, "
            "here U+000A) are not allowed.",
        ),
        (
            "a\x1fb.md",
            "Invalid path 'a\\x1fb.md': control and format characters (Unicode Cc and Cf, "
            "here U+001F) are not allowed.",
        ),
        (
            "a\x7fb.md",
            "Invalid path 'a\\x7fb.md': control and format characters (Unicode Cc and Cf, "
            "here U+007F) are not allowed.",
        ),
        (
            "a\\b.md",
            "Invalid path 'a\\\\b.md': backslashes are not allowed; separate folders with /.",
        ),
        ("a//b.md", "Invalid path 'a//b.md': empty segments (//) are not allowed."),
        ("/memories//b.md", "Invalid path '/memories//b.md': empty segments (//) are not allowed."),
        ("../secrets.md", "Invalid path '../secrets.md': '.' and '..' segments are not allowed."),
        (
            "/memories/a/../../etc.md",
            "Invalid path '/memories/a/../../etc.md': '.' and '..' segments are not allowed.",
        ),
        ("./notes.md", "Invalid path './notes.md': '.' and '..' segments are not allowed."),
        (
            "/memories/notes.md/",
            "Invalid path '/memories/notes.md/': a memory file path must not end with /.",
        ),
        ("conventions/", "Invalid path 'conventions/': a memory file path must not end with /."),
        ("notes.txt", "Invalid path 'notes.txt': a memory file path must end in .md."),
        ("notes", "Invalid path 'notes': a memory file path must end in .md."),
        ("/memories/.md", "Invalid path '/memories/.md': the file needs a name before .md."),
        (
            "a.md/b.md",
            "Invalid path 'a.md/b.md': a folder name must not end in .md; a path ending in .md "
            "is a file.",
        ),
        (
            "/etc/passwd.md",
            "Invalid path '/etc/passwd.md': a path must start with /memories/ or be relative "
            "to /memories.",
        ),
        (
            "/memoriesx.md",
            "Invalid path '/memoriesx.md': a path must start with /memories/ or be relative "
            "to /memories.",
        ),
        (
            "/memories",
            "Invalid path '/memories': /memories is the memory folder; name a file such as "
            "/memories/notes.md.",
        ),
        (
            "/memories/",
            "Invalid path '/memories/': /memories is the memory folder; name a file such as "
            "/memories/notes.md.",
        ),
    ],
)
def test_a_bad_file_path_is_refused_with_the_rule_it_breaks(raw, message):
    assert refusal(normalize_path, raw) == message


@pytest.mark.parametrize(
    ("raw", "folder"),
    [
        ("/memories", "/memories"),
        ("/memories/", "/memories"),
        ("conventions", "/memories/conventions"),
        ("conventions/", "/memories/conventions"),
        ("/memories/conventions", "/memories/conventions"),
        ("/memories/conventions/", "/memories/conventions"),
        ("teams/web", "/memories/teams/web"),
    ],
)
def test_a_folder_is_returned_with_the_prefix_and_without_a_trailing_slash(raw, folder):
    assert normalize_folder(raw) == folder


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("", "Invalid path '': a path must not be empty."),
        ("/memories//", "Invalid path '/memories//': empty segments (//) are not allowed."),
        ("a//b", "Invalid path 'a//b': empty segments (//) are not allowed."),
        ("a//", "Invalid path 'a//': empty segments (//) are not allowed."),
        ("a/..", "Invalid path 'a/..': '.' and '..' segments are not allowed."),
        (
            "a\\b",
            "Invalid path 'a\\\\b': backslashes are not allowed; separate folders with /.",
        ),
        (
            "notes.md",
            "Invalid path 'notes.md': a folder name must not end in .md; a path ending in .md "
            "is a file.",
        ),
        (
            "/tmp",
            "Invalid path '/tmp': a path must start with /memories/ or be relative to /memories.",
        ),
    ],
)
def test_a_bad_folder_is_refused(raw, message):
    assert refusal(normalize_folder, raw) == message


def test_a_folder_longer_than_512_characters_is_refused():
    name = "f" * (512 - len("/memories/"))
    assert normalize_folder(name) == f"/memories/{name}"
    assert refusal(normalize_folder, name + "f") == (
        f"Invalid path '{'f' * 77}...': a path may be at most 512 characters with the "
        "/memories/ prefix, and this one is 513."
    )


def test_is_under_means_strictly_below_the_folder():
    assert is_under("/memories/a/b.md", "/memories/a")
    assert is_under("/memories/a/b/c.md", "/memories/a")
    assert is_under("/memories/a.md", "/memories")
    assert not is_under("/memories/ab.md", "/memories/a")
    assert not is_under("/memories/a", "/memories/a")
    assert not is_under("/memories/b/a.md", "/memories/a")


@pytest.mark.parametrize(
    ("given", "segments"),
    [
        ("/memories/notes.md", "notes.md"),
        ("notes.md", "notes.md"),
        # Relative, as the service reads it: /memories/memories/notes.md, not /memories/notes.md.
        ("memories/notes.md", "memories/notes.md"),
        # Absolute elsewhere: left for the service to refuse, never moved under /memories.
        ("/etc/notes.md", "/etc/notes.md"),
    ],
)
def test_the_client_names_the_memory_the_service_would(given, segments):
    from agent_memory.client import _memory_path

    assert _memory_path(given) == segments
