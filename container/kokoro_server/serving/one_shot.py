"""POST /invocations with a text: one-shot synthesis, JSON in, one audio file out.

The request is read as a session's `start` (the same fields and checks), its text cut into
sentences on the session's path (sentences.py), each synthesized as the session would, and
the PCM encoded once: one WAV header, one MP3 or Ogg Opus stream. `"format": "phonemes"`
answers what the model would be given instead of audio.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from kokoro_server.audio import encoding as audio
from kokoro_server.config import Settings
from kokoro_server.engine.model import KokoroEngine
from kokoro_server.logs import fields
from kokoro_server.serving import protocol
from kokoro_server.serving.checks import check_voice, lexicon_of
from kokoro_server.serving.messages import ClientType
from kokoro_server.serving.one_shot_io import ClientLeft, unless_client_leaves
from kokoro_server.serving.protocol import ClientMessage, ProtocolError
from kokoro_server.serving.sentences import Sentences, language_of
from kokoro_server.serving.server_state import error_response
from kokoro_server.serving.synthesis import SynthesisService, Synthesized
from kokoro_server.text.pronunciation import Lexicon, PronunciationError, written
from kokoro_server.text.segmenter import Piece

log = logging.getLogger("kokoro.app")


def nothing_to_say(text: str) -> str:
    shown = text if len(text) <= 80 else text[:77] + "..."
    return (
        f"nothing to say in {shown!r}: it holds only markup, emoji, code or control "
        "characters (docs/protocol.md)"
    )


@dataclass(frozen=True)
class OneShot:
    """A valid one-shot request, before the model is asked anything."""

    text: str
    start: ClientMessage  # its fields, read as a session's `start`
    phonemes: bool  # `"format": "phonemes"`: what the model would be given, not audio

    @property
    def format(self) -> str:
        return self.start.options.format or "wav"

    @property
    def sample_rate(self) -> int:
        return self.start.options.sample_rate or audio.DEFAULT_RATES[self.format]


def parse(body: dict[str, Any], settings: Settings) -> OneShot:
    """Raises ProtocolError with the documented codes (docs/protocol.md)."""
    text = body.get("text")
    if not isinstance(text, str) or not text.strip():
        raise ProtocolError("missing_text", "body needs a non-empty 'text' string")
    if len(text) > settings.max_text_chars:
        raise ProtocolError(
            "text_too_long", f"text of {len(text)} chars exceeds {settings.max_text_chars}"
        )
    phonemes = body.get("format") == "phonemes"
    fields_ = {k: v for k, v in body.items() if not (phonemes and k == "format")}
    start = protocol.parse_message({**fields_, "type": ClientType.START}, settings.max_text_chars)
    if start.options.frame_ms is not None:
        raise ProtocolError("bad_parameter", "frame_ms applies to the stream route only")
    call = OneShot(text, start, phonemes)
    protocol.check_combination(dataclasses.replace(start.options, format=call.format))
    return call


@dataclass(frozen=True)
class Prepared:
    """A one-shot request checked against the loaded model, cut into sentences."""

    call: OneShot
    voice: str
    lexicon: Lexicon | None
    pieces: list[Piece]


def prepare(call: OneShot, engine: KokoroEngine, settings: Settings) -> Prepared:
    """Raises ProtocolError: an unknown or malformed voice, a bad lexicon, nothing to say."""
    voice = call.start.options.voice or engine.default_voice
    check_voice(engine, voice)
    lexicon = lexicon_of(engine, call.start.lexicon) if call.start.lexicon else None
    sentences = Sentences(settings, first_clause=False, emoji=call.start.emoji or "drop")
    pieces = sentences.whole(call.text, language_of(voice))
    if not pieces:
        raise ProtocolError("nothing_to_say", nothing_to_say(call.text))
    return Prepared(call, voice, lexicon, pieces)


async def _synthesize_all(service: SynthesisService, prepared: Prepared) -> list[Synthesized]:
    """Each piece as PCM, ending with the pause its ending calls for; the file ends with the
    speech (no pause after the last piece: nothing follows it)."""
    call, last = prepared.call, len(prepared.pieces) - 1
    scale = 1.0 if call.start.pause_scale is None else call.start.pause_scale
    pcm_rate = audio.pcm_rate(call.format, call.sample_rate)
    return [
        await service.synthesize(
            piece,
            prepared.voice,
            call.start.options.speed or 1.0,
            "pcm",
            pcm_rate,
            prepared.lexicon,
            ending=piece.ending,
            pause_scale=scale if i < last else 0.0,
        )
        for i, piece in enumerate(prepared.pieces)
    ]


async def speak(
    request: Request, service: SynthesisService, engine: KokoroEngine, prepared: Prepared
) -> Response:
    """The audio file, once the request is valid and admitted."""
    call = prepared.call
    try:
        # A caller who hangs up gets no more model calls (one_shot_io.py).
        parts = await unless_client_leaves(request, _synthesize_all(service, prepared))
        if not any(part.data for part in parts):
            return error_response(400, "nothing_to_say", nothing_to_say(call.text))
        pcm = b"".join(part.data for part in parts)
        data = (await asyncio.to_thread(audio.encode_pcm, pcm, call.format, call.sample_rate)).data
    except ClientLeft:
        log.info("one-shot caller left", extra=fields(sentences=len(prepared.pieces)))
        return Response(status_code=499)  # nobody reads it: uvicorn drops it
    except PronunciationError as exc:
        return error_response(400, "bad_parameter", str(exc))
    except Exception as exc:
        log.exception("one-shot synthesis failed")
        return error_response(500, "internal", f"synthesis failed: {type(exc).__name__}")
    headers = {
        "X-Sample-Rate": str(call.sample_rate),
        "X-Audio-Duration-S": f"{sum(p.duration_s for p in parts):.3f}",
        "X-Sentences": str(len(prepared.pieces)),
        # SageMaker passes this header back to InvokeEndpoint callers as CustomAttributes
        # (`make smoke` prints the provider from it).
        "X-Amzn-SageMaker-Custom-Attributes": f"provider={engine.provider}",
    }
    return Response(data, media_type=audio.CONTENT_TYPES[call.format], headers=headers)


async def phonemes(service: SynthesisService, engine: KokoroEngine, prepared: Prepared) -> Response:
    """`"format": "phonemes"`: what the model would be given, sentence by sentence."""
    pieces = prepared.pieces
    try:
        results = [await service.phonemize(p, prepared.voice, prepared.lexicon) for p in pieces]
    except PronunciationError as exc:
        return error_response(400, "bad_parameter", str(exc))
    tokens = [len(engine.tokens(r.phonemes)) for r in results]
    sentences = [
        {
            "text": written(piece),
            "normalized": r.normalized,
            "phonemes": r.phonemes,
            "tokens": n,
            "words": [{"text": w.text, "phonemes": w.phonemes} for w in r.words],
        }
        for piece, r, n in zip(pieces, results, tokens, strict=True)
    ]
    return JSONResponse(
        {
            "normalized": " ".join(r.normalized for r in results),
            "phonemes": " ".join(r.phonemes for r in results),
            "tokens": sum(tokens),
            "language": results[0].language if results else "",
            "voice": prepared.voice,
            "sentences": sentences,
        }
    )
