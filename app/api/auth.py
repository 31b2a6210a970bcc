"""Bearer tokens: ``ADMIN_TOKEN`` for changing maps, ``API_TOKEN`` (optional) for everything
else but ``/health``. Tokens are compared in constant time. The checks are ``async def``:
they never block, and so they run on the event loop instead of a pool thread.

The two ``HTTPBearer`` schemes only declare the tokens in the OpenAPI document (Swagger UI's
Authorize button, generated clients); the header is read and compared here, so the error
codes (``unauthorized``, ``admin_disabled``) stay the service's own. ``app.api.guards`` runs
the same checks before a request body is read, so a request without its token gets 401
whatever its body holds.
"""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Request, Security
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.state import ServiceState
from gridpath.errors import AdminDisabled, Unauthorized

api_bearer = HTTPBearer(
    scheme_name="apiToken",
    description="`Authorization: Bearer <API_TOKEN>` (or the admin token), when the server "
    "sets API_TOKEN.",
    auto_error=False,
)
admin_bearer = HTTPBearer(
    scheme_name="adminToken",
    description="`Authorization: Bearer <ADMIN_TOKEN>`: map changes.",
    auto_error=False,
)
Credentials = HTTPAuthorizationCredentials | None


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def _matches(given: str | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


def check_api_token(request: Request) -> None:
    """With ``API_TOKEN`` set, the request must carry it (or the admin token)."""
    settings = request.app.state.service.settings
    if settings.api_token is None:
        return
    given = _bearer(request)
    allowed = [settings.api_token] + ([settings.admin_token] if settings.admin_token else [])
    if not any(_matches(given, token.get_secret_value()) for token in allowed):
        raise Unauthorized("this endpoint needs 'Authorization: Bearer <API_TOKEN>'")


def check_admin_token(request: Request) -> None:
    """Map changes need ``ADMIN_TOKEN``; without one configured they are refused."""
    state: ServiceState = request.app.state.service
    token = state.settings.admin_token
    if token is None or not token.get_secret_value():
        raise AdminDisabled("map changes are disabled: the server has no ADMIN_TOKEN")
    if not _matches(_bearer(request), token.get_secret_value()):
        raise Unauthorized("map changes need 'Authorization: Bearer <ADMIN_TOKEN>'")


async def require_api_token(
    request: Request, _: Annotated[Credentials, Security(api_bearer)]
) -> None:
    check_api_token(request)


async def require_admin(
    request: Request, _: Annotated[Credentials, Security(admin_bearer)]
) -> None:
    check_admin_token(request)


# Dependency -> the check the guard runs before the body (app.api.guards).
GUARDS = {require_api_token: check_api_token, require_admin: check_admin_token}
