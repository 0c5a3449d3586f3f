"""An independent check of a SigV4 query-string (presigned) signature, written from AWS's
published algorithm (Signature Version 4: canonical request, string to sign, derived signing
key), so a presigned URL is verified without the code that produced it."""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import parse_qsl, quote, urlsplit


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def expected_signature(url: str, secret_key: str, region: str, service: str) -> str:
    """The signature the URL must carry, for a GET signed over the host header only."""
    parts = urlsplit(url.replace("wss://", "https://", 1))
    params = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)]
    unsigned = sorted((k, v) for k, v in params if k != "X-Amz-Signature")
    canonical_query = "&".join(
        f"{quote(k, safe='-_.~')}={quote(v, safe='-_.~')}" for k, v in unsigned
    )
    amz_date = dict(params)["X-Amz-Date"]
    scope = f"{amz_date[:8]}/{region}/{service}/aws4_request"
    canonical_request = "\n".join(
        [
            "GET",
            quote(parts.path, safe="/~"),  # each segment encoded twice for non-S3 services
            canonical_query,
            f"host:{parts.netloc}\n",
            "host",
            hashlib.sha256(b"").hexdigest(),
        ]
    )
    string_to_sign = "\n".join(
        [
            "AWS4-HMAC-SHA256",
            amz_date,
            scope,
            hashlib.sha256(canonical_request.encode()).hexdigest(),
        ]
    )
    key = _hmac(f"AWS4{secret_key}".encode(), amz_date[:8])
    for part in (region, service, "aws4_request"):
        key = _hmac(key, part)
    return hmac.new(key, string_to_sign.encode(), hashlib.sha256).hexdigest()
