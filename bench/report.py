"""Write the benchmark tables into docs/performance.md from the JSON results.

Each result owns the part of the document between `<!-- bench:NAME -->` and
`<!-- /bench:NAME -->`; everything else (method, interpretation) is left as written.

    python -m bench.report [--results-dir bench/results] [--doc docs/performance.md]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from bench.common import RESULTS_DIR
from bench.tables import TABLE_BUILDERS, format_markdown
from devkit.paths import REPO_ROOT

DOC = REPO_ROOT / "docs" / "performance.md"
RUN_COMMANDS = {
    "tts_ttfa": "python -m bench.tts_ttfa",
    "payload_sizes": "python -m bench.payload_sizes",
    "concurrency": "python -m bench.concurrency",
    "agent_ttfa": "python -m bench.agent_ttfa",
}


class ReportError(ValueError):
    """The document's markers are missing or malformed, or a result file is unreadable."""


def _markers(name: str) -> tuple[str, str]:
    return f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"


def replace_section(doc: str, name: str, body: str) -> str:
    """Replace what lies between the markers of `name` (exactly one pair, in order)."""
    start, end = _markers(name)
    if doc.count(start) != 1 or doc.count(end) != 1:
        raise ReportError(f"the document needs exactly one {start} and one {end}")
    head, rest = doc.split(start)
    if end not in rest:
        raise ReportError(f"{end} comes before {start}")
    _, tail = rest.split(end)
    return f"{head}{start}\n{body.strip()}\n{end}{tail}"


def _provenance(result: dict[str, Any]) -> str:
    m = result["machine"]
    in_use = m.get("ort_provider_in_use")
    providers = (
        ", ".join(in_use)
        if in_use
        else "provider of the remote server unknown; available here: "
        + ", ".join(m.get("ort_available_providers") or [])
    )
    load = m.get("load_average_1m_at_start")
    load_note = f"; 1-min load average at start {load:.2f}" if load is not None else ""
    return (
        f"Measured {m['date_utc']} on {m['cpu_model']}"
        f" ({m['usable_cores']} usable cores{load_note}),"
        f" ONNX Runtime {m['onnxruntime']} ({providers}), Python {m['python']};"
        f" {result['runs']} measured run(s) per mode after {result['warmup']} warm-up round(s);"
        f" target: {result['target']['description']}."
    )


def _details(name: str, result: dict[str, Any]) -> list[str]:
    if name == "tts_ttfa":
        t = result["text"]
        phonemes = f", {t['phonemes']} phonemes" if t.get("phonemes") else ""
        return [
            f"Paragraph: {t['chars']} characters, {len(t['sentences'])} sentences{phonemes};"
            f" (c) sends {t['deltas']} deltas at {t['tokens_per_s']:g} tokens/s."
        ]
    if name == "payload_sizes":
        same = all(result["sizes_identical_across_runs"].values())
        return [
            f"Base64 overhead on the audio bytes: {result['base64_overhead'] * 100:+.1f}%."
            f" Audio sizes identical in every run: {'yes' if same else 'no'}."
        ]
    if name == "agent_ttfa":
        return [f'Prompt: "{result["prompt"]}"; text source: {result["text_source"]}.']
    if name == "concurrency":
        env = result.get("server_env") or {}
        settings = ", ".join(f"`{k}={v}`" for k, v in env.items()) or "default server settings"
        answers = ", ".join(f"{v:.2f} s ({k})" for k, v in result["answer_s"].items())
        tone = result.get("tone_delay_ms")
        return [
            f"Server settings: {settings}. One answer plays {answers}"
            + (f"; the tone double sleeps {tone:g} ms per sentence" if tone else "")
            + f". 1-min load average at the end: {result['load_average_1m_at_end']:.2f}."
        ]
    return []


def render_section(name: str, result: dict[str, Any], image: str | None) -> str:
    parts = []
    if result.get("quick"):
        parts.append(
            "> **Quick run (smoke test of the scripts): noisy, not representative.** "
            f"Rerun `{RUN_COMMANDS.get(name, 'python -m bench')}` without `--quick`."
        )
    parts.append(_provenance(result))
    parts += _details(name, result)
    parts += [format_markdown(table) for table in TABLE_BUILDERS[name](result)]
    if image:
        parts.append(f"![{name}]({image})")
    return "\n\n".join(parts)


def missing_section(name: str) -> str:
    return f"_Not measured yet: run `{RUN_COMMANDS.get(name, 'python -m bench')}`._"


def load_result(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ReportError(f"cannot read {path}: {exc}") from exc
    if not isinstance(data, dict) or "machine" not in data:
        raise ReportError(f"{path} is not a benchmark result")
    return data


def update_document(doc_path: Path, results_dir: Path) -> list[str]:
    """Rewrite every marked section of doc_path that has a result; returns the names written."""
    doc = doc_path.read_text(encoding="utf-8")
    names = re.findall(r"<!-- bench:([a-z_]+) -->", doc)
    written = []
    for name in names:
        if name not in TABLE_BUILDERS:
            raise ReportError(f"unknown benchmark section {name!r} in {doc_path}")
        json_path = results_dir / f"{name}.json"
        if not json_path.is_file():
            doc = replace_section(doc, name, missing_section(name))
            continue
        png = json_path.with_suffix(".png")
        image = os.path.relpath(png, doc_path.parent) if png.is_file() else None
        doc = replace_section(doc, name, render_section(name, load_result(json_path), image))
        written.append(name)
    doc_path.write_text(doc, encoding="utf-8")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.report", description=__doc__)
    parser.add_argument("--results-dir", type=Path, default=RESULTS_DIR)
    parser.add_argument("--doc", type=Path, default=DOC)
    args = parser.parse_args(argv)
    try:
        written = update_document(args.doc, args.results_dir)
    except (ReportError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"updated {args.doc}: {', '.join(written) or 'no results yet'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
