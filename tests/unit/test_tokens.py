"""Tokens of the embedded server: kept as hashes with their scopes, roles, subject and expiry;
one made on first start (an admin of tenant `default`), more with `token create`."""

import json
import stat
from datetime import UTC, datetime, timedelta

import pytest

from agent_memory.cli import main
from agent_memory.domain.kernel.auth import ADMIN, AGENTS_READ, ALL_SCOPES
from agent_memory.local.tokens import (
    LEGACY_SCOPES,
    TokenBook,
    TokenError,
    add_token,
    list_tokens,
    new_token,
    parse_expiry,
    revoke_token,
)

pytestmark = pytest.mark.unit


def test_the_first_token_is_an_admin_of_default_and_kept_only_as_a_hash(tmp_path):
    book, first = TokenBook.load(tmp_path, None)
    grant = book.grant_for(first)
    assert (grant.tenant, grant.scopes, grant.id) == ("default", ALL_SCOPES, "first")
    assert first not in (tmp_path / "tokens.json").read_text()
    assert stat.S_IMODE((tmp_path / "tokens.json").stat().st_mode) == 0o600
    # A second start makes none and knows the same one.
    again, made = TokenBook.load(tmp_path, None)
    assert made is None and again.grant_for(first).id == "first"


def test_a_token_made_while_the_server_runs_counts_at_once_and_a_revoked_one_stops(tmp_path):
    book, first = TokenBook.load(tmp_path, None)
    other, made = add_token(tmp_path, "globex", scopes=frozenset({AGENTS_READ}), subject="bot")
    grant = book.grant_for(other)
    assert (grant.tenant, grant.scopes, grant.who) == ("globex", {AGENTS_READ}, "bot")
    assert other not in (tmp_path / "tokens.json").read_text()
    revoke_token(tmp_path, made.id)
    assert book.grant_for(other) is None
    assert book.grant_for(first).tenant == "default"
    with pytest.raises(TokenError):
        revoke_token(tmp_path, made.id)


def test_a_revoked_first_token_stays_revoked_after_a_restart(tmp_path):
    _, first = TokenBook.load(tmp_path, None)
    revoke_token(tmp_path, "first")
    assert not (tmp_path / "token").exists()
    book, made = TokenBook.load(tmp_path, None)
    assert made is None and book.grant_for(first) is None


def test_an_expired_token_opens_nothing(tmp_path):
    book, _ = TokenBook.load(tmp_path, None)
    past = datetime.now(UTC) - timedelta(seconds=1)
    token, _ = add_token(tmp_path, "acme", expires=past)
    assert book.grant_for(token) is None
    assert parse_expiry("30d", past) == past + timedelta(days=30)
    for bad in ("30", "d", "0d", "30y", "-1d"):
        with pytest.raises(TokenError):
            parse_expiry(bad, past)


def test_an_old_format_tokens_file_keeps_working_and_is_rewritten_as_hashes(tmp_path):
    # What earlier versions wrote: the first token alone in `token`, others keyed by the token.
    (tmp_path / "token").write_text("first-token-of-an-old-install\n")
    old = {
        "old-acme-token": {"tenant": "acme"},
        "old-reader": {"tenant": "acme", "scopes": [AGENTS_READ]},
    }
    (tmp_path / "tokens.json").write_text(json.dumps(old))
    book, made = TokenBook.load(tmp_path, None)
    assert made is None
    assert book.grant_for("first-token-of-an-old-install").scopes == ALL_SCOPES
    assert book.grant_for("old-acme-token").scopes == LEGACY_SCOPES
    assert book.grant_for("old-reader").scopes == {AGENTS_READ}
    text = (tmp_path / "tokens.json").read_text()
    assert "old-acme-token" not in text and "first-token-of-an-old-install" not in text
    assert json.loads(text)["version"] == 2
    # Ids stay the same from one read to the next.
    assert [g.id for g in list_tokens(tmp_path)] == [g.id for g in list_tokens(tmp_path)]


def test_a_tokens_file_broken_by_hand_keeps_what_was_read(tmp_path):
    book, _ = TokenBook.load(tmp_path, None)
    kept, _ = add_token(tmp_path, "acme")
    assert book.grant_for(kept) is not None
    (tmp_path / "tokens.json").write_text("{not json")
    assert book.grant_for(kept).tenant == "acme"
    assert book.grant_for("guess") is None
    assert book.grant_for("") is None


def test_bad_requests_for_a_token_are_refused_and_make_none(tmp_path):
    for kwargs in (
        {"tenant": "bad/tenant"},
        {"tenant": "acme", "scopes": frozenset({"root"})},
        {"tenant": "acme", "scopes": frozenset()},
        {"tenant": "acme", "roles": frozenset({"god"})},
        {"tenant": "acme", "subject": "a b"},
    ):
        with pytest.raises(TokenError):
            add_token(tmp_path, **kwargs)
    assert list_tokens(tmp_path) == []


def test_token_create_ls_and_revoke_on_the_command_line(tmp_path, capsys):
    d = str(tmp_path)
    argv = ["token", "create", "--tenant", "acme", "--scopes", "agents:read,admin"]
    argv += ["--subject", "ops", "--roles", "helper", "--expires", "30d", "--data-dir", d]
    assert main(argv) == 0
    token = capsys.readouterr().out.split()[-1]
    grant = TokenBook.load(tmp_path, None)[0].grant_for(token)
    assert (grant.scopes, grant.roles, grant.who) == ({AGENTS_READ, ADMIN}, {"helper"}, "ops")
    assert main(["token", "ls", "--data-dir", d]) == 0
    listed = capsys.readouterr().out
    assert token not in listed
    row = next(line for line in listed.splitlines() if line.startswith(grant.id))
    assert row.split("\t")[1:5] == ["acme", "ops", "admin,agents:read", "helper"]
    assert main(["token", "revoke", grant.id, "--data-dir", d]) == 0
    assert main(["token", "revoke", grant.id, "--data-dir", d]) == 1
    assert main(["token", "create", "--tenant", "acme", "--scopes", "root", "--data-dir", d]) == 2
    assert "unknown scopes" in capsys.readouterr().err


def test_a_new_token_never_starts_with_a_dash(monkeypatch):
    # A token starting with `-` would read as an option on a command line (`--token -x...`).
    made = iter(["-starts-with-a-dash", "_fine-token"])
    monkeypatch.setattr("agent_memory.local.tokens.secrets.token_urlsafe", lambda n: next(made))
    assert new_token() == "_fine-token"
