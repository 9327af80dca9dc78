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
HEX = "0123456789abcdef"


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
    "slack_token": lambda: _rng.choice(
        [
            f"xox{_rng.choice('bpa')}-{_rng.randint(10**10, 10**11)}-"
            f"{_rng.randint(10**10, 10**11)}-{_s(ALNUM, 24)}",
            f"xapp-1-A{_s(UPPER_DIGITS, 10)}-{_rng.randint(10**12, 10**13)}-{_s(HEX, 64)}",
        ]
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
    "slack_token": ["SLACK_BOT_TOKEN={s}", "the bot posts with {s}", "socket mode app token {s}"],
    "slack_webhook": ["alerts go to {s}", "webhook: {s}"],
    "stripe_key": ["stripe key {s} (billing)", "STRIPE_SECRET={s}"],
    "openai_key": ["OPENAI_API_KEY={s}", "use the key {s} for the evals"],
    "anthropic_key": ["ANTHROPIC_API_KEY={s}", "claude key: {s}"],
    "google_api_key": ["maps key {s}", "GOOGLE_API_KEY={s}"],
    "password_in_url": [
        "DATABASE_URL=postgres://app:{s}@db.internal:5432/app",
        "connect with mongodb+srv://admin:{s}@cluster0.example.net/test",
        "redis://default:{s}@cache.internal:6379",
        "REDIS_URL=redis://:{s}@cache-primary.internal:6379/2",
        "the broker is amqp://:{s}@mq.internal:5672/%2f",
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


# Kinds whose value and wording go together (a national id's shape follows its country, a
# password in prose its sentence): each function writes the whole text.
def _luhn_digit(body: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch)
        if i % 2 == 0:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return str((10 - total % 10) % 10)


def _pan(fail_luhn: bool = False) -> str:
    """A card number of a real network's prefix and length (Luhn-valid unless asked not to),
    grouped as that network prints it."""
    prefix, length, groups = _rng.choice(
        [
            ("4", 16, (4, 4, 4, 4)),
            ("4", 19, (4, 4, 4, 4, 3)),
            (str(_rng.randint(51, 55)), 16, (4, 4, 4, 4)),
            (str(_rng.randint(2221, 2720)), 16, (4, 4, 4, 4)),
            (_rng.choice(["34", "37"]), 15, (4, 6, 5)),
            ("6011", 16, (4, 4, 4, 4)),
            (str(_rng.randint(3528, 3589)), 16, (4, 4, 4, 4)),
            ("36", 14, (4, 6, 4)),
        ]
    )
    body = prefix + _s(string.digits, length - len(prefix) - 1)
    check = _luhn_digit(body)
    if fail_luhn:
        check = str((int(check) + _rng.randint(1, 9)) % 10)
    digits = body + check
    sep = _rng.choice(["", " ", "-"])
    out, at = [], 0
    for n in groups:
        out.append(digits[at : at + n])
        at += n
    return sep.join(out)


def _ssn() -> str:
    area = _rng.choice([n for n in range(1, 900) if n != 666])
    return f"{area:03d}-{_rng.randint(1, 99):02d}-{_rng.randint(1, 9999):04d}"


_NI_FIRST = "ABCEGHJKLMNOPRSTWXYZ"
_NI_SECOND = "ABCEGHJKLMNPRSTWXYZ"


def _nino(spaced: bool) -> str:
    letters = _rng.choice(_NI_FIRST) + _rng.choice(_NI_SECOND)
    while letters in ("BG", "GB", "NK", "KN", "TN", "NT", "ZZ"):
        letters = _rng.choice(_NI_FIRST) + _rng.choice(_NI_SECOND)
    digits = _s(string.digits, 6)
    suffix = _rng.choice("ABCD")
    if spaced:
        return f"{letters} {digits[:2]} {digits[2:4]} {digits[4:]} {suffix}"
    return f"{letters}{digits}{suffix}"


_WORDS = (
    "amber kettle orbit mosaic velvet harbor lantern pepper quartz meadow cobalt sparrow "
    "walnut thistle falcon ember juniper canyon"
).split()


def _password() -> str:
    word = _rng.choice(_WORDS)
    return _rng.choice(
        [
            f"{word}{_rng.randint(1, 99)}{_rng.choice('!?#$')}",
            f"{word.capitalize()}{_rng.randint(1900, 2030)}",
            word.replace("a", "@").replace("o", "0").replace("e", "3") + str(_rng.randint(1, 9)),
            f"{_s(ALNUM, 5)}{_rng.choice('!#%&*')}{_s(ALNUM, 4)}",
        ]
    )


def _diceware() -> str:
    return "-".join(_rng.sample(_WORDS, 4))


def _basic() -> str:
    user = _rng.choice(["deploy", "ci-bot", "jenkins", "svc_reports", "alice"])
    return base64.b64encode(f"{user}:{_password()}".encode()).decode()


_WRITTEN = {
    "card_number": [
        lambda: f"card on file: {_pan()}, exp {_rng.randint(1, 12):02d}/{_rng.randint(26, 31)}",
        lambda: f"Charge it to my card {_pan()} please",
        lambda: f"customer read out {_pan()} over the phone",
        lambda: f"PAN={_pan()}",
        lambda: f"refund went to\n{_pan()}\nyesterday",
    ],
    "national_id": [
        lambda: f"my SSN is {_ssn()}",
        lambda: f"Employee record: {_ssn()} (payroll)",
        lambda: f"social security number {_ssn().replace('-', ' ')}",
        lambda: f"National Insurance number: {_nino(spaced=False)}",
        lambda: f"her NI number is {_nino(spaced=True)}",
        lambda: (
            f"SIN {_s(string.digits, 3)} {_s(string.digits, 3)} {_s(string.digits, 3)} "
            "for the Canadian payroll"
        ),
        lambda: f"passport no. {_rng.choice('CEGKLMP')}{_s(string.digits, 8)}, issued 2021",
        lambda: f"SSN: {_s('12345678', 1)}{_s(string.digits, 8)}",
    ],
    "password": [
        lambda: f"my password is {_password()}",
        lambda: f"pw: {_password()}",
        lambda: f"passphrase {_diceware()}",
        lambda: f"The wifi password for the guest network is {_password()} btw",
        lambda: f"I changed my password to {_password()} yesterday",
        lambda: f"Login: jdoe / Password: {_password()}",
        lambda: f'the vault passphrase is "{" ".join(_rng.sample(_WORDS, 3))}"',
        lambda: f"her passcode was {_s(string.digits, 6)}",
    ],
    "netrc_password": [
        lambda: f"machine api.{_rng.choice(_WORDS)}.io login deploy password {_password()}",
        lambda: f"~/.netrc:\nmachine git.internal\n  login ci\n  password {_password()}\n",
        lambda: f"default login anonymous password {_password()}",
    ],
    "docker_auth": [
        lambda: json.dumps({"auths": {"registry.example.io": {"auth": _basic()}}}),
        lambda: json.dumps({"auths": {"ghcr.io": {"auth": _basic()}}}, indent=2),
        lambda: f'~/.docker/config.json has "auth": "{_basic()}" for the mirror',
    ],
    "basic_auth": [
        lambda: f"Authorization: Basic {_basic()}",
        lambda: f"curl -H 'Authorization: basic {_basic()}' https://ci.internal/api",
    ],
    "npm_token": [lambda: f"//registry.npmjs.org/:_authToken=npm_{_s(ALNUM, 36)}"],
    "pypi_token": [lambda: f"TWINE_PASSWORD=pypi-AgEIcHlwaS5vcmc{_s(URLSAFE, 70)}"],
    "sendgrid_key": [lambda: f"SG.{_s(URLSAFE, 22)}.{_s(URLSAFE, 43)} sends the receipts"],
    "huggingface_token": [lambda: f"huggingface-cli login --token hf_{_s(ALNUM, 34)}"],
}


def _written(per_kind: int = 7) -> list[tuple[str, str]]:
    return [
        (forms[i % len(forms)](), kind)
        for kind, forms in _WRITTEN.items()
        for i in range(max(per_kind, len(forms)))
    ]


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
    lambda: f"order {_pan(fail_luhn=True).replace(' ', '').replace('-', '')} ships monday",
    lambda: f"invoice {_pan(fail_luhn=True)} is overdue",
    lambda: f"tracking number {_rng.choice('1789')}{_s(string.digits, 15)}",
    lambda: (
        f"USPS tracking 9400 {_s(string.digits, 4)} {_s(string.digits, 4)} "
        f"{_s(string.digits, 4)} {_s(string.digits, 4)} {_s(string.digits, 2)}"
    ),
    lambda: f"event at {_rng.randint(1_600_000_000_000, 1_800_000_000_000)} ms since epoch",
    lambda: (
        f"the meeting is on {_rng.randint(2020, 2030)}-{_rng.randint(1, 12):02d}-"
        f"{_rng.randint(1, 28):02d} at 10:00"
    ),
    lambda: (
        f"call +44 20 {_rng.randint(7000, 7999)} {_rng.randint(1000, 9999)} or "
        f"+1 (415) 555-{_rng.randint(1000, 9999)}"
    ),
    lambda: (
        f"ISBN 978-{_rng.randint(0, 1)}-{_rng.randint(100, 999)}-"
        f"{_rng.randint(10000, 99999)}-{_rng.randint(0, 9)}"
    ),
    lambda: f"scores: {' '.join(str(_rng.randint(1, 9)) for _ in range(16))}",
    lambda: f"batch 2024 {_rng.randint(10, 99)} {_rng.randint(100, 999)} rows, 12 errors",
    lambda: "The password policy requires 12 characters, one digit and one symbol.",
    lambda: "my password expired yesterday so I reset it",
    lambda: "password reset link expires in 24 hours",
    lambda: "I forgot my password again, the manager has it",
    lambda: "enter your passphrase when prompted",
    lambda: "password: see the team vault (item db-prod)",
    lambda: "the password field is required",
    lambda: "pw field left empty on purpose",
    lambda: "password hashing uses argon2id with 64 MiB",
    lambda: "The passport office opens at 9, bring 2 photos.",
    lambda: f"passport expires {_rng.randint(2026, 2035)}-{_rng.randint(1, 12):02d}-15",
    lambda: "the social security office on 5th street closes early",
    lambda: "SSN field was left blank in 3 of the forms",
    lambda: f"NI contributions for {_rng.randint(2015, 2024)} are paid",
    lambda: (
        f"the machine learning login page has a password strength meter (v{_rng.randint(2, 9)})"
    ),
    lambda: (
        '{"image": "' + base64.b64encode(b"\x89PNG\r\n\x1a\n" + _rng.randbytes(60)).decode() + '"}'
    ),
    lambda: (
        "avatar: data:image/png;base64,"
        + base64.b64encode(b"\x89PNG\r\n\x1a\n" + _rng.randbytes(45)).decode()
    ),
    lambda: '{"auths": {"ghcr.io": {}}, "credsStore": "desktop"}',
    lambda: '"auth": "' + base64.b64encode(_english().encode()[:30]).decode() + '"',
    lambda: 'Authorization: Basic realm="staging"',
    lambda: f"redis://cache.internal:6379/{_rng.randint(0, 15)} (no auth on the private network)",
    lambda: (
        f"postgres://db.internal:5432/app?sslmode=require&application_name=w{_rng.randint(1, 9)}"
    ),
    lambda: f"xapp is what Slack calls app-level tokens; see doc {_rng.randint(100, 999)}",
    lambda: f"hf_{_s(string.ascii_lowercase, 6)} is a feature flag name",
]


def _lookalikes(count: int = 340) -> list[str]:
    return [_LOOKALIKE_MAKERS[i % len(_LOOKALIKE_MAKERS)]() for i in range(count)]


SECRETS: list[tuple[str, str]] = _secrets() + _written()
LOOKALIKES: list[str] = _lookalikes()
