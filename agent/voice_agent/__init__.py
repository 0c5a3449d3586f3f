"""Bedrock AgentCore voice agent: LLM text streamed into one bidirectional TTS session."""
