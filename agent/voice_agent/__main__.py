"""`python -m voice_agent`: serve the agent (0.0.0.0:8080 in a container; HOST/PORT override)."""

from __future__ import annotations

import sys

import uvicorn

from .app import create_app
from .settings import AgentSettings
from .turn_log import configure_logging


def main() -> None:
    configure_logging()  # JSON lines on stdout, which AgentCore ships to CloudWatch Logs
    try:
        settings = AgentSettings.from_env()
        app = create_app(settings)
    except ValueError as exc:  # configuration: refuse to start, say what is missing
        sys.exit(f"voice_agent: cannot start: {exc}")
    # log_config=None: uvicorn's records go to the JSON handler too, not its own formatters.
    uvicorn.run(app, host=settings.host, port=settings.port, log_level="info", log_config=None)


if __name__ == "__main__":
    main()
