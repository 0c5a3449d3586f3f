"""`python -m voice_agent`: serve the agent (0.0.0.0:8080 in a container; HOST/PORT override)."""

from __future__ import annotations

import sys

import uvicorn

from .app import create_app
from .settings import AgentSettings


def main() -> None:
    try:
        settings = AgentSettings.from_env()
        app = create_app(settings)
    except ValueError as exc:  # configuration: refuse to start, say what is missing
        sys.exit(f"voice_agent: cannot start: {exc}")
    uvicorn.run(app, host=settings.host, port=settings.port, log_level="info")


if __name__ == "__main__":
    main()
