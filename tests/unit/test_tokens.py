"""Tokens of the embedded server: one made on first start, more with `token create`."""

import json

import pytest

from agent_memory.local.tokens import TokenBook, add_token

pytestmark = pytest.mark.unit


def test_a_token_made_while_the_server_runs_counts_at_once(tmp_path):
    book, first = TokenBook.load(tmp_path, None)
    assert first is not None and book.grant_for(first).tenant == "default"
    other = add_token(tmp_path, "globex")  # what `agent-memory token create` does
    assert book.grant_for(other).tenant == "globex"
    # Taken out of the file, it stops counting; the first token is another file's.
    (tmp_path / "tokens.json").write_text(json.dumps({}))
    assert book.grant_for(other) is None
    assert book.grant_for(first).tenant == "default"


def test_a_tokens_file_broken_by_hand_keeps_what_was_read(tmp_path):
    book, _ = TokenBook.load(tmp_path, None)
    kept = add_token(tmp_path, "acme")
    assert book.grant_for(kept) is not None
    (tmp_path / "tokens.json").write_text("{not json")
    assert book.grant_for(kept).tenant == "acme"
    assert book.grant_for("guess") is None
