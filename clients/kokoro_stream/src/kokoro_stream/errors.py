"""An exception chain in words, for a log line or an error a caller reads.

Transports wrap the real error (the SageMaker SDK wraps awscrt's, websockets wraps the OS's),
so the outermost exception alone rarely says what went wrong: the description follows the
chain as a traceback would print it.
"""

from __future__ import annotations

MAX_CAUSES = 4


def describe_error(exc: BaseException, max_causes: int = MAX_CAUSES) -> str:
    """`Type: message`, followed by each cause in the chain (each once, at most `max_causes`)."""
    parts = [f"{type(exc).__name__}: {exc}"]
    seen = {id(exc)}
    cause = error_cause(exc)
    while cause is not None and id(cause) not in seen and len(parts) <= max_causes:
        parts.append(f"caused by {type(cause).__name__}: {cause}")
        seen.add(id(cause))
        cause = error_cause(cause)
    return "; ".join(parts)


def error_cause(exc: BaseException) -> BaseException | None:
    """What a traceback prints as "the above exception was the direct cause of" (or, unless
    suppressed, "during handling of the above exception")."""
    if exc.__cause__ is not None or exc.__suppress_context__:
        return exc.__cause__
    return exc.__context__
