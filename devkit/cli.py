"""What the repository's command-line tools share: `--help` that keeps their examples on
their own lines, and one line on stderr (no traceback) when the other side is not running.

A refused connection, a name that does not resolve or a timeout is the usual state of a
developer's machine (the agent not started yet), not a bug: it gets a sentence, not a stack.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any, TextIO

import httpx
from botocore.exceptions import ConnectionError as BotoConnectionError
from botocore.exceptions import ConnectTimeoutError, EndpointConnectionError, ReadTimeoutError
from kokoro_stream.errors import describe_error
from websockets.exceptions import InvalidHandshake, InvalidURI

EXIT_UNREACHABLE = 2
# OSError covers ConnectionRefusedError, socket.gaierror (DNS) and TimeoutError.
UNREACHABLE: tuple[type[BaseException], ...] = (
    OSError,
    httpx.TransportError,
    InvalidHandshake,
    InvalidURI,
    BotoConnectionError,
    EndpointConnectionError,
    ConnectTimeoutError,
    ReadTimeoutError,
)


def parser(prog: str, doc: str | None, **options: Any) -> argparse.ArgumentParser:
    """An ArgumentParser whose description (the module docstring, with its example command
    lines) is printed as written instead of refilled into one paragraph."""
    return argparse.ArgumentParser(
        prog=prog,
        description=doc,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        **options,
    )


def unreachable_line(what: str, exc: BaseException) -> str:
    return f"error: cannot reach {what}: {describe_error(exc)}"


def exit_if_unreachable(run: Callable[[], int], what: str, err: TextIO | None = None) -> int:
    """`run()`, or one line on stderr and EXIT_UNREACHABLE if `what` cannot be reached."""
    try:
        return run()
    except UNREACHABLE as exc:
        print(unreachable_line(what, exc), file=err or sys.stderr)
        return EXIT_UNREACHABLE
