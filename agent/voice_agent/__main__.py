"""`python -m voice_agent`: serve the agent (0.0.0.0:8080 in a container; HOST/PORT override)."""

from __future__ import annotations

import os

import uvicorn

from .app import create_app


def main() -> None:
    host = os.environ.get("HOST", "0.0.0.0")  # noqa: S104 - the runtime reaches us on 8080
    port = int(os.environ.get("PORT", "8080"))
    uvicorn.run(create_app(), host=host, port=port, log_level="info")


if __name__ == "__main__":
    main()
