"""Client of the Kokoro bidirectional session protocol (v1, v1.1 words): message builders,
the frame decoder, word events and two transports.

`kokoro_stream.websocket.WebSocketTts` (a container's WebSocket route) needs only
`websockets`; `kokoro_stream.sagemaker.SageMakerBidiTts` (SageMaker's HTTP/2 bidirectional
stream, the `sagemaker` extra) loads the AWS SDK, awscrt and botocore when it is imported, and
nothing here imports it.
"""

from .base import (
    FrameDecoder,
    ProtocolMessages,
    TtsAudio,
    TtsConnectionLost,
    TtsControl,
    TtsEvent,
    TtsFailure,
    TtsProtocolError,
    TtsSession,
    TtsTransport,
    TtsWord,
    TtsWords,
    start_message,
)
from .messages import (
    DEFAULT_SAMPLE_RATE,
    SERVER_SAMPLE_RATES,
    SPEED_RANGE,
    ClientMessageType,
    ServerMessageType,
    control_message,
    server_sample_rate,
    text_message,
)

__all__ = [
    "DEFAULT_SAMPLE_RATE",
    "SERVER_SAMPLE_RATES",
    "SPEED_RANGE",
    "ClientMessageType",
    "FrameDecoder",
    "ProtocolMessages",
    "ServerMessageType",
    "TtsAudio",
    "TtsConnectionLost",
    "TtsControl",
    "TtsEvent",
    "TtsFailure",
    "TtsProtocolError",
    "TtsSession",
    "TtsTransport",
    "TtsWord",
    "TtsWords",
    "control_message",
    "server_sample_rate",
    "start_message",
    "text_message",
]
