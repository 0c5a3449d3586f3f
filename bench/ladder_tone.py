"""`python -m bench.ladder_tone --port N`: the server with the tone test double, as its own process.

The real container app, thread pool and admission control, with `devkit.tone`'s sine engine
in place of the model (a fixed sleep per sentence stands for inference). The load ladder's
`--target tone` runs it as a child process, so the server's CPU time is its own, apart from
the callers'. Settings come from KOKORO_* variables, as for `container/serve`.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import sys

import uvicorn

from devkit.tone import ToneSynthesisService
from kokoro_server.config import Settings
from kokoro_server.serving.app import create_app
from kokoro_server.serving.serve import uvicorn_options


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ladder_tone", description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--delay-ms", type=float, default=30.0, help="sleep per sentence")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    settings = dataclasses.replace(Settings.from_env(), host="127.0.0.1", port=args.port)
    service = ToneSynthesisService(settings, delay_s=args.delay_ms / 1000)
    service.load()
    try:
        uvicorn.run(
            create_app(settings, service),
            host="127.0.0.1",
            port=args.port,
            log_config=None,
            access_log=False,
            **uvicorn_options(settings),
        )
    finally:
        service.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
