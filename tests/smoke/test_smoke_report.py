"""The report's three figures of the deployed voice (provider, real-time factor, TTFA per
route), from the results the checks return."""

from __future__ import annotations

from smoke.diagnosis import Cause, Diagnosis
from smoke.report import figures, render
from smoke.result import CheckResult

GPU = "CUDAExecutionProvider"


def test_the_gpu_is_reported_plainly_with_the_rtf_and_each_routes_ttfa() -> None:
    results = [
        CheckResult("invoke-endpoint", 212.0, 900.0, provider=GPU, real_time_factor=0.0312),
        CheckResult("agent-runtime", 640.4, 4100.0),
    ]
    assert figures(results) == [
        f"provider         {GPU}",
        "real-time factor 0.031 (synthesis time / audio time)",
        "TTFA             invoke-endpoint 212 ms; agent-runtime 640 ms",
    ]


def test_a_cpu_provider_is_flagged_and_failed_checks_give_no_figures() -> None:
    down = Diagnosis(Cause.NO_RESPONSE, "no answer", "check the port")
    results = [
        CheckResult("invoke-endpoint", 5000.0, 9000.0, provider="CPUExecutionProvider"),
        CheckResult("bidi-stream", diagnosis=down, provider=GPU, real_time_factor=0.5),
    ]
    provider, rtf, ttfa = figures(results)
    assert provider.endswith("CPUExecutionProvider  <- NOT the GPU: synthesis runs on the CPU")
    assert rtf == "real-time factor not measured"
    assert ttfa == "TTFA             invoke-endpoint 5000 ms"
    assert "1 of 2 checks passed" in render(results)


def test_nothing_reported_says_so() -> None:
    provider, rtf, ttfa = figures([])
    assert "not reported" in provider and rtf.endswith("not measured") and ttfa.endswith("none")
