"""The secret detector and guard (domain/secrets): what each format looks like, what is left
alone, redaction, and the corpus's precision and recall (tests/secrets_corpus.py; the figures
are in benchmarks/RESULTS.md, made by benchmarks/secret_guard.py)."""

from __future__ import annotations

import time

import pytest

from agent_memory.domain.kernel.errors import DomainError
from agent_memory.domain.secrets import SecretDetected, check, redact, redact_tree, scan
from secrets_corpus import LOOKALIKES, SECRETS

GITHUB = "ghp_" + "Zq8Lr2Vx0Nc5Tb7Hd1Kf4Mw9Ps3Gy6Ja2Ue8R"


def test_the_corpus_is_as_large_as_promised():
    assert len(SECRETS) >= 100 and len(LOOKALIKES) >= 100
    kinds = {kind for _, kind in SECRETS}
    assert len(kinds) >= 25
    assert {"card_number", "national_id", "password", "netrc_password", "docker_auth"} <= kinds


def test_recall_and_precision_on_the_corpus():
    found = [(text, kind, [f.kind for f in scan(text)]) for text, kind in SECRETS]
    true_positives = sum(kinds == [kind] for _, kind, kinds in found)
    false_positives = sum(bool(scan(text)) for text in LOOKALIKES)
    recall = true_positives / len(SECRETS)
    precision = true_positives / (true_positives + false_positives)
    missed = [(kind, kinds, text[:80]) for text, kind, kinds in found if kinds != [kind]]
    assert recall >= 0.99, missed
    assert precision >= 0.99, [t for t in LOOKALIKES if scan(t)]


@pytest.mark.parametrize(
    ("text", "kind", "line"),
    [
        (f"one\ntwo {GITHUB}", "github_token", 2),
        ("PASSWORD='c0rr3ct-h0rse-B4ttery'", "secret_assignment", 1),
        ('{"api_key": "Zt8uQ2vL9xK4mN7p"}', "secret_assignment", 1),
        (f"token={GITHUB}", "github_token", 1),  # a known format says its own kind
        (
            "aws_secret_access_key: wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEK3",
            "aws_secret_access_key",
            1,
        ),
        ("x\n\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA", "private_key", 3),
        ("paid with 4532-0187-6512-9037 today", "card_number", 1),
        ("amex\n3714 628409 31052", "card_number", 2),
        ("my password is hunter2!", "password", 1),
        ("the wifi password for the lobby is sunflower", "password", 1),
        ("pw: Quokka#2931", "password", 1),
        ("passphrase amber-kettle-orbit", "password", 1),
        ("his PIN is 4921", "password", 1),
        ("SSN 219-31-4417", "national_id", 1),
        ("social security number 219 31 4417", "national_id", 1),
        ("National Insurance number: KT528107B", "national_id", 1),
        ("REDIS_URL=redis://:Wombat5512@cache:6379", "password_in_url", 1),
        ("xapp-1-A05B7QX2M9D-4821730495521-" + "9f" * 32, "slack_token", 1),
        ("machine git.internal\n  login ci\n  password Wombat#5512", "netrc_password", 3),
        ('{"auths": {"ghcr.io": {"auth": "Y2k6V29tYmF0IzU1MTI="}}}', "docker_auth", 1),
        ("Authorization: Basic Y2k6V29tYmF0IzU1MTI=", "basic_auth", 1),
    ],
)
def test_each_secret_is_named_with_its_line(text, kind, line):
    [finding] = scan(text)
    assert (finding.kind, finding.line) == (kind, line)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "no secrets here: the release ships on tuesday",
        "max_tokens: 100000000",
        "password: ${DB_PASSWORD}",
        "the key point: users = happy",
        "password: incorrect",
        "task-Zq8Lr2Vx0Nc5Tb7Hd1Kf4Mw9Ps3Gy6Ja2Ue8R",  # `sk-...` only as a word of its own
        "xghp_" + "Zq8Lr2Vx0Nc5Tb7Hd1Kf4Mw9Ps3Gy6Ja2Ue8R",
        "order 4532018765129038 shipped",  # fails Luhn
        "tracking 9532 0187 6512 9037",  # no card network starts with 9
        "event at 1718001234567 ms",
        "4532-0187 6512-9037",  # spaces and dashes mixed
        "version 4532018765129037.1",
        "phone 415-555-0132, ISBN 978-3-16-148410-0",
        "numbers 666-12-3456 and 123-00-4567 (never issued as SSNs)",
        "The password policy requires 12 characters.",
        "my password is incorrect",
        "password reset link expires in 24 hours",
        "password_hash: $2b$12$abcdefghijklmnopqrstuv",
        "the passport office opens at 9",
        "passport expires 2031-06-15",
        "the pin is bent",
        '{"auth": "bm90IGF1dGggYXQgYWxs"}',  # base64 with no `user:password`
        "redis://cache.internal:6379/0",
        "machine learning login page",
        "550e8400-e29b-41d4-a716-446655440000",
    ],
)
def test_ordinary_text_holds_none(text):
    assert scan(text) == []


def test_redaction_replaces_the_secret_and_keeps_its_name():
    text = f"password = hV9#kq2!Lm4zR8 and {GITHUB}\nbye"
    assert redact(text) == (
        "password = [redacted:secret_assignment] and [redacted:github_token]\nbye"
    )
    assert redact("nothing to see") == "nothing to see"


def test_a_private_key_is_redacted_whole_even_without_its_end():
    text = "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nAbCdEf"
    assert redact(text) == "key:\n[redacted:private_key]"


def test_redact_tree_reaches_every_string():
    tree = {"a": [GITHUB, {"b": f"x {GITHUB}"}], "n": 3, "none": None}
    assert redact_tree(tree) == {
        "a": ["[redacted:github_token]", {"b": "x [redacted:github_token]"}],
        "n": 3,
        "none": None,
    }


def test_block_refuses_naming_field_kind_and_line_never_the_secret():
    with pytest.raises(SecretDetected) as raised:
        check("block", {"summary": "fine", "content": f"a\nb\n{GITHUB}"}, "add_memory")
    error = raised.value
    assert isinstance(error, DomainError) and error.status == 400
    body = error.to_body()["error"]
    assert (body["code"], body["field"], body["kind"], body["line"]) == (
        "memory.secret_detected",
        "content",
        "github_token",
        3,
    )
    assert "content, line 3" in body["message"] and "github_token" in body["message"]
    assert GITHUB not in str(body)


def test_warn_returns_the_findings_and_off_scans_nothing():
    fields = {"summary": GITHUB}
    assert check("warn", fields, "add_memory") == [
        {"code": "memory.secret_detected", "field": "summary", "kind": "github_token", "line": 1}
    ]
    assert check("off", fields, "add_memory") == []
    assert check("block", {"summary": "fine", "content": None}, "add_memory") == []


@pytest.mark.parametrize(
    "unit",
    [
        "password=",
        "eyJ",
        "github_pat_",
        "AccountKey=",
        "key",
        "sk-",
        "4",
        "4 ",
        "1-",
        "password for a ",
        "pw: ",
        "SSN ",
        "NI number ",
        "machine h login u ",
        '"auth": "',
        "Basic ",
        "://:",
    ],
)
def test_a_text_made_to_be_slow_is_scanned_in_linear_time(unit):
    # Repeated prefixes and assignments once cost a minute a megabyte (a pattern read from
    # every `eyJ` of a run to its end; a judgement for every `password=`): now a fraction of a
    # second even on a loaded machine. Hours would show a quadratic return.
    text = (unit * 1_000_000)[:1_000_000]
    started = time.monotonic()
    scan(text)
    assert time.monotonic() - started < 10


def test_only_the_first_assignments_are_judged_past_the_limit():
    from agent_memory.domain.secrets.detector import MAX_ASSIGNMENTS

    decoys = "password=aaaaaaaa\n" * MAX_ASSIGNMENTS
    assert [f.kind for f in scan(decoys + "password=hV9#kq2!Lm4zR8")] == []
    # A provider's format is found wherever it is.
    assert [f.kind for f in scan(decoys + GITHUB)] == ["github_token"]
