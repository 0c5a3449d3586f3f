"""A client of the server's phonemes format (`POST /invocations` with "format": "phonemes")."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx

# Stress, length-neutral marks, spaces and punctuation: how it is said, not what is said.
_PROSODY = re.compile(r"[ˈˌ\s.,;:!?¿¡—…\"“”«»()\-]")


def phonemes(client: httpx.Client, text: str, **fields: Any) -> dict[str, Any]:
    response = client.post(
        "/invocations", content=json.dumps({"text": text, "format": "phonemes", **fields})
    )
    assert response.status_code == 200, response.text
    return response.json()


def said(phonemes_text: str) -> str:
    """The phonemes with stress and punctuation aside."""
    return _PROSODY.sub("", phonemes_text)
