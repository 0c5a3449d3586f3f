"""What one run looks at: the app, account, region, clients and known image tags."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from teardown.aws import Clients
from teardown.manifests import ImageRef


def stderr_progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass
class Scope:
    app_name: str
    region: str
    account: str
    clients: Clients
    # The CDK bootstrap container-assets repository, when the run needs its name (image tags
    # from --image-tag, or none known); None when cdk.out names every repository.
    bootstrap_repo: str | None
    image_refs: set[ImageRef] = field(default_factory=set)
    # Where image_refs came from, for the report ("cdk.out/*.assets.json", "--image-tag").
    image_ref_sources: list[str] = field(default_factory=list)
    # Explicit --stack names; empty means discover by tag and name prefix.
    stack_names: list[str] = field(default_factory=list)
    # --keep-weights-bucket: report the retained bucket, never delete it (a deploy reuses it).
    keep_weights_bucket: bool = False
    progress: Callable[[str], None] = stderr_progress
