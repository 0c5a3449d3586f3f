"""HTTP and WebSocket routes of the SageMaker container (its fixed contract: docs/container.md).

- GET  /ping                               200 once the model loaded and warmed up, else 503
- POST /invocations                        one-shot synthesis: JSON in, audio out
- GET  /voices                             the loaded voices and the blend syntax
- WS   /invocations-bidirectional-stream   session protocol v1 (see session.py)

Handlers only translate between HTTP/WebSocket and the session/synthesis objects.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from kokoro_server.audio import encoding as audio
from kokoro_server.config import Settings
from kokoro_server.engine.model import KokoroEngine
from kokoro_server.logs import fields
from kokoro_server.model_facts import (
    BLEND_SYNTAX,
    MAX_BLEND_VOICES,
    UnknownVoiceError,
    VoiceSpecError,
)
from kokoro_server.serving import protocol
from kokoro_server.serving.capacity import Admitted, over_capacity
from kokoro_server.serving.connections import ABORT_EXTENSION
from kokoro_server.serving.messages import ClientType
from kokoro_server.serving.one_shot_io import (
    ClientLeft,
    OneShotCall,
    read_capped_body,
    unless_client_leaves,
)
from kokoro_server.serving.protocol import ClientMessage, ProtocolError
from kokoro_server.serving.session import Session, TransportClosed
from kokoro_server.serving.synthesis import SynthesisService, Synthesized
from kokoro_server.text.languages import LANGUAGES
from kokoro_server.text.markdown import MarkdownSpeech
from kokoro_server.text.pronunciation import Lexicon, PronunciationError, written
from kokoro_server.text.segmenter import Piece, SentenceSegmenter

log = logging.getLogger("kokoro.app")

MAX_BODY_BYTES = 256 * 1024


class StarletteTransport:
    """Adapts a Starlette WebSocket to the session's Transport protocol."""

    def __init__(self, websocket: WebSocket) -> None:
        self.websocket = websocket

    async def receive(self) -> str | bytes:
        try:
            message = await self.websocket.receive()
        except (WebSocketDisconnect, RuntimeError) as exc:
            raise TransportClosed(str(exc)) from exc
        if message["type"] == "websocket.disconnect":
            raise TransportClosed(f"client closed ({message.get('code')})")
        if message.get("text") is not None:
            return str(message["text"])
        return message.get("bytes") or b""

    async def send_text(self, data: str) -> None:
        await self.websocket.send_text(data)

    async def send_bytes(self, data: bytes) -> None:
        await self.websocket.send_bytes(data)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        with contextlib.suppress(Exception):  # already closed by the peer
            await self.websocket.close(code, reason)

    def abort(self) -> None:
        """Drop the connection now, unsent data and all (a peer that stopped reading would
        keep a closed socket open forever). Without the server's abort extension (another
        ASGI server): closed as well as it can be, by the session ending."""
        extension = self.websocket.scope.get("extensions", {}).get(ABORT_EXTENSION)
        if extension is not None:
            extension["abort"]()


def _error_response(
    status: int, code: str, message: str, retry_after_s: int | None = None
) -> JSONResponse:
    headers = {} if retry_after_s is None else {"Retry-After": str(retry_after_s)}
    return JSONResponse(
        {"error": {"code": code, "message": message}}, status_code=status, headers=headers
    )


def _nothing_to_say(text: str) -> str:
    shown = text if len(text) <= 80 else text[:77] + "..."
    return (
        f"nothing to say in {shown!r}: it holds only markup, emoji, code or control "
        "characters (docs/protocol.md)"
    )


_GENDERS = {"f": "female", "m": "male"}


def _voice_entry(name: str, user_file: bool) -> dict[str, Any]:
    """A voice as GET /voices lists it: Kokoro's names say language and gender (`af_`);
    `user_file`: from KOKORO_USER_VOICES_DIR, not the official voice file."""
    return {
        "name": name,
        "language": LANGUAGES.get(name[:1]),
        "gender": _GENDERS.get(name[1:2]),
        "user_file": user_file,
    }


def _refusal(
    settings: Settings, service: SynthesisService, sessions: set[Admitted], draining: bool
) -> tuple[str, str]:
    """Why a new session must get `busy` now, as (cause, message), or ("", "").

    cause: "draining", "session_limit", "overload" or "starting" (the "session refused"
    record)."""
    if draining:
        return "draining", "server shutting down; retry (another instance takes new sessions)"
    if len(sessions) >= settings.max_sessions:
        return (
            "session_limit",
            f"server at its limit of {settings.max_sessions} sessions; retry later",
        )
    # Speaking, or admitted and about to speak: never the cancelled, finished or gone.
    demanding = sum(1 for session in sessions if session.demanding)
    streams = service.capacity_streams()
    if over_capacity(demanding, streams, settings.max_load):
        return "overload", (
            f"server over capacity: {demanding} sessions speaking or about to, synthesis "
            f"sustains about {streams:.1f} real-time streams; retry later"
        )
    starting = sum(1 for session in sessions if session.starting)
    if settings.max_starting and streams is not None and starting >= settings.max_starting:
        return "starting", (
            f"server busy: {starting} sessions still waiting for their first audio "
            f"(limit {settings.max_starting}); retry later"
        )
    return "", ""


def create_app(
    settings: Settings | None = None, service: SynthesisService | None = None
) -> Starlette:
    settings = settings or Settings.from_env()
    owns_service = service is None  # tests share one loaded model between several apps
    service = service or SynthesisService(settings)
    # Sessions and one-shot requests in synthesis: one admission for both.
    active_sessions: set[Admitted] = set()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if service.state == "loading":
            service.start_loading()
        yield
        if owns_service:
            service.shutdown()

    async def ping(request: Request) -> Response:
        # Answers from state alone: never waits on the model.
        if service.ready:
            assert service.engine is not None
            # The provider in use, so a CPU fallback is visible from outside (bench.gpu).
            return JSONResponse(
                {
                    "status": "healthy",
                    "sessions": len(active_sessions),
                    "provider": service.engine.provider,
                }
            )
        body: dict[str, Any] = {"status": service.state}
        if service.failure:
            body["error"] = service.failure
        return JSONResponse(body, status_code=503)

    async def invocations(request: Request) -> Response:
        body = await read_capped_body(request, MAX_BODY_BYTES)
        if body is None:
            return _error_response(413, "frame_too_large", f"body exceeds {MAX_BODY_BYTES} bytes")
        try:
            obj = protocol.decode_frame(body, MAX_BODY_BYTES)
            text = obj.get("text")
            if not isinstance(text, str) or not text.strip():
                raise ProtocolError("missing_text", "body needs a non-empty 'text' string")
            if len(text) > settings.max_text_chars:
                raise ProtocolError(
                    "text_too_long", f"text of {len(text)} chars exceeds {settings.max_text_chars}"
                )
            # "phonemes" is not audio: it asks what the model would be given (see below).
            wants_phonemes = obj.get("format") == "phonemes"
            fields_ = {k: v for k, v in obj.items() if not (wants_phonemes and k == "format")}
            start = protocol.parse_message(
                {**fields_, "type": ClientType.START}, settings.max_text_chars
            )
            if start.options.frame_ms is not None:
                raise ProtocolError("bad_parameter", "frame_ms applies to the stream route only")
            fmt = start.options.format or "wav"
            protocol.check_combination(dataclasses.replace(start.options, format=fmt))
        except ProtocolError as exc:
            return _error_response(400, exc.code, exc.message)
        if not service.ready:
            return _error_response(503, "not_ready", f"model is {service.state}")
        engine = service.engine
        assert engine is not None
        voice = start.options.voice or engine.default_voice
        try:
            engine.check_voice(voice)
            lexicon = Lexicon(start.lexicon, engine.vocab, "lexicon") if start.lexicon else None
        except UnknownVoiceError as exc:
            return _error_response(400, "unknown_voice", str(exc))
        except (VoiceSpecError, PronunciationError) as exc:
            return _error_response(400, "bad_parameter", str(exc))
        # Markdown read as the stream reads it, then sentence by sentence, like the stream, so
        # no chunk exceeds the phoneme limit.
        plain = MarkdownSpeech(emoji=start.emoji or "drop").convert(
            text, LANGUAGES.get(voice[:1], "en-us")
        )
        segmenter = SentenceSegmenter(first_clause=False, max_chars=settings.max_segment_chars)
        pieces = segmenter.feed(plain) + segmenter.flush()
        if not pieces:
            return _error_response(400, "nothing_to_say", _nothing_to_say(text))
        if wants_phonemes:
            return await _phonemes_response(pieces, voice, lexicon)
        cause, refusal = _refusal(settings, service, active_sessions, app.state.draining)
        if refusal:
            log.warning(
                "session refused",
                extra=fields(
                    cause=cause, reason=refusal, active=len(active_sessions), route="one-shot"
                ),
            )
            return _error_response(503, "busy", refusal, retry_after_s=1)
        call = OneShotCall()
        active_sessions.add(call)
        try:
            return await _speak(request, engine, text, pieces, voice, lexicon, start)
        finally:
            active_sessions.discard(call)

    async def _speak(
        request: Request,
        engine: KokoroEngine,
        text: str,
        pieces: list[Piece],
        voice: str,
        lexicon: Lexicon | None,
        start: ClientMessage,
    ) -> Response:
        """The one-shot route's audio, once the request is valid and admitted."""
        fmt = start.options.format or "wav"
        rate = start.options.sample_rate or audio.DEFAULT_RATES[fmt]
        speed = start.options.speed or 1.0
        # PCM per sentence, encoded once: one WAV header, one MP3 or Ogg Opus stream.
        pcm_rate = audio.pcm_rate(fmt, rate)
        scale = 1.0 if start.pause_scale is None else start.pause_scale
        last = len(pieces) - 1

        async def synthesize_all() -> list[Synthesized]:
            # Each piece ends with the pause its ending calls for; the file ends with the
            # speech (no pause after the last piece: nothing follows it).
            return [
                await service.synthesize(
                    p,
                    voice,
                    speed,
                    "pcm",
                    pcm_rate,
                    lexicon,
                    ending=p.ending,
                    pause_scale=scale if i < last else 0.0,
                )
                for i, p in enumerate(pieces)
            ]

        try:
            # A caller who hangs up gets no more model calls (one_shot_io.py).
            pcm_parts = await unless_client_leaves(request, synthesize_all())
            if not any(part.data for part in pcm_parts):
                return _error_response(400, "nothing_to_say", _nothing_to_say(text))
            pcm = b"".join(part.data for part in pcm_parts)
            data = (await asyncio.to_thread(audio.encode_pcm, pcm, fmt, rate)).data
        except ClientLeft:
            log.info("one-shot caller left", extra=fields(sentences=len(pieces)))
            return Response(status_code=499)  # nobody reads it: uvicorn drops it
        except PronunciationError as exc:
            return _error_response(400, "bad_parameter", str(exc))
        except Exception as exc:
            log.exception("one-shot synthesis failed")
            return _error_response(500, "internal", f"synthesis failed: {type(exc).__name__}")
        headers = {
            "X-Sample-Rate": str(rate),
            "X-Audio-Duration-S": f"{sum(p.duration_s for p in pcm_parts):.3f}",
            "X-Sentences": str(len(pieces)),
            # SageMaker passes this header back to InvokeEndpoint callers as CustomAttributes
            # (`make smoke` prints the provider from it).
            "X-Amzn-SageMaker-Custom-Attributes": f"provider={engine.provider}",
        }
        return Response(data, media_type=audio.CONTENT_TYPES[fmt], headers=headers)

    async def _phonemes_response(
        pieces: list[Piece], voice: str, lexicon: Lexicon | None
    ) -> Response:
        """`"format": "phonemes"`: what the model would be given, sentence by sentence."""
        engine = service.engine
        assert engine is not None
        try:
            results = [await service.phonemize(p, voice, lexicon) for p in pieces]
        except PronunciationError as exc:
            return _error_response(400, "bad_parameter", str(exc))
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
                "voice": voice,
                "sentences": sentences,
            }
        )

    async def voices(request: Request) -> Response:
        if not service.ready:
            return _error_response(503, "not_ready", f"model is {service.state}")
        engine = service.engine
        assert engine is not None
        # The tone test double (devkit/tone.py) has no user voices.
        user_voices = engine.user_voices
        return JSONResponse(
            {
                "voices": [_voice_entry(name, name in user_voices) for name in engine.voice_names],
                "default": engine.default_voice,
                "max_blend": MAX_BLEND_VOICES,
                "blend_syntax": BLEND_SYNTAX,
            }
        )

    async def bidirectional(websocket: WebSocket) -> None:
        await websocket.accept()  # at once: SageMaker's sidecar expects it within 250 ms
        transport = StarletteTransport(websocket)
        cause, refusal = _refusal(settings, service, active_sessions, app.state.draining)
        if refusal:
            await websocket.send_text(protocol.error("busy", refusal, fatal=True))
            await transport.close(1013, "busy")
            log.warning(
                "session refused",
                extra=fields(cause=cause, reason=refusal, active=len(active_sessions)),
            )
            return
        try:
            engine = await service.wait_ready()
        except RuntimeError as exc:
            await websocket.send_text(protocol.error("not_ready", str(exc), fatal=True))
            await transport.close(1011, "model unavailable")
            return
        session = Session(transport, service, settings, engine.default_voice)
        active_sessions.add(session)
        try:
            await session.run()
        except Exception:
            log.exception("session crashed", extra=fields(session=session.id))
            with contextlib.suppress(Exception):
                await websocket.send_text(protocol.error("internal", "server error", fatal=True))
            await transport.close(1011, "internal error")
        finally:
            active_sessions.discard(session)

    app = Starlette(
        routes=[
            Route("/ping", ping, methods=["GET"]),
            Route("/invocations", invocations, methods=["POST"]),
            Route("/voices", voices, methods=["GET"]),
            WebSocketRoute("/invocations-bidirectional-stream", bidirectional),
        ],
        lifespan=lifespan,
    )
    app.state.service = service
    app.state.settings = settings
    app.state.active_sessions = active_sessions
    app.state.draining = False  # set by serving/drain.py on SIGTERM
    return app
