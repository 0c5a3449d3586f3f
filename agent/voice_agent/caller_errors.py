"""What a failure to reach the TTS tells the caller: the cause, never the TTS's address.

The exception's own text names the internal host and port (`Connect call failed
('10.0.3.7', 8080)`, a `ws://` URL); the caller gets it with those replaced, and the agent's
log keeps the full text for the operator. The cause (a timeout, a credential or access
error) stays: it is what the caller, and the smoke test's diagnosis, act on.
"""

from __future__ import annotations

import logging
import re

from kokoro_stream.errors import describe_error

log = logging.getLogger("voice_agent.tts")

HIDDEN = "<tts address>"

_ADDRESSES = re.compile(
    r"\b(?:wss?|https?)://\S+"  # a URL
    r"|\(\s*'[^']*'\s*,\s*\d+(?:\s*,\s*\d+)*\s*\)"  # a socket address tuple
    r"|(?:\[[0-9A-Fa-f:.]+\]|localhost|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+):\d{1,5}\b"  # host:port
)


def without_addresses(text: str) -> str:
    return _ADDRESSES.sub(HIDDEN, text)


def tts_failure_message(what: str, exc: BaseException) -> str:
    """`what: <the exception and its causes>` for the caller; the full text goes to the
    agent's log."""
    described = describe_error(exc)
    log.warning(what, extra={"fields": {"error": described[:500]}})
    return f"{what}: {without_addresses(described)}"
