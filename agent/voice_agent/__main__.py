"""`python -m voice_agent`: serve the agent (0.0.0.0:8080 in a container; HOST/PORT override)."""

from __future__ import annotations

import os
import sys

import uvicorn

from .app import create_app


def main() -> None:
    host = os.environ.get("HOST", "0.0.0.0")  # noqa: S104 - the runtime reaches us on 8080
    port = int(os.environ.get("PORT", "8080"))
    try:
        app = create_app()
    except ValueError as exc:  # configuration: refuse to start, say what is missing
        sys.exit(f"voice_agent: cannot start: {exc}")
    uvicorn.run(app, host=host, port=port, log_level="info")


if __name__ == "__main__":
    main()
