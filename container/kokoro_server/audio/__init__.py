"""Audio out: model samples encoded into the protocol's formats (PCM, WAV, MP3, G.711, Opus)."""
