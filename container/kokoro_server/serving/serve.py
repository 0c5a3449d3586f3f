"""`serve`: start the server with uvicorn (SageMaker runs `docker run IMAGE serve`)."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

import uvicorn

from kokoro_server import logs
from kokoro_server.config import Settings
from kokoro_server.serving.app import create_app
from kokoro_server.serving.connections import AbortableWebSocketProtocol, header_timeout_protocol
from kokoro_server.serving.drain import DrainingServer

log = logging.getLogger("kokoro.serve")


def parse_args(argv: list[str]) -> argparse.Namespace:
    # SageMaker passes "serve" as the first argument; the ENTRYPOINT is already `serve`.
    if argv and argv[0] == "serve":
        argv = argv[1:]
    parser = argparse.ArgumentParser(prog="serve", description="Kokoro-82M TTS server")
    parser.add_argument("--host", help="bind address (default KOKORO_HOST or 0.0.0.0)")
    parser.add_argument("--port", type=int, help="port (default KOKORO_PORT or 8080)")
    parser.add_argument("--log-level", default="INFO")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    logs.configure(args.log_level.upper())
    settings = Settings.from_env()
    host = args.host or settings.host
    port = args.port or settings.port
    log.info("starting", extra={"fields": {"host": host, "port": port}})
    config = uvicorn.Config(
        create_app(settings),
        host=host,
        port=port,
        log_config=None,  # keep our JSON logs
        access_log=False,
        **uvicorn_options(settings),
    )
    DrainingServer(config, settings.drain_s).run()


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """How uvicorn runs the app, beyond address and logging (the tests serve it the same way)."""
    return {
        "http": header_timeout_protocol(settings.header_timeout_s),
        "ws": AbortableWebSocketProtocol,
        "ws_max_size": settings.max_frame_bytes * 4,  # oversize frames get a protocol error first
        # Audio barely compresses (pcm 26 %, mp3/opus 5-8 %) and deflating it was 60 % of the
        # server's CPU per audio second for pcm (docs/performance.md; bench/results/cpu_cost.json).
        "ws_per_message_deflate": False,
        "ws_ping_interval": 20.0,
        "ws_ping_timeout": 20.0,
        "timeout_keep_alive": settings.keep_alive_s,
    }


if __name__ == "__main__":
    main()
