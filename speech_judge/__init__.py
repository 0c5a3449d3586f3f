"""Judges of what the voice says, not how fast: the speech accuracy tools.

`make speech-eval` (speech_eval: the corpus on phonemes), `make speech-asr` (speech_asr: what
a listener hears, through Whisper) and `make speech-diff` (speech_diff: an outside
normalizer, NVIDIA NeMo, against this front end). Each writes `speech_judge/results/<name>.json`;
the outside judges run in their own virtual environments through the *_worker scripts here.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS_DIR = ROOT / "speech_judge" / "results"
