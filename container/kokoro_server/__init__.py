"""Kokoro-82M text-to-speech server for SageMaker bidirectional streaming endpoints."""
