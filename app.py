#!/usr/bin/env python3
"""CDK entry point: `npx cdk synth|deploy|destroy` (see docs/deploy.md).

A configuration the deploy would fail on is refused before anything is built, as one line on
stderr with the fix in it (exit status 1), not a Python traceback around that line.
"""

import sys

from stacks.app_builder import build_app
from stacks.errors import DeployCheckError

try:
    build_app().synth()
except DeployCheckError as exc:
    sys.exit(f"kokoro-voice: {exc}")
