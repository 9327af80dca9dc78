"""Who the request comes from, read from the JWT authorizer context of the event."""

from __future__ import annotations

import re
from typing import Any

from ..domain.auth import Principal
from ..domain.errors import Unauthorized

_TENANT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def principal_from_event(event: dict[str, Any], tenant_claim: str) -> Principal:
    """The caller's tenant and scopes. The cloud's JWT authorizer and the embedded server both
    put them in requestContext.authorizer.jwt: `claims` (tenant, sub, scope) and `scopes`."""
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
    scopes: set[str] = set()
    raw = claims.get("scope") or claims.get("scp") or ""
    # API Gateway flattens list claims to "[a b]"; OAuth writes a space-separated string.
    if isinstance(raw, str):
        scopes.update(raw.strip("[]").split())
    elif isinstance(raw, list):
        scopes.update(str(s) for s in raw)
    scopes.update(jwt.get("scopes") or [])
    return Principal(tenant=tenant, subject=str(claims.get("sub", "")), scopes=frozenset(scopes))
