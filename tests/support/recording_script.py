"""RecordingScript: a test double of an LLM that remembers what it was prompted with."""

from __future__ import annotations

from collections.abc import AsyncIterator

from voice_agent.conversation import NO_HISTORY, History
from voice_agent.llm import ScriptedConversationSource


class RecordingScript(ScriptedConversationSource):
    """Test double of an LLM: a scripted conversation that records the history it was given
    on every turn (what an LLM would have been prompted with)."""

    def __init__(self, answers: list[str], tokens_per_s: float = 400.0) -> None:
        super().__init__(answers, tokens_per_s=tokens_per_s)
        self.prompts: list[tuple[str, History]] = []
        self.endings: list[str] = []  # per turn: "complete", or "stopped" by the agent

    async def stream(self, prompt: str, history: History = NO_HISTORY) -> AsyncIterator[str]:
        self.prompts.append((prompt, history))
        ending = "stopped"
        try:
            async for delta in super().stream(prompt, history):
                yield delta
            ending = "complete"
        finally:
            self.endings.append(ending)
