"""moto in server mode on loopback, and `python -m teardown` run against it as its own process.

The cleanup command is pointed at the server exactly as a user would point it at another
endpoint: through the standard ``AWS_ENDPOINT_URL`` variable, which botocore honours for every
client (checked by the tests against the installed botocore). moto routes each request to the
region in its SigV4 signature, so the region the CLI resolved is what decides what it sees.
"""

from __future__ import annotations

import logging
import os
import subprocess
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from moto.server import ThreadedMotoServer

from devkit.processes import run_module

REPO_ROOT = Path(__file__).resolve().parents[2]
FAKE_KEYS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}


@contextmanager
def moto_server() -> Iterator[str]:
    """A moto server on 127.0.0.1 (a free port), yielding its URL, empty on entry and exit."""
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no access log per request
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    url = f"http://{host}:{port}"
    # moto's backends are this process's globals, shared by every moto server and mock_aws in
    # it: start empty, whatever another still-running server (the smoke tests' one lives for
    # the whole session) left there.
    reset_moto(url)
    try:
        yield url
    finally:
        reset_moto(url)
        server.stop()


def reset_moto(url: str) -> None:
    """Empty moto's backends (every server and mock_aws in this process shares them)."""
    reset = urllib.request.Request(f"{url}/moto-api/reset", method="POST")
    urllib.request.urlopen(reset, timeout=10).close()


def cli_env(endpoint_url: str, home: Path, **aws: str) -> dict[str, str]:
    """A bare environment: fake keys, the endpoint, an empty HOME, no AWS config files, and
    only the AWS variables given in ``aws`` (e.g. AWS_REGION)."""
    home.mkdir(parents=True, exist_ok=True)
    return {
        "PATH": os.environ["PATH"],  # node, for aws-cdk-lib's runtime
        "HOME": str(home),
        "AWS_CONFIG_FILE": str(home / "no-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(home / "no-credentials"),
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_ENDPOINT_URL": endpoint_url,
        # aws-cdk-lib's runtime warns about this machine's Node version; `make` silences it too.
        "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20",
        **FAKE_KEYS,
        **aws,
    }


def run_cli(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``python -m teardown ARGV`` from the repository root, in its own process."""
    return run_module("teardown", argv, env, timeout_s=180)
