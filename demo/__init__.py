"""The local demos: `make demo` (TTS server alone) and `make demo-agent` (through the agent)."""
