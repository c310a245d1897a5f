"""Errors: every non-2xx answer is an `EngramError` carrying the problem document."""

from __future__ import annotations

from typing import Any, Optional


class EngramError(Exception):
    """An error answer from Engram (RFC 9457 problem details)."""

    def __init__(
        self,
        status: int,
        type: str = "about:blank",
        title: str = "",
        detail: str = "",
        field: Optional[str] = None,
        body: Any = None,
    ) -> None:
        self.status = status
        self.type = type
        self.title = title
        self.detail = detail
        self.field = field
        self.body = body
        where = f" ({field})" if field else ""
        super().__init__(f"{status} {type}: {detail}{where}")

    @property
    def kind(self) -> str:
        """The problem type's last segment, e.g. `validation`, `duplicate-content`."""
        return self.type.rsplit(":", 1)[-1]


class AuthenticationError(EngramError):
    """401: the key is missing, unknown or revoked."""


class PermissionDeniedError(EngramError):
    """403: the key's role does not allow this."""


class NotFoundError(EngramError):
    """404."""


class ConflictError(EngramError):
    """409: see `kind` (duplicate-content, session-owner, changed-meanwhile, ...)."""


class ValidationError(EngramError):
    """422: `field` names the offending field."""


class RateLimitError(EngramError):
    """429 after the retry budget was spent."""


class UnavailableError(EngramError):
    """503 after the retry budget was spent (database, embedder, overload, timeout)."""


class JobFailedError(Exception):
    """A job ended `failed`; `job` is its last state."""

    def __init__(self, job: Any) -> None:
        self.job = job
        super().__init__(f"job {job.job_id} failed: {job.error}")


class JobTimeoutError(TimeoutError):
    """A job did not end within the wait."""


_BY_STATUS = {
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: ValidationError,
    429: RateLimitError,
    503: UnavailableError,
}


def error_from(status: int, body: Any) -> EngramError:
    cls = _BY_STATUS.get(status, EngramError)
    if isinstance(body, dict):
        return cls(
            status,
            type=str(body.get("type", "about:blank")),
            title=str(body.get("title", "")),
            detail=str(body.get("detail", "")),
            field=body.get("field"),
            body=body,
        )
    return cls(status, detail=str(body or ""), body=body)
