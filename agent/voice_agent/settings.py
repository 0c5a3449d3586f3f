"""Agent configuration: every setting read from the environment in one place (docs/agent.md).

Each environment variable is declared once, on the `AgentSettings` field it sets: the field's
type and default, and in its `Annotated` metadata an `EnvVar` with the variable's name and
its docs line. `AgentSettings.from_env(env)` reads every declared field the same way, and
`env_table()` renders the table of docs/agent.md from the same declarations:

    python -m voice_agent.settings   # prints the docs table (tests/agent/test_agent_settings.py)

The region is AWS_REGION, then AWS_DEFAULT_REGION, refused when missing and an AWS service is
used. Plain data: the TTS transport the settings name is built by `wiring.tts_transport`, so
this module imports no transport (and no transport imports it); `text_source()` and
`conversations()` build the agent's own parts.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from kokoro_stream.messages import DEFAULT_SAMPLE_RATE
from kokoro_stream.region import region_from_env

from .conversation import ConversationStore
from .llm import (
    DEFAULT_SCRIPT,
    ReplayedAnswerSource,
    ScriptedConversationSource,
    StrandsBedrockSource,
    TextSource,
    read_script,
)
from .origins import ALLOWED_ORIGINS_ENV, OriginPolicy

TEXT_SOURCES = ("bedrock", "replay")

VOICE_PAUSED_MESSAGE = (
    "the voice is paused: the TTS endpoint was taken down to stop its hourly cost "
    "(deployed with -c voice_paused=true). Resume it by deploying without voice_paused "
    "(docs/deploy.md, Pause and resume); it takes about 10 minutes to come back"
)

NO_REGION = (
    "no AWS region configured: set AWS_REGION (or AWS_DEFAULT_REGION). The SageMaker endpoint "
    "and Bedrock are called in that region; only a local run (TTS_URL with "
    "AGENT_TEXT_SOURCE=replay) needs none"
)


@dataclass(frozen=True)
class EnvVar:
    """Where one `AgentSettings` field comes from. An unset or empty variable keeps the field's
    default; the first of `names` that is set wins (the others are older aliases)."""

    names: tuple[str, ...]
    doc: str
    choices: tuple[str, ...] = ()  # compared lower-cased, blanks around ignored
    at_least: int | None = None
    # For a value no plain type says how to read: the variable's text -> the value.
    parse: Callable[[str], Any] | None = None
    # For a rule over several variables (AWS's region): the whole environment -> the value.
    read: Callable[[Mapping[str, str]], Any] | None = None
    shown_default: str | None = None  # the docs' default, where the field's says nothing


def env(*names: str, doc: str, **rules: Any) -> EnvVar:
    return EnvVar(names, doc, **rules)


@dataclass(frozen=True)
class AgentSettings:
    # TTS: a container's WebSocket (tts_url wins) or a SageMaker endpoint.
    tts_url: Annotated[
        str | None, env("TTS_URL", doc="WebSocket transport to a container (takes precedence)")
    ] = None
    tts_endpoint_name: Annotated[
        str | None, env("TTS_ENDPOINT_NAME", doc="SageMaker transport to this endpoint")
    ] = None
    # The stack deployed no endpoint (voice paused): every turn answers `voice_paused`.
    voice_paused: Annotated[
        bool,
        env(
            "TTS_PAUSED",
            doc="`true`: the stack was deployed with `-c voice_paused=true` (no endpoint); every "
            "turn answers one fatal `error` with code `voice_paused` and calls neither the model "
            "nor the TTS ([deploy.md](deploy.md#pause-and-resume))",
        ),
    ] = False
    region: Annotated[
        str | None,
        env(
            "AWS_REGION",
            "AWS_DEFAULT_REGION",
            doc="region for SageMaker and Bedrock, passed explicitly to both clients (botocore "
            "alone reads only `AWS_DEFAULT_REGION`, Strands would fall back to us-west-2). "
            "Required unless the run is local (`TTS_URL` with `AGENT_TEXT_SOURCE=replay`): "
            "without it `python -m voice_agent` refuses to start with `voice_agent: cannot "
            "start: no AWS region configured ...`",
            read=region_from_env,
        ),
    ] = None
    default_voice: Annotated[
        str | None,
        env(
            "TTS_VOICE",
            "AGENT_DEFAULT_VOICE",
            doc="voice when the payload has none (the agent stack sets `TTS_VOICE`)",
            shown_default="server default",
        ),
    ] = None
    sample_rate: Annotated[
        int,
        env(
            "AGENT_SAMPLE_RATE",
            doc="sample rate asked of the TTS for `pcm`/`wav`/`mp3` (G.711 is always 8000, "
            "Opus 48000)",
        ),
    ] = DEFAULT_SAMPLE_RATE
    # Text: Strands with a Bedrock model, or a scripted conversation replayed at a fixed rate
    # (one given answer, AGENT_REPLAY_TEXT, is a script of one).
    text_source_kind: Annotated[
        str, env("AGENT_TEXT_SOURCE", doc="where the answer text comes from", choices=TEXT_SOURCES)
    ] = "bedrock"
    bedrock_model_id: Annotated[
        str | None, env("BEDROCK_MODEL_ID", doc="required for `bedrock`")
    ] = None
    replay_text: Annotated[
        str | None, env("AGENT_REPLAY_TEXT", doc="one answer for `replay`, given on every turn")
    ] = None
    replay_file: Annotated[
        str | None,
        env(
            "AGENT_REPLAY_FILE",
            doc="a scripted conversation for `replay`: answers separated by `---` lines",
        ),
    ] = None
    # What `replay` speaks: AGENT_REPLAY_FILE's answers, else AGENT_REPLAY_TEXT (from_env).
    replay_script: tuple[str, ...] = DEFAULT_SCRIPT
    replay_tokens_per_s: Annotated[float, env("AGENT_REPLAY_TOKENS_PER_S", doc="replay rate")] = (
        40.0
    )
    replay_first_token_s: Annotated[
        float, env("AGENT_REPLAY_FIRST_TOKEN_S", doc="extra delay before the first token")
    ] = 0.0
    # Timeouts of one invocation (VoicePipeline).
    tts_connect_timeout_s: Annotated[
        float, env("AGENT_TTS_CONNECT_TIMEOUT_S", doc="max time to open a TTS session")
    ] = 15.0
    # Waiting out the TTS's `busy` (admission.py).
    tts_busy_wait_s: Annotated[
        float,
        env(
            "AGENT_TTS_BUSY_WAIT_S",
            doc="a TTS server answering `busy` (admission control) is retried for up to this "
            "long (back-off 0.1, 0.2, 0.4, 0.8 s, each retry logged as `TTS busy; retrying`) "
            "with the text sent so far replayed; only then does the caller get `tts_busy`; "
            "`0` passes `busy` on at once",
        ),
    ] = 2.0
    tts_idle_timeout_s: Annotated[
        float,
        env("AGENT_TTS_IDLE_TIMEOUT_S", doc="max silence from the TTS after `close` was sent"),
    ] = 30.0
    llm_idle_timeout_s: Annotated[
        float,
        env(
            "AGENT_LLM_IDLE_TIMEOUT_S",
            doc="max silence from the TTS while the text source is still writing",
        ),
    ] = 120.0
    # Conversations kept in memory (docs/agent.md has the memory this takes at most).
    max_turns: Annotated[
        int,
        env(
            "AGENT_MAX_TURNS",
            doc="turns kept per conversation (oldest dropped first)",
            at_least=1,
        ),
    ] = 20
    max_conversations: Annotated[
        int,
        env(
            "AGENT_MAX_CONVERSATIONS",
            doc="conversations kept in memory (least recently used idle one evicted)",
            at_least=1,
        ),
    ] = 100
    # `python -m voice_agent`: the runtime reaches the container on 0.0.0.0:8080.
    host: Annotated[str, env("HOST", doc="`python -m voice_agent` bind address")] = "0.0.0.0"  # noqa: S104
    port: Annotated[int, env("PORT", doc="`python -m voice_agent` port")] = 8080
    # Web pages allowed to drive the agent (origins.py): loopback ones unless widened.
    origins: Annotated[
        OriginPolicy,
        env(
            ALLOWED_ORIGINS_ENV,
            doc="web pages allowed besides loopback ones: comma-separated origins, or `*` for "
            "all ([Which pages may call the agent](#which-pages-may-call-the-agent-originspy))",
            parse=OriginPolicy.parse,
        ),
    ] = field(default_factory=OriginPolicy)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> AgentSettings:
        """Raises ValueError with a clear message for a bad value or a missing region."""
        environ = dict(os.environ if environ is None else environ)
        values = {f.name: _value(environ, var, kind, f) for f, var, kind in declared_vars()}
        settings = cls(**values, replay_script=_replay_script(values))
        if settings.region is None and settings.uses_aws:
            raise ValueError(NO_REGION)
        return settings

    @property
    def uses_aws(self) -> bool:
        """A SageMaker TTS endpoint (TTS_URL unset) or Bedrock text: both need a region."""
        sagemaker_tts = not self.tts_url and bool(self.tts_endpoint_name)
        return sagemaker_tts or self.text_source_kind == "bedrock"

    def text_source(self) -> TextSource:
        """AGENT_TEXT_SOURCE=bedrock (BEDROCK_MODEL_ID) or replay (AGENT_REPLAY_*)."""
        if self.text_source_kind == "replay":
            pacing = {
                "tokens_per_s": self.replay_tokens_per_s,
                "first_token_delay_s": self.replay_first_token_s,
            }
            if len(self.replay_script) == 1:
                return ReplayedAnswerSource(self.replay_script[0], **pacing)
            return ScriptedConversationSource(self.replay_script, **pacing)
        return StrandsBedrockSource(model_id=self.bedrock_model_id, region=self.region)

    def conversations(self) -> ConversationStore:
        return ConversationStore(self.max_conversations, self.max_turns)


def _replay_script(values: Mapping[str, Any]) -> tuple[str, ...]:
    """A file's conversation (read only for `replay`), else the one given answer."""
    if values["text_source_kind"] == "replay" and values["replay_file"]:
        return tuple(read_script(Path(values["replay_file"]).read_text(encoding="utf-8")))
    if values["replay_text"]:
        return (values["replay_text"],)
    return DEFAULT_SCRIPT


@functools.cache
def declared_vars() -> tuple[tuple[dataclasses.Field[Any], EnvVar, type], ...]:
    """Each field read from the environment, its declaration and the type it is read as."""
    hints = typing.get_type_hints(AgentSettings, include_extras=True)
    declared = []
    for f in dataclasses.fields(AgentSettings):
        if typing.get_origin(hints[f.name]) is not Annotated:
            continue  # derived in from_env, not read
        base, *extras = typing.get_args(hints[f.name])
        for var in (extra for extra in extras if isinstance(extra, EnvVar)):
            declared.append((f, var, base if base in (bool, int, float) else str))
    return tuple(declared)


def _value(environ: Mapping[str, str], var: EnvVar, kind: type, f: dataclasses.Field[Any]) -> Any:
    if var.read is not None:
        return var.read(environ)
    name, raw = next(((n, environ[n]) for n in var.names if environ.get(n)), ("", ""))
    if not raw:
        return _default(f)
    if var.parse is not None:
        return var.parse(raw)
    if var.choices:
        return _choice(name, raw, var.choices)
    value = _typed(name, raw, kind)
    if var.at_least is not None and value < var.at_least:
        raise ValueError(f"{name} must be at least {var.at_least}, got {value}")
    return value


def _default(f: dataclasses.Field[Any]) -> Any:
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return f.default


def _typed(name: str, raw: str, kind: type) -> Any:
    if kind is bool:
        text = raw.strip().lower()
        if text in ("", "false", "0", "no"):
            return False
        if text in ("true", "1", "yes"):
            return True
        raise ValueError(f"{name} must be true or false, got {text!r}")
    if kind is str:
        return raw
    try:
        return kind(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number, got {raw!r}") from None


def _choice(name: str, raw: str, choices: tuple[str, ...]) -> str:
    text = raw.strip().lower()
    if text not in choices:
        allowed = " or ".join(repr(choice) for choice in choices)
        raise ValueError(f"{name} must be {allowed}, got {text!r}")
    return text


def _shown(f: dataclasses.Field[Any], var: EnvVar) -> str:
    if var.shown_default is not None:
        return var.shown_default
    value = _default(f)
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, int | float | str) and value != "":
        return f"`{value:g}`" if isinstance(value, float) else f"`{value}`"
    return ""


def _meaning(var: EnvVar) -> str:
    rules = [" or ".join(f"`{choice}`" for choice in var.choices)] if var.choices else []
    rules += [f"at least {var.at_least}"] if var.at_least is not None else []
    return "; ".join([var.doc, *rules])


def env_table() -> str:
    """The Markdown table of docs/agent.md, "Environment", one row per variable."""
    rows = ["| variable | default | |", "|---|---|---|"]
    for f, var, _kind in declared_vars():
        names = ", else ".join(f"`{name}`" for name in var.names)
        shown = _shown(f, var)
        rows.append(f"| {names} | {shown}{' ' if shown else ''}| {_meaning(var)} |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(env_table())
