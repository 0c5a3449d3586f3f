// The voice picker, filled from the agent's voice list: after each connection opens the page
// sends {"list": "voices"} and the agent answers one `voices` event with the voices its TTS
// offers (name, language, gender, user_file), its default and how to write a blend. The
// field stays free text, so a blend such as `af_bella:2+af_sky:1` is typed and sent as is;
// the TTS checks it and a malformed one comes back as the turn's error.

export const LIST_VOICES = { list: "voices" };
// An agent that never answers the list must not hold the first message back for long.
export const LIST_TIMEOUT_MS = 5000;

// What a voice's option says beside its name: its language, and whether it is a user file.
export function describeVoice(voice) {
  const parts = [voice.language || "unknown language"];
  if (voice.gender) parts.push(voice.gender);
  if (voice.user_file) parts.push("your file");
  return parts.join(" · ");
}

export class VoicePicker {
  constructor(field, list, hint) {
    this.field = field;
    this.list = list;
    this.hint = hint;
    this.voices = []; // the latest list, as the agent sent it (for inspection)
    this.default = null;
    this.failure = null;
  }

  show(event) {
    const voices = Array.isArray(event.voices) ? event.voices : [];
    this.voices = voices;
    this.default = typeof event.default === "string" ? event.default : null;
    this.failure = null;
    this.list.replaceChildren(
      ...voices.map((voice) => {
        const option = document.createElement("option");
        option.value = String(voice.name);
        option.label = describeVoice(voice);
        option.dataset.language = String(voice.language ?? "");
        if (voice.user_file) option.dataset.userFile = "true";
        return option;
      }),
    );
    this.field.placeholder = this.default ? `agent default (${this.default})` : "agent default";
    const own = voices.filter((v) => v.user_file).length;
    const blend = event.blend_syntax ? ` · blend: ${event.blend_syntax}, up to ${event.max_blend} voices` : "";
    this.hint.textContent = `${voices.length} voices${own ? ` (${own} yours)` : ""}${blend}`;
    this.hint.dataset.state = "listed";
  }

  // The list could not be had (the TTS is down, or the voice paused): the field still works.
  failed(reason) {
    this.failure = reason;
    this.hint.textContent = `voice list unavailable: ${reason}; type a voice name`;
    this.hint.dataset.state = "failed";
  }
}
