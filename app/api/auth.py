"""Bearer tokens: ``ADMIN_TOKEN`` for changing maps, ``API_TOKEN`` (optional) for everything
else but ``/health``. Tokens are compared in constant time. The checks are ``async def``:
they never block, and so they run on the event loop instead of a pool thread."""

from __future__ import annotations

import hmac

from fastapi import Request

from app.errors import AdminDisabled, Unauthorized
from app.service import ServiceState


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def _matches(given: str | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


async def require_api_token(request: Request) -> None:
    """With ``API_TOKEN`` set, the request must carry it (or the admin token)."""
    settings = request.app.state.service.settings
    if settings.api_token is None:
        return
    given = _bearer(request)
    allowed = [settings.api_token] + ([settings.admin_token] if settings.admin_token else [])
    if not any(_matches(given, token.get_secret_value()) for token in allowed):
        raise Unauthorized("this endpoint needs 'Authorization: Bearer <API_TOKEN>'")


async def require_admin(request: Request) -> None:
    """Map changes need ``ADMIN_TOKEN``; without one configured they are refused."""
    state: ServiceState = request.app.state.service
    token = state.settings.admin_token
    if token is None or not token.get_secret_value():
        raise AdminDisabled("map changes are disabled: the server has no ADMIN_TOKEN")
    if not _matches(_bearer(request), token.get_secret_value()):
        raise Unauthorized("map changes need 'Authorization: Bearer <ADMIN_TOKEN>'")
