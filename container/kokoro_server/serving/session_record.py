"""A session's accounting (the "session end" record, docs/monitoring.md) and its liveness
(what admission, drain and the idle expiry ask of it)."""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass, field
from typing import Literal

from kokoro_server.logs import fields

log = logging.getLogger("kokoro.session")

_LOGGED_BAD_FRAMES = 5

Ended = Literal["close", "hang-up", "idle", "stalled", "drained", "error"]


@dataclass
class SessionRecord:
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    request_id: str | None = None
    started_at: float = field(default_factory=time.perf_counter)
    pending: int = 0  # accepted sentences of this generation not yet fully sent
    next_index: int = 0
    unspoken: int = 0  # indices given to sentences that were reported, not spoken
    audio_s: float = 0.0
    # From the first text to the first audio frame.
    first_text_at: float | None = None
    first_sound_at: float | None = None
    dropped: int = 0  # sentences cancelled
    bad_frames: int = 0
    ended: Ended = "hang-up"

    def log(self, msg: str, **values: object) -> None:
        log.info(msg, extra=fields(session=self.id, request_id=self.request_id, **values))

    def bad_frame(self, code: str, reason: str) -> None:
        """One log line for each of a session's first bad frames, none after (a client
        looping on a mistake must not flood the log); the count is in "session end"."""
        self.bad_frames += 1
        if self.bad_frames < _LOGGED_BAD_FRAMES:
            self.log("bad frame", code=code, reason=reason)
        elif self.bad_frames == _LOGGED_BAD_FRAMES:
            self.log("bad frame (later ones are counted, not logged)", code=code, reason=reason)

    def log_end(self) -> None:
        first_sound = None
        if self.first_text_at is not None and self.first_sound_at is not None:
            first_sound = round((self.first_sound_at - self.first_text_at) * 1000, 1)
        self.log(
            "session end",
            sentences=self.next_index,
            audio_s=round(self.audio_s, 3),
            seconds=round(time.perf_counter() - self.started_at, 3),
            first_sound_ms=first_sound,
            unspoken=self.unspoken,
            dropped=self.dropped,
            bad_frames=self.bad_frames,
            ended=self.ended,
        )


@dataclass
class Liveness:
    """Progress: the last client message or audio the client accepted (idle expiry), and
    since when a write has been waiting for a client that does not read.

    Admission counts a session from the moment it is admitted, before it speaks, so a burst
    of new sessions cannot all pass the check while none is speaking yet. The hold ends with
    the first text, a cancel, close, or after admission_hold_s."""

    held_until: float
    last_progress: float = field(default_factory=time.perf_counter)
    writing_since: float | None = None
    gone: bool = False  # ended or the peer left: counts for nothing any more
    shutting_down: bool = False  # the server is draining and told this session to go

    def progressed(self) -> None:
        self.last_progress = time.perf_counter()

    def blocked_s(self) -> float:
        """How long the write in progress has waited for the client to read (0: none)."""
        since = self.writing_since
        return 0.0 if since is None else time.perf_counter() - since

    def held(self) -> bool:
        return time.perf_counter() < self.held_until
