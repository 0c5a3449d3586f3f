"""Voice blends: `af_bella:2+af_sky:1` speaks with the weighted mean of two voices' styles.

A Kokoro voice is a pack of style vectors, one per input length (shape (510, 1, 256)); the
model takes one of them per call. A blend is the weighted mean of its voices' packs, the way
Kokoro-FastAPI's users mix voices: voices joined by `+`, each with an optional `:weight` (a
positive decimal number, 1 when left out), the weights normalized to sum 1. A blend's voices
speak one language (one first letter), so its spec's first letter names the language as a
voice name's does, and the text front end reads a blend as it reads each of its voices.

Each blend is computed once and kept (least recently used out first) under its canonical
spec: voices sorted, normalized weights rounded to WEIGHT_DIGITS. `af_sky+af_bella` and
`af_bella:0.5+af_sky:0.5` are one entry, and the sound is a function of that key alone.
"""

from __future__ import annotations

import logging
import math
import re
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from kokoro_server.model_facts import MAX_BLEND_VOICES, UnknownVoiceError, VoiceSpecError

log = logging.getLogger("kokoro.voices")

WEIGHT_DIGITS = 4  # normalized weights that agree to this many digits are one blend
BLEND_CACHE_SIZE = 64  # blends kept: at most 64 x 510 x 256 float32, 33 MB
_DECIMAL = re.compile(r"\d+(\.\d*)?|\.\d+")
_NOT_FINITE = ("nan", "inf", "infinity")
_SHOWN_CHARS = 80  # the most of a spec an error message quotes


def _shown(spec: str) -> str:
    return repr(spec) if len(spec) <= _SHOWN_CHARS else repr(spec[: _SHOWN_CHARS - 3] + "...")


@dataclass(frozen=True)
class Blend:
    """A voice spec as read: (voice, weight) sorted by voice, weights normalized to sum 1
    and rounded to WEIGHT_DIGITS. One voice is a blend of one, of weight 1."""

    parts: tuple[tuple[str, float], ...]

    @property
    def key(self) -> str:
        """The canonical spec: the voice's name for one voice."""
        if len(self.parts) == 1:
            return self.parts[0][0]
        return "+".join(f"{voice}:{weight:.{WEIGHT_DIGITS}f}" for voice, weight in self.parts)

    @property
    def voices(self) -> tuple[str, ...]:
        return tuple(voice for voice, _ in self.parts)


def _weight(voice: str, text: str) -> float:
    negative = text.startswith("-")
    body = text[1:] if negative else text
    if body.lower() in _NOT_FINITE:
        raise VoiceSpecError(f"weight of {voice!r} must be a finite number, not {text!r}")
    if not _DECIMAL.fullmatch(body):
        raise VoiceSpecError(
            f"weight of {voice!r} is not a number: {text!r} (a decimal such as {voice}:0.5)"
        )
    weight = float(body)
    if negative or weight == 0:
        raise VoiceSpecError(f"weight of {voice!r} must be greater than 0, not {text}")
    if not math.isfinite(weight):
        raise VoiceSpecError(f"weight of {voice!r} is too large: {text[:20]}...")
    return weight


def _part(part: str, spec: str) -> tuple[str, float]:
    """One `name` or `name:weight` of a spec."""
    if not part:
        raise VoiceSpecError(
            f"voice {_shown(spec)} has an empty part: every '+' needs a voice on each side"
        )
    voice, colon, weight = part.partition(":")
    if ":" in weight:
        raise VoiceSpecError(f"{part!r} in voice {_shown(spec)} has more than one ':'")
    if not voice:
        raise VoiceSpecError(f"{part!r} in voice {_shown(spec)} names no voice before ':'")
    if colon and not weight:
        raise VoiceSpecError(f"{part!r} in voice {_shown(spec)} has no weight after ':'")
    return voice, _weight(voice, weight) if colon else 1.0


def parse_voice(spec: str) -> Blend:
    """`spec` (`af_bella`, `af_bella+af_sky`, `af_bella:2+af_sky:1`) read for its syntax and
    weights; raises VoiceSpecError naming the problem. Whether its voices exist is not known
    here (VoiceBank.resolve)."""
    parts = spec.split("+")
    if len(parts) > MAX_BLEND_VOICES:
        raise VoiceSpecError(
            f"voice {_shown(spec)} mixes {len(parts)} voices; a blend has at most "
            f"{MAX_BLEND_VOICES}"
        )
    weights: dict[str, float] = {}
    for part in parts:
        voice, weight = _part(part, spec)
        if voice in weights:
            raise VoiceSpecError(
                f"voice {voice!r} appears twice in blend {_shown(spec)}: give it one weight"
            )
        weights[voice] = weight
    total = sum(weights.values())
    if not math.isfinite(total):
        raise VoiceSpecError(f"the weights of blend {_shown(spec)} are too large to add up")
    parts_read = []
    for voice in sorted(weights):
        share = round(weights[voice] / total, WEIGHT_DIGITS)
        if share <= 0:  # it would be left out of the key and of the sound: say so
            raise VoiceSpecError(
                f"voice {voice!r} has {weights[voice] / total:.1e} of blend {_shown(spec)}, "
                f"under {10.0**-WEIGHT_DIGITS:g}: too little to be heard; leave it out"
            )
        parts_read.append((voice, share))
    return Blend(tuple(parts_read))


def mix(voices: Mapping[str, np.ndarray], blend: Blend) -> np.ndarray:
    """The weighted mean of the blend's style packs (float32, the packs' shape)."""
    packs = [np.asarray(voices[voice], dtype=np.float64) for voice in blend.voices]
    shapes = {pack.shape for pack in packs}
    if len(shapes) > 1:
        raise VoiceSpecError(f"the voices of blend {blend.key!r} have different shapes {shapes}")
    weights = np.array([weight for _, weight in blend.parts], dtype=np.float64)
    weights /= weights.sum()  # the rounded weights: the sound depends on the key alone
    return np.tensordot(weights, np.stack(packs), axes=1).astype(np.float32)


class VoiceBank:
    """The loaded voices and the blends made of them; safe to use from several threads."""

    def __init__(
        self, voices: Mapping[str, np.ndarray], cache_size: int = BLEND_CACHE_SIZE
    ) -> None:
        self.voices = voices
        self.cache_size = cache_size
        self._blends: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.made = 0  # blends computed: each once while it stays in the cache

    def resolve(self, spec: str) -> Blend:
        """`spec` read and checked against the loaded voices: raises VoiceSpecError, or
        UnknownVoiceError naming a voice that is not loaded."""
        if spec in self.voices:
            return Blend(((spec, 1.0),))
        blend = parse_voice(spec)
        for voice in blend.voices:
            if voice not in self.voices:
                raise UnknownVoiceError(voice, sorted(self.voices))
        if len({voice[:1] for voice in blend.voices}) > 1:
            named = ", ".join(f"{voice} ({voice[:1]})" for voice in blend.voices)
            raise VoiceSpecError(
                f"blend {_shown(spec)} mixes languages: {named}; a blend's voices share their "
                "first letter (the language)"
            )
        return blend

    def styles(self, spec: str) -> np.ndarray:
        """The style pack `spec` speaks with: a voice's own, or its blend's (made once)."""
        own = self.voices.get(spec)
        if own is not None:
            return own
        blend = self.resolve(spec)
        if len(blend.parts) == 1:
            return self.voices[blend.key]
        with self._lock:  # made once, also when several sentences ask for it at once
            pack = self._blends.get(blend.key)
            if pack is not None:
                self._blends.move_to_end(blend.key)
                return pack
            pack = mix(self.voices, blend)
            self._blends[blend.key] = pack
            self.made += 1
            if len(self._blends) > self.cache_size:
                self._blends.popitem(last=False)
        log.info("voice blend made", extra={"fields": {"blend": blend.key}})
        return pack

    def cached(self, key: str) -> np.ndarray | None:
        """The blend kept under canonical `key`, if it is kept."""
        with self._lock:
            return self._blends.get(key)
