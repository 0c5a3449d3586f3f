"""Entry point for ``python -m smoke``."""

import sys

from smoke.cli import main

if __name__ == "__main__":
    sys.exit(main())
