"""What a Kokoro failure is in Pipecat's terms: the `KokoroErrorFrame` of a server `error`,
and the `ErrorCategory` of a server code, a lost session or a session that cannot open."""

from __future__ import annotations

from dataclasses import dataclass

from kokoro_stream import ServerError
from kokoro_stream.errors import error_cause
from pipecat.frames.frames import ErrorFrame
from pipecat.utils.errors import ErrorCategory

# Server error codes (docs/protocol.md) by what they say about whom.
_APPLICATION_CODES = frozenset(
    {
        "invalid_json",
        "unknown_type",
        "missing_text",
        "text_too_long",
        "frame_too_large",
        "unknown_voice",
        "bad_parameter",
    }
)
_CATEGORY = {
    **dict.fromkeys(_APPLICATION_CODES, ErrorCategory.APPLICATION),
    "queue_full": ErrorCategory.RATE_LIMIT,
    "busy": ErrorCategory.RATE_LIMIT,
    "internal": ErrorCategory.SERVER,
    "not_ready": ErrorCategory.SERVER,
    "idle_timeout": ErrorCategory.CONNECTIVITY,
}

# kokoro_stream's TtsFailure codes: what ended the session.
_FAILURE_CATEGORY = {
    "tts_disconnected": ErrorCategory.CONNECTIVITY,
    "tts_timeout": ErrorCategory.CONNECTIVITY,  # kokoro_stream.watchdog: a stalled server
    "tts_unavailable": ErrorCategory.CONNECTIVITY,
    "tts_protocol": ErrorCategory.SERVER,
    "tts_model_stream_error": ErrorCategory.SERVER,
    "tts_internal_stream_failure": ErrorCategory.SERVER,
    "tts_service_error": ErrorCategory.SERVER,
}
# Exceptions opening a session, by class name anywhere in the cause chain (so this module
# imports no AWS package): credentials, permissions, the endpoint, the network.
_OPEN_CATEGORY = {
    "AwsCredentialsError": ErrorCategory.AUTHENTICATION,
    "NoCredentialsError": ErrorCategory.AUTHENTICATION,
    "AccessDeniedException": ErrorCategory.AUTHORIZATION,
    "ValidationError": ErrorCategory.INVALID_REQUEST,
    "ModelError": ErrorCategory.SERVER,
    "ServiceUnavailable": ErrorCategory.SERVER,
    "InvalidStatus": ErrorCategory.CONNECTIVITY,
    "TimeoutError": ErrorCategory.CONNECTIVITY,
    "OSError": ErrorCategory.CONNECTIVITY,
    "ConnectionError": ErrorCategory.CONNECTIVITY,
}


@dataclass
class KokoroErrorFrame(ErrorFrame):
    """An `error` the Kokoro server sent: `code` as the server named it, `error` its message.

    Bad input is reported as APPLICATION (not permanent: the service keeps working, as the
    server's session does); a fatal server error ends the session, which then reconnects."""

    code: str = ""
    server_fatal: bool = False
    sentence_index: int | None = None
    sentence_text: str | None = None


def server_error_frame(error: ServerError) -> KokoroErrorFrame:
    return KokoroErrorFrame(
        error=error.describe(),
        code=error.code,
        server_fatal=error.fatal,
        sentence_index=error.index,
        sentence_text=error.text,
        category=_CATEGORY.get(error.code, ErrorCategory.UNKNOWN),
    )


def failure_category(code: str) -> ErrorCategory:
    """The category of a kokoro_stream `TtsFailure` code (what ended the session)."""
    return _FAILURE_CATEGORY.get(code, ErrorCategory.UNKNOWN)


def open_failure_category(exc: BaseException) -> ErrorCategory:
    """The category of the first exception in the chain whose class (or a base) is known."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        for cls in type(current).__mro__:
            if cls.__name__ in _OPEN_CATEGORY:
                return _OPEN_CATEGORY[cls.__name__]
        current = error_cause(current)
    return ErrorCategory.UNKNOWN
