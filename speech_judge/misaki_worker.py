"""misaki's English G2P on sentences, run by an interpreter that has misaki and spaCy.

    MISAKI_PYTHON -m speech_judge.misaki_worker < sentences.json > words.json

misaki needs spaCy's `en_core_web_sm` for part-of-speech tags, which no official package
on the index carries (G2P() would download it). Here it runs with a blank English spaCy
pipeline: its own lexicon and rules, no tagger, so every heteronym gets misaki's default
sense. Prints, per sentence, [[token text, phonemes in IPA], ...] (misaki's one-letter
diphthongs written out). Standard library, misaki and spaCy only.
"""

from __future__ import annotations

import json
import sys

_IPA = {"A": "eɪ", "I": "aɪ", "O": "oʊ", "W": "aʊ", "Y": "ɔɪ", "Q": "əʊ", "ᵊ": "ə"}


def main() -> None:
    import spacy
    from misaki import en

    g2p = en.G2P.__new__(en.G2P)  # the constructor would download en_core_web_sm
    g2p.version, g2p.british, g2p.fallback, g2p.unk = None, False, None, "?"
    g2p.nlp = spacy.blank("en")
    g2p.lexicon = en.Lexicon(False)
    out = []
    for sentence in json.load(sys.stdin):
        _, tokens = g2p(sentence)
        words = []
        for token in tokens:
            phonemes = "".join(_IPA.get(c, c) for c in (token.phonemes or ""))
            words.append([token.text, phonemes])
        out.append(words)
    json.dump(out, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
