"""Load botocore's service data once per test process.

botocore loads and parses a service's JSON model again for every new session (each session
has its own loader, with its own cache and its own directory scans), and the cleanup, smoke
and SageMaker tests start hundreds of sessions: every CLI run builds its own. That was about
a third of those tests' time. Here every session gets the one loader for its data path.
botocore treats loaded data as read-only (one loader already hands the same dict to every
client of a session), so sharing the loader changes nothing but the time.
"""

from __future__ import annotations

import functools

import botocore.session
from botocore.loaders import Loader, create_loader


@functools.cache
def _shared_loader(search_path_string: str | None = None) -> Loader:
    return create_loader(search_path_string)


def share_loaded_models() -> None:
    botocore.session.create_loader = _shared_loader
