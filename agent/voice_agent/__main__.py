"""`python -m voice_agent`: serve the agent (0.0.0.0:8080 in a container; HOST/PORT override)."""

from __future__ import annotations

import uvicorn

from .app import create_app
from .settings import AgentSettings


def main() -> None:
    settings = AgentSettings.from_env()
    uvicorn.run(create_app(settings), host=settings.host, port=settings.port, log_level="info")


if __name__ == "__main__":
    main()
