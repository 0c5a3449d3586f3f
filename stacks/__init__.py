"""AWS CDK app for the Kokoro TTS endpoint and the AgentCore voice agent."""
