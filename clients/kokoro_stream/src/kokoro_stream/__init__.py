"""Client of the Kokoro bidirectional session protocol (v1, v1.1 words): message builders,
the frame decoder, typed server events and two transports.

`kokoro_stream.websocket.WebSocketTts` (a container's WebSocket route) needs only
`websockets`; `kokoro_stream.sagemaker.SageMakerBidiTts` (SageMaker's HTTP/2 bidirectional
stream, the `sagemaker` extra) loads the AWS SDK, awscrt and botocore when it is imported, and
nothing here imports it.
"""

from .base import (
    FrameDecoder,
    ProtocolMessages,
    TtsConnectionLost,
    TtsSession,
    TtsTransport,
)
from .errors import describe_error
from .events import (
    CONTROL_EVENTS,
    Cancelled,
    ControlEvent,
    Flushed,
    SentenceStart,
    ServerError,
    SessionEnd,
    SessionOptions,
    SynthesisComplete,
    TtsAudio,
    TtsEvent,
    TtsFailure,
    TtsProtocolError,
    TtsWord,
    TtsWords,
    UnknownControl,
)
from .messages import (
    DEFAULT_SAMPLE_RATE,
    SERVER_SAMPLE_RATES,
    SPEED_RANGE,
    ClientMessageType,
    control_message,
    server_sample_rate,
    text_message,
)
from .voices import VoiceInfo, VoiceList, VoiceListError

__all__ = [
    "CONTROL_EVENTS",
    "DEFAULT_SAMPLE_RATE",
    "SERVER_SAMPLE_RATES",
    "SPEED_RANGE",
    "Cancelled",
    "ClientMessageType",
    "ControlEvent",
    "Flushed",
    "FrameDecoder",
    "ProtocolMessages",
    "SentenceStart",
    "ServerError",
    "SessionEnd",
    "SessionOptions",
    "SynthesisComplete",
    "TtsAudio",
    "TtsConnectionLost",
    "TtsEvent",
    "TtsFailure",
    "TtsProtocolError",
    "TtsSession",
    "TtsTransport",
    "TtsWord",
    "TtsWords",
    "UnknownControl",
    "VoiceInfo",
    "VoiceList",
    "VoiceListError",
    "control_message",
    "describe_error",
    "server_sample_rate",
    "text_message",
]
