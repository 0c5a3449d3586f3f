"""Text in, phonemes out: cleaning, normalization, pronunciation, G2P, segmentation."""
