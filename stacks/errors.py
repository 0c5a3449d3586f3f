"""The one kind of error the CDK app reports as a single line (app.py) instead of a traceback.

Every check that refuses a configuration before anything is created (bad context values, a
region that does not exist, a Dockerfile without the streaming label, an unpinned weights
file, synth-as-deploy without an account) raises a subclass: its message is the whole story,
with the fix in it. No CDK import here.
"""

from __future__ import annotations


class DeployCheckError(ValueError):
    """A configuration the deploy would fail on; the message says what to change."""
