"""A corpus for the secret guard: realistic fakes of every format it knows, each in a sentence
as an agent or a user would write it, and look-alikes that are no secret (ids, digests, hashes,
encoded text, placeholders). Generated from a fixed seed: no real key is in it.

`SECRETS` is `(text, kind)`: the text holds exactly one secret of that kind. `LOOKALIKES` hold
none. tests/unit/test_secrets_corpus.py asserts the detector's precision and recall on it and
benchmarks/secret_guard.py reports them (and detect-secrets' on the same corpus).
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid

_rng = random.Random(17)
UPPER_DIGITS = string.ascii_uppercase + "234567"
ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def _s(alphabet: str, n: int) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _pem(label: str) -> str:
    body = "\n".join(_s(B64, 64) for _ in range(_rng.randint(4, 12)))
    return f"-----BEGIN {label}-----\n{body}\n{_s(B64, 20)}==\n-----END {label}-----"


def _jwt() -> str:
    header = _b64url(json.dumps({"alg": _rng.choice(["HS256", "RS256"]), "typ": "JWT"}).encode())
    claims = {
        "sub": str(_rng.randint(10**6, 10**9)),
        "iat": _rng.randint(1_600_000_000, 1_800_000_000),
    }
    if _rng.random() < 0.5:
        claims["email"] = f"user{_rng.randint(1, 999)}@example.com"
    payload = _b64url(json.dumps(claims).encode())
    return f"{header}.{payload}.{_b64url(_rng.randbytes(32))}"


def _gcp_key_json() -> str:
    key = _pem("PRIVATE KEY").replace("\n", "\\n")
    return json.dumps(
        {
            "type": "service_account",
            "project_id": f"proj-{_s(string.ascii_lowercase, 6)}",
            "private_key_id": _s("0123456789abcdef", 40),
            "private_key": "__KEY__",
            "client_email": "svc@proj.iam.gserviceaccount.com",
        }
    ).replace("__KEY__", key)


_MAKERS = {
    "aws_access_key_id": lambda: _rng.choice(["AKIA", "ASIA"]) + _s(UPPER_DIGITS, 16),
    "aws_secret_access_key": lambda: _s(B64, 40),
    "gcp_service_account_key": _gcp_key_json,
    "azure_storage_key": lambda: _s(B64, 86) + "==",
    "azure_client_secret": lambda: _s(ALNUM, 3) + str(_rng.randint(0, 9)) + "Q~" + _s(ALNUM, 34),
    "private_key": lambda: _pem(
        _rng.choice(["RSA PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY", "PRIVATE KEY"])
    ),
    "jwt": _jwt,
    "github_token": lambda: _rng.choice(
        [
            "ghp_" + _s(ALNUM, 36),
            "gho_" + _s(ALNUM, 36),
            "ghs_" + _s(ALNUM, 36),
            "github_pat_" + _s(ALNUM, 22) + "_" + _s(ALNUM, 59),
        ]
    ),
    "gitlab_token": lambda: "glpat-" + _s(URLSAFE, 20),
    "slack_token": lambda: (
        f"xox{_rng.choice('bpa')}-{_rng.randint(10**10, 10**11)}-"
        f"{_rng.randint(10**10, 10**11)}-{_s(ALNUM, 24)}"
    ),
    "slack_webhook": lambda: (
        "https://hooks.slack.com/services/T"
        + _s(UPPER_DIGITS, 8)
        + "/B"
        + _s(UPPER_DIGITS, 8)
        + "/"
        + _s(ALNUM, 24)
    ),
    "stripe_key": lambda: _rng.choice(["sk_live_", "rk_live_", "sk_test_"]) + _s(ALNUM, 24),
    "openai_key": lambda: _rng.choice(
        ["sk-" + _s(ALNUM, 48), "sk-proj-" + _s(URLSAFE, 156), "sk-svcacct-" + _s(URLSAFE, 120)]
    ),
    "anthropic_key": lambda: "sk-ant-api03-" + _s(URLSAFE, 93) + "AA",
    "google_api_key": lambda: "AIza" + _s(URLSAFE, 35),
    "password_in_url": lambda: _s(ALNUM + "!*", 14),
    "bearer_token": lambda: _s(URLSAFE + ".", 40),
    "secret_assignment": lambda: _s(ALNUM + "!#%&*+-?@^", _rng.randint(12, 28)),
}

# How each kind is written down: `{s}` is the secret.
_SENTENCES = {
    "aws_access_key_id": [
        "aws_access_key_id = {s}",
        "The CI user's key id is {s}, rotate it monthly.",
        "export AWS_ACCESS_KEY_ID={s}",
    ],
    "aws_secret_access_key": [
        "aws_secret_access_key = {s}",
        "AWS_SECRET_ACCESS_KEY={s}",
        '"aws_secret_access_key": "{s}"',
    ],
    "gcp_service_account_key": ["The deploy service account: {s}", "{s}"],
    "azure_storage_key": [
        "DefaultEndpointsProtocol=https;AccountName=acct{n};AccountKey={s};"
        "EndpointSuffix=core.windows.net",
    ],
    "azure_client_secret": [
        "Entra app client secret: {s}",
        "use {s} as the client secret for the graph app",
    ],
    "private_key": ["Here is the deploy key:\n{s}\n", "{s}", "ssh key for the bastion\n\n{s}"],
    "jwt": [
        "The session cookie was {s}",
        "curl -H 'X-Auth: {s}' https://api.example.com/v1/me",
        "jwt: {s}",
    ],
    "github_token": [
        "my github token is {s}",
        "GITHUB_TOKEN={s}",
        "git clone https://x-access-token@github.com/org/repo (token {s})",
    ],
    "gitlab_token": ["gitlab personal access token: {s}", "use {s} for the registry"],
    "slack_token": ["SLACK_BOT_TOKEN={s}", "the bot posts with {s}"],
    "slack_webhook": ["alerts go to {s}", "webhook: {s}"],
    "stripe_key": ["stripe key {s} (billing)", "STRIPE_SECRET={s}"],
    "openai_key": ["OPENAI_API_KEY={s}", "use the key {s} for the evals"],
    "anthropic_key": ["ANTHROPIC_API_KEY={s}", "claude key: {s}"],
    "google_api_key": ["maps key {s}", "GOOGLE_API_KEY={s}"],
    "password_in_url": [
        "DATABASE_URL=postgres://app:{s}@db.internal:5432/app",
        "connect with mongodb+srv://admin:{s}@cluster0.example.net/test",
        "redis://default:{s}@cache.internal:6379",
    ],
    "bearer_token": [
        "Authorization: Bearer {s}",
        "curl -H 'Authorization: bearer {s}' https://api.example.com",
    ],
    "secret_assignment": [
        "password: {s}",
        "DB_PASSWORD={s}",
        '"client_secret": "{s}"',
        "api_key = '{s}'",
        "The admin password = {s} until Friday",
        "SMTP_PASS... no: smtp_password={s}",
        "secret: {s}",
        "access_token => {s}",
    ],
}


def _secrets(per_kind: int = 7) -> list[tuple[str, str]]:
    out = []
    for kind, forms in _SENTENCES.items():
        for i in range(per_kind):
            secret = _MAKERS[kind]()
            out.append((forms[i % len(forms)].format(s=secret, n=i), kind))
    return out


def _english() -> str:
    words = (
        "the release train ships on tuesday after the checks pass and the owner signs off "
        "on the notes which list every change to the billing service"
    ).split()
    return " ".join(_rng.choice(words) for _ in range(_rng.randint(8, 20)))


_LOOKALIKE_MAKERS = [
    lambda: f"request id {uuid.UUID(int=_rng.getrandbits(128), version=4)}",
    lambda: f"session_id: {uuid.UUID(int=_rng.getrandbits(128), version=4)}",
    lambda: f"sha256: {hashlib.sha256(_rng.randbytes(16)).hexdigest()}",
    lambda: f"image digest sha256:{hashlib.sha256(_rng.randbytes(16)).hexdigest()}",
    lambda: f"fixed in commit {hashlib.sha1(_rng.randbytes(8)).hexdigest()}",
    lambda: "see https://github.com/acme/web/commit/" + hashlib.sha1(_rng.randbytes(8)).hexdigest(),
    lambda: f"cache_key = {hashlib.md5(_rng.randbytes(8)).hexdigest()}",
    lambda: f'etag: "{hashlib.md5(_rng.randbytes(8)).hexdigest()}"',
    lambda: f"record {_rng.choice('0123456')}{_s(CROCKFORD, 25)} was superseded",
    lambda: f"ulid={_rng.choice('01')}{_s(CROCKFORD, 25)}",
    lambda: f"the attachment in base64: {base64.b64encode(_english().encode()).decode()}",
    lambda: "payload eyJ" + base64.b64encode(json.dumps({"a": _english()}).encode()).decode()[3:],
    lambda: f"max_tokens: {_rng.randint(1000, 99999999)}",
    lambda: f"token_count = {_rng.randint(10**7, 10**9)}",
    lambda: f"tokens_used: {_rng.randint(10**7, 10**9)}",
    lambda: "password: ${DB_PASSWORD}",
    lambda: "api_key = os.environ['OPENAI_API_KEY']",
    lambda: "secret: <your-secret-here>",
    lambda: "token = {{ secrets.GITHUB_TOKEN }}",
    lambda: "password: ********",
    lambda: "The password policy: at least 12 characters, rotated yearly.",
    lambda: "token expired: ask for a new one",
    lambda: f"We use scikit-learn (sk-learn) version 1.{_rng.randint(0, 9)} for the task-list.",
    lambda: f"task-{_s(URLSAFE, 34)} is queued",
    lambda: "ghp_ is the prefix GitHub gives personal access tokens",
    lambda: f"ALASKA{_s(string.ascii_uppercase, 14)} is a made-up word",
    lambda: f"build {_s(ALNUM, 40)}",
    lambda: f"the user said: {_english()}",
    lambda: f"call +1 415 555 {_rng.randint(1000, 9999)} about order {_rng.randint(10**9, 10**10)}",
    lambda: f"ipv6 2001:db8:{_rng.randint(1, 9999):x}::{_rng.randint(1, 9999):x}",
    lambda: f"https://example.com/path?id={uuid.UUID(int=_rng.getrandbits(128), version=4)}",
    lambda: "ssh-ed25519 " + base64.b64encode(_rng.randbytes(51)).decode() + " ops@bastion",
    lambda: "-----BEGIN CERTIFICATE-----\n" + _s(B64, 64) + "\n-----END CERTIFICATE-----",
    lambda: "-----BEGIN PUBLIC KEY-----\n" + _s(B64, 64) + "\n-----END PUBLIC KEY-----",
    lambda: f"mailto:ops@example.com and https://user@example.com/{_s(ALNUM, 10)}",
    lambda: f"git rev {hashlib.sha1(_rng.randbytes(8)).hexdigest()[:12]} in release notes",
]


def _lookalikes(count: int = 180) -> list[str]:
    return [_LOOKALIKE_MAKERS[i % len(_LOOKALIKE_MAKERS)]() for i in range(count)]


SECRETS: list[tuple[str, str]] = _secrets()
LOOKALIKES: list[str] = _lookalikes()
