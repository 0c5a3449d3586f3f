#!/usr/bin/env python3
"""CDK entry point: `npx cdk synth|deploy|destroy` (see docs/deploy.md)."""

from stacks.app_builder import build_app

build_app().synth()
