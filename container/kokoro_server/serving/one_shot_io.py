"""The one-shot route's side of HTTP: a body read within its bound, a caller who hangs up.

- `read_capped_body`: a declared Content-Length over the bound is refused before anything is
  read; a chunked (or lying) body is read as it arrives and refused as soon as it passes
  the bound: the server holds at most one network read beyond it, and uvicorn discards the
  rest of the body unbuffered once the 413 went out (the connection stays usable).
- `OneShotCall`: a request in synthesis, counted by admission control like a session.
- `unless_client_leaves`: runs the synthesis while waiting for the ASGI `http.disconnect`
  that uvicorn delivers when the caller closes its connection; the synthesis is cancelled
  then, which stops the model call in progress and drops the sentences behind it
  (SynthesisService.synthesize: a cancelled waiter stops its job).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable

from starlette.requests import Request


class OneShotCall:
    """A one-shot request between its admission and its answer, among the calls admission
    control counts (capacity.Admitted): it needs synthesis all along and has sent no audio
    until it answers, so it counts as speaking and as starting, as a session would."""

    demanding = True
    starting = True


class ClientLeft(Exception):
    """The caller closed its connection before its answer was ready."""


async def read_capped_body(request: Request, limit: int) -> bytes | None:
    """The whole body, or None as soon as it is known to exceed `limit` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        return None
    parts: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None  # uvicorn discards what still arrives once the 413 went out
        parts.append(chunk)
    return b"".join(parts)


async def _until_disconnect(request: Request) -> None:
    # The body was read in full: the next ASGI message is the disconnect (uvicorn also sends
    # one once the response went out, by when this waiter is cancelled).
    while (await request.receive())["type"] != "http.disconnect":
        pass


async def unless_client_leaves[T](request: Request, work: Awaitable[T]) -> T:
    """`work`'s result; raises ClientLeft, with `work` cancelled, if the caller hangs up first."""
    task = asyncio.ensure_future(work)
    watcher = asyncio.ensure_future(_until_disconnect(request))
    try:
        await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        watcher.cancel()
        if not task.done():
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
    if not task.done():
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task  # its model call is stopped and its queued sentences discarded
        raise ClientLeft
    return task.result()
