"""Typed client for Engram, the self-hosted memory server for LLM applications.

    from engram_client import Engram
    client = Engram()  # ENGRAM_URL, ENGRAM_API_KEY
    client.memories.add(user_id="alice", text="I live in Berlin.", wait=True)
    hits = client.memories.search(query="where do I live", user_id="alice")
"""

from . import models
from ._client import AsyncEngram, Engram
from ._errors import (
    AuthenticationError,
    ConflictError,
    EngramError,
    JobFailedError,
    JobTimeoutError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    UnavailableError,
    ValidationError,
)

__version__ = "0.1.0"

__all__ = [
    "AsyncEngram",
    "AuthenticationError",
    "ConflictError",
    "Engram",
    "EngramError",
    "JobFailedError",
    "JobTimeoutError",
    "NotFoundError",
    "PermissionDeniedError",
    "RateLimitError",
    "UnavailableError",
    "ValidationError",
    "models",
]
