"""The printed report: one table row per check, then each failure's diagnosis."""

from __future__ import annotations

from smoke.diagnosis import Diagnosis
from smoke.result import CheckResult

HEADER = f"{'check':<16}{'result':<8}{'first audio':>13}{'total':>12}  detail"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f} ms"


def row(result: CheckResult) -> str:
    verdict = "PASS" if result.diagnosis is None else "FAIL"
    detail = result.detail if result.diagnosis is None else str(result.diagnosis.cause)
    return (
        f"{result.name:<16}{verdict:<8}{_ms(result.first_audio_ms):>13}"
        f"{_ms(result.total_ms):>12}  {detail}"
    )


def explain(title: str, diagnosis: Diagnosis) -> str:
    return f"{title}: {diagnosis.cause}\n  what: {diagnosis.summary}\n  do:   {diagnosis.advice}"


def figures(results: list[CheckResult]) -> list[str]:
    """The three figures of the deployed voice: provider, real-time factor, TTFA per route."""
    passed = [r for r in results if r.ok]
    providers = sorted({r.provider for r in passed if r.provider})
    rtf = [r.real_time_factor for r in passed if r.real_time_factor is not None]
    ttfa = [f"{r.name} {_ms(r.first_audio_ms)}" for r in passed if r.first_audio_ms is not None]
    provider = ", ".join(providers) or "not reported (run the invoke check; older image?)"
    if providers and any(p != "CUDAExecutionProvider" for p in providers):
        provider += "  <- NOT the GPU: synthesis runs on the CPU"
    return [
        f"provider         {provider}",
        "real-time factor "
        + (f"{rtf[0]:.3f} (synthesis time / audio time)" if rtf else "not measured"),
        "TTFA             " + ("; ".join(ttfa) or "none"),
    ]


def render(results: list[CheckResult], setup: Diagnosis | None = None) -> str:
    if setup is not None:
        return explain("cannot run the smoke check", setup)
    lines = [HEADER, *(row(r) for r in results), "", *figures(results)]
    for result in results:
        if result.diagnosis is not None:
            lines += ["", explain(result.name, result.diagnosis)]
    passed = sum(r.ok for r in results)
    lines += ["", f"{passed} of {len(results)} checks passed"]
    return "\n".join(lines)
