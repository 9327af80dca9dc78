"""Webhook deliveries signed as Standard Webhooks (standardwebhooks.com) sign them: a receiver
checks them with any of that project's libraries, or ten lines of its own.

Headers: `webhook-id` (unique per delivery), `webhook-timestamp` (Unix seconds), and
`webhook-signature`: `v1,` and the base64 of HMAC-SHA256 over `{id}.{timestamp}.{body}`, keyed
with the secret's bytes (the secret is written `whsec_` and their base64).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac

from ...domain.kernel.ids import new_id

SECRET_PREFIX = "whsec_"
MIN_SECRET_BYTES = 24


class InvalidWebhookSecret(ValueError):
    pass


def secret_key(secret: str) -> bytes:
    """The HMAC key a `whsec_...` secret holds; at least 24 bytes, or it guards little."""
    if not secret.startswith(SECRET_PREFIX):
        raise InvalidWebhookSecret("the webhook secret starts with whsec_")
    try:
        key = base64.b64decode(secret[len(SECRET_PREFIX) :], validate=True)
    except binascii.Error as exc:
        raise InvalidWebhookSecret("after whsec_ the webhook secret is base64") from exc
    if len(key) < MIN_SECRET_BYTES:
        raise InvalidWebhookSecret(
            f"the webhook secret holds at least {MIN_SECRET_BYTES} bytes "
            "(python -c \"import base64,os; print('whsec_' + base64.b64encode(os.urandom(32)).decode())\")"
        )
    return key


def signature(key: bytes, delivery_id: str, timestamp: int, body: bytes) -> str:
    signed = f"{delivery_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()


def signed_headers(key: bytes, timestamp: int, body: bytes) -> dict[str, str]:
    delivery_id = new_id("msg")
    return {
        "webhook-id": delivery_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signature(key, delivery_id, timestamp, body),
    }
