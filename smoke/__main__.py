"""Entry point for ``python -m smoke``: the process configures logging, then runs the CLI."""

import sys

from smoke.cli import configure_logging, main

if __name__ == "__main__":
    configure_logging()
    sys.exit(main())
