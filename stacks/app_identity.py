"""How resources of this app are named and tagged on AWS: one definition for the CDK app and
the cleanup command (teardown), which finds them by the same tag and name. No CDK import
here, so the cleanup command stays light."""

from __future__ import annotations

import re

# The one tag key every resource of the app carries (value: the app name).
APP_TAG_KEY = "app"
DEFAULT_APP_NAME = "kokoro-voice"
# The app name becomes part of stack, endpoint, role and repository names.
APP_NAME_PATTERN = re.compile(r"^[a-z][a-z0-9-]{0,30}[a-z0-9]$")
APP_NAME_RULE = "2-32 lower-case letters, digits or '-', starting with a letter"
