"""The report generator on a SYNTHETIC benchmark result (made-up numbers, no model run).

Checks that the tables land between the markers, that the text around them is kept, and that
the analysis of benchmark 1 computes its ratios and server overhead from the medians.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench import report
from bench.agent_ttfa import PUBLIC_REFERENCE as AGENT_PUBLIC_REFERENCE
from bench.agent_ttfa import analyse_group
from bench.payload_sizes import base64_bytes, ws_frame_bytes
from bench.tables import agent_tables, format_markdown
from bench.tts_ttfa import analyse
from devkit.paths import REPO_ROOT

SYNTHETIC_MACHINE = {
    "date_utc": "2000-01-01T00:00:00+00:00",
    "cpu_model": "SYNTHETIC CPU (test data, not a measurement)",
    "usable_cores": 2,
    "load_average_1m_at_start": 0.5,
    "onnxruntime": "0.0.0",
    "ort_provider_in_use": ["CPUExecutionProvider"],
    "python": "3.12.0",
}

# Median TTFA per mode (seconds); every run of a mode is given the same spread around it.
SYNTHETIC_TTFA = {
    "batch": 4.0,
    "engine_whole": 5.0,
    "stream_whole": 0.9,
    "stream_deltas": 1.4,
    "first_sentence": 0.8,
    "engine_first": 0.7,
}
# Silence before the first sound: the raw model's own (~270 ms), the paced server's margin.
LEAD_S = {"engine_whole": 0.27, "engine_first": 0.27}


def synthetic_tts_ttfa_result() -> dict[str, Any]:
    samples = {
        key: [
            {
                "ttfa_s": t,
                "first_sound_s": t + LEAD_S.get(key, 0.02),
                "total_s": 4.0 + t - med,
                "audio_s": 17.0,
            }
            for t in (med - 0.1, med, med + 0.1, med + 0.2, med)
        ]
        for key, med in SYNTHETIC_TTFA.items()
    }
    labels = {key: f"label {key}" for key in samples}
    result = {
        "name": "tts_ttfa",
        "quick": False,
        "runs": 5,
        "warmup": 1,
        "target": {"kind": "local", "description": "SYNTHETIC target"},
        "machine": SYNTHETIC_MACHINE,
        "text": {
            "chars": 267,
            "sentences": ["a", "b", "c", "d"],
            "deltas": 90,
            "tokens_per_s": 40.0,
            "phonemes": 274,
        },
    }
    return result | analyse(samples, labels)


DOC = """# Title

Intro that must stay.

<!-- bench:tts_ttfa -->
old table that must go
<!-- /bench:tts_ttfa -->

Middle text that must stay.

<!-- bench:payload_sizes -->
old payload text
<!-- /bench:payload_sizes -->

Closing text.
"""


@pytest.fixture
def workspace(tmp_path: Path) -> tuple[Path, Path]:
    results = tmp_path / "results"
    results.mkdir()
    (results / "tts_ttfa.json").write_text(json.dumps(synthetic_tts_ttfa_result()))
    (results / "tts_ttfa.png").write_bytes(b"\x89PNG synthetic")
    doc = tmp_path / "docs" / "performance.md"
    doc.parent.mkdir()
    doc.write_text(DOC)
    return doc, results


def test_analysis_ratios_and_overhead_come_from_medians() -> None:
    result = synthetic_tts_ttfa_result()
    # Time to first audio is to the first sound: the raw engine's own silence counts.
    ratios = {r["label"]: r["ttfa_ratio"] for r in result["ratios"]}
    assert ratios["(b) / (a)"] == pytest.approx(0.92 / 4.02)
    assert ratios["(d) / (a)"] == pytest.approx(0.82 / 4.02)
    assert ratios["(c) / (a)"] == pytest.approx(1.42 / 4.02)
    overhead = {o["label"]: o["value_s"] for o in result["server_overhead"]}
    assert overhead["server overhead: first sound (b) - raw first sentence"] == pytest.approx(
        0.92 - 0.97
    )


def test_markers_are_replaced_and_the_rest_is_kept(workspace: tuple[Path, Path]) -> None:
    doc, results = workspace
    assert report.main(["--results-dir", str(results), "--doc", str(doc)]) == 0
    text = doc.read_text()
    for kept in ("Intro that must stay.", "Middle text that must stay.", "Closing text."):
        assert kept in text
    assert "old table that must go" not in text
    assert "old payload text" not in text
    section = text.split("<!-- bench:tts_ttfa -->")[1].split("<!-- /bench:tts_ttfa -->")[0]
    assert "SYNTHETIC CPU" in section
    assert "| (b) / (a) | 0.23 |" in section  # 0.92 / 4.02 = 0.229, shown with two decimals
    # The first sound leads (median 4020 ms), the first byte follows (4000 ms).
    assert "| label batch | 5 | 4020 | 4200 | 3920 | 4220 | 4000 |" in section
    assert "![tts_ttfa](../results/tts_ttfa.png)" in section
    # No result file for payload_sizes: its section says how to produce it.
    assert "Not measured yet: run `python -m bench.payload_sizes`" in text
    # Running again gives the same document (markers survive, nothing accumulates).
    assert report.main(["--results-dir", str(results), "--doc", str(doc)]) == 0
    assert doc.read_text() == text


def test_quick_results_are_labelled_as_such(workspace: tuple[Path, Path]) -> None:
    doc, results = workspace
    quick = synthetic_tts_ttfa_result() | {"quick": True}
    (results / "tts_ttfa.json").write_text(json.dumps(quick))
    report.update_document(doc, results)
    assert "Quick run (smoke test of the scripts): noisy" in doc.read_text()


@pytest.mark.parametrize(
    "broken",
    [
        "no markers at all",
        "<!-- bench:tts_ttfa --> only the start",
        "<!-- /bench:tts_ttfa --> end first <!-- bench:tts_ttfa -->",
        "<!-- bench:tts_ttfa -->a<!-- /bench:tts_ttfa --><!-- bench:tts_ttfa -->",
    ],
)
def test_malformed_markers_are_refused(broken: str) -> None:
    with pytest.raises(report.ReportError):
        report.replace_section(broken, "tts_ttfa", "new")


def test_unreadable_result_is_a_clear_error(workspace: tuple[Path, Path]) -> None:
    doc, results = workspace
    (results / "tts_ttfa.json").write_text("{not json")
    assert report.main(["--results-dir", str(results), "--doc", str(doc)]) == 2
    assert doc.read_text() == DOC  # nothing half-written


def test_the_real_document_has_one_section_per_benchmark() -> None:
    text = (REPO_ROOT / "docs" / "performance.md").read_text()
    for name in ("tts_ttfa", "payload_sizes", "concurrency", "agent_ttfa"):
        assert text.count(f"<!-- bench:{name} -->") == 1
        assert text.count(f"<!-- /bench:{name} -->") == 1


def test_wire_size_arithmetic() -> None:
    assert [ws_frame_bytes(n) for n in (0, 125, 126, 65535, 65536)] == [2, 127, 130, 65539, 65546]
    assert base64_bytes(308_304) == 411_072  # the public example
    assert base64_bytes(1) == 4


def test_agent_tables_show_the_speedup_per_rate() -> None:
    def runs(ttfa: float) -> list[dict[str, Any]]:
        return [
            {
                "first_text_s": 0.03,
                "ttfa_s": ttfa,
                "first_sound_s": ttfa + 0.02,
                "total_s": 9.0,
                "agent_metrics": {},
            }
            for _ in range(3)
        ]

    synthetic: dict[str, Any] = {
        "groups": [analyse_group("20 tokens/s", {"stream": runs(1.0), "batch": runs(4.5)})],
        "public_reference": AGENT_PUBLIC_REFERENCE,
    }
    speedup, *_ = synthetic["groups"]
    assert speedup["stream_speedup"] == pytest.approx(4.52 / 1.02)
    text = "\n".join(format_markdown(t) for t in agent_tables(synthetic))
    # first text, then the first sound (median, p95, min, max), then the first byte.
    assert "| 20 tokens/s: stream | 3 | 30 | 1020 | 1020 | 1020 | 1020 | 1000 |" in text
    assert "| 20 tokens/s | 4.43x |" in text
    assert "2.4x / 3.5x" in text
