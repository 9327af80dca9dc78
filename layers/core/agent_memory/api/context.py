"""Who the request comes from, read from the JWT authorizer context of the event."""

from __future__ import annotations

import re
from typing import Any

from ..domain.kernel.auth import ALL_ROLES, Principal
from ..domain.kernel.errors import Unauthorized

_TENANT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


# The embedded server names the token that authenticated a request in this claim (the audit's
# actor); a JWT's actor is its subject.
TOKEN_ID_CLAIM = "agent_memory_token_id"


def _words(raw: Any) -> set[str]:
    # API Gateway flattens list claims to "[a b]"; OAuth writes a space-separated string.
    if isinstance(raw, str):
        return set(raw.strip("[]").replace(",", " ").split())
    if isinstance(raw, list):
        return {str(s) for s in raw}
    return set()


def principal_from_event(
    event: dict[str, Any], tenant_claim: str, roles_claim: str = "roles"
) -> Principal:
    """The caller's tenant, subject, scopes and roles. The cloud's JWT authorizer and the
    embedded server both put them in requestContext.authorizer.jwt: `claims` (tenant, sub,
    scope, roles) and `scopes`."""
    jwt = ((event.get("requestContext") or {}).get("authorizer") or {}).get("jwt") or {}
    claims: dict[str, Any] = jwt.get("claims") or {}
    tenant = claims.get(tenant_claim)
    if not isinstance(tenant, str) or not tenant:
        raise Unauthorized(
            f"the caller's token carries no {tenant_claim!r} claim", code="missing_tenant"
        )
    if not _TENANT.match(tenant):
        # Tenants prefix every stored key: refuse what could be confused with a key separator.
        raise Unauthorized(
            f"the token's {tenant_claim!r} claim is not a valid tenant id: 1-64 of "
            "A-Z a-z 0-9 . _ -",
            code="invalid_tenant",
        )
    scopes = _words(claims.get("scope") or claims.get("scp") or "")
    scopes.update(jwt.get("scopes") or [])
    # A credential that names no roles may state any; one that names some, only those.
    roles = ALL_ROLES if roles_claim not in claims else frozenset(_words(claims[roles_claim]))
    subject = str(claims.get("sub") or "")
    return Principal(
        tenant=tenant,
        subject=subject,
        scopes=frozenset(scopes),
        roles=roles & ALL_ROLES,
        actor=str(claims.get(TOKEN_ID_CLAIM) or subject),
    )
