// The playground page: one conversation with the voice agent over its /ws.
//
// A prompt goes out as {"prompt", "mode", "voice"?, "speed"?, "session_id"}; the answer comes
// back as text deltas, sentences, word timings and audio, then `done` (or an error). Audio is
// played as it arrives (player.js), the captions follow the audio clock, and interrupting
// (the button, or typing while it speaks) stops the sound at once and sends
// {"type": "interrupt", "played_ms"} with what was heard. Everything the page measures is kept
// on `window.playground` for whoever wants to look (the browser tests do). Each connection
// first asks the agent for its voices (voices.js); a prompt sent before they came waits.

import { AgentConnection } from "./connection.js";
import { AudioOut } from "./player.js";
import { Turn } from "./turns.js";
import { renderTurn, updateCaptions } from "./view.js";
import { LIST_TIMEOUT_MS, LIST_VOICES, VoicePicker } from "./voices.js";

const TICK_MS = 25;
const CAPTION_TRACE_LIMIT = 4000;

class Playground {
  constructor(config) {
    this.config = config;
    this.sampleRate = config.sample_rate;
    this.audio = new AudioOut(this.sampleRate);
    this.turns = [];
    this.current = null; // the turn whose events are arriving
    this.awaitingAck = null; // a turn interrupted after it ended: the agent's answer is due
    this.queued = null; // a prompt waiting for the interrupted answer to end
    this.errors = [];
    this.el = (id) => document.getElementById(id);
    this.voices = new VoicePicker(this.el("voice"), this.el("voices"), this.el("voice-hint"));
    this.listTimer = null; // set while the voice list asked for is due
    this.audio.addEventListener("drained", (e) => this.onDrained(e.detail));
    this.newConversation();
    this.bindControls();
    setInterval(() => this.tick(), TICK_MS);
  }

  // --- connection ----------------------------------------------------------------------

  newConversation() {
    if (this.connection) this.connection.close();
    this.stopListing();
    if (this.audio.context) this.audio.beginTurn(-1); // silence whatever plays
    this.sessionId = crypto.randomUUID();
    this.turns = [];
    this.current = null;
    this.awaitingAck = null;
    this.queued = null;
    this.el("turns").replaceChildren();
    this.connection = new AgentConnection(this.sessionId);
    this.connection.addEventListener("status", (e) => this.onStatus(e.detail));
    this.connection.addEventListener("agent", (e) => this.onAgentEvent(e.detail));
    this.connection.addEventListener("audio", (e) => this.onAudio(e.detail));
    this.connection.addEventListener("violation", (e) => this.showError(e.detail));
    this.connection.connect();
  }

  onStatus({ state, detail }) {
    const status = this.el("status");
    status.dataset.state = state;
    status.textContent = detail ? `${state}: ${detail}` : state;
    if (state === "dropped") {
      this.showError(`${detail}. The page reconnects by itself; the conversation goes on.`);
      this.awaitingAck = null; // a new connection answers nothing of the old one
      this.stopListing();
      if (this.current) this.endTurn(this.current, "failed", "connection lost");
    } else if (state === "open") {
      this.clearError("connection");
      this.requestVoices();
    }
    this.updateButtons();
  }

  // --- the voice list ----------------------------------------------------------------------

  requestVoices() {
    this.stopListing();
    this.connection.send(LIST_VOICES);
    this.listTimer = setTimeout(() => {
      this.listTimer = null;
      this.voices.failed(`the agent did not answer within ${LIST_TIMEOUT_MS / 1000} s`);
      this.sendQueued();
    }, LIST_TIMEOUT_MS);
  }

  stopListing() {
    clearTimeout(this.listTimer);
    this.listTimer = null;
  }

  // The answer to the voice list: the voices, or the agent's error said beside the picker.
  onVoiceList(event) {
    if (event.type === "voices") {
      this.voices.show(event);
    } else if (event.type === "error" && this.listTimer !== null && !this.current && !this.awaitingAck) {
      this.voices.failed(`${event.code}: ${event.message}`);
    } else {
      return false;
    }
    this.stopListing();
    this.sendQueued();
    return true;
  }

  // --- sending and interrupting ---------------------------------------------------------

  options() {
    const mode = document.querySelector("input[name=mode]:checked").value;
    const voice = this.el("voice").value.trim();
    const speed = Number(this.el("speed").value);
    return { mode, voice, speed };
  }

  async send(prompt) {
    if (!prompt.trim()) return;
    await this.audio.start(); // inside the click/Enter: browsers allow sound from here on
    this.interrupt();
    if (this.current || this.awaitingAck || this.listTimer !== null) {
      this.queued = prompt; // the interrupted answer (or the voice list) has not ended yet
      return;
    }
    if (!this.connection.open) {
      this.showError("Not connected to the agent yet; the message was not sent. Try again in a moment.");
      return;
    }
    const options = this.options();
    const turn = new Turn(this.turns.length + 1, prompt, options, this.sampleRate);
    const request = { prompt, mode: options.mode, session_id: this.sessionId };
    if (options.voice) request.voice = options.voice;
    if (options.speed !== 1) request.speed = options.speed;
    this.clearError();
    this.turns.push(turn);
    this.current = turn;
    this.audio.beginTurn(turn.id);
    this.connection.send(request);
    this.render(turn);
  }

  // The turn being heard or still arriving.
  activeTurn() {
    const last = this.turns[this.turns.length - 1];
    if (!last) return null;
    if (last === this.current && last.state === "running") return last;
    return last.state === "playing" || (last.state === "running" && this.audio.playing) ? last : null;
  }

  interrupt() {
    const turn = this.activeTurn();
    if (!turn) return;
    const { heard, frame } = this.audio.stop(turn.id);
    turn.cut(heard, frame);
    if (this.connection.open) {
      this.connection.send({ type: "interrupt", played_ms: Math.round(heard) });
      if (this.current !== turn) this.awaitingAck = turn; // its answer had already ended
    }
    this.render(turn);
    this.updateButtons();
  }

  // --- what the agent sends -------------------------------------------------------------

  onAgentEvent(event) {
    if (this.onVoiceList(event)) return;
    const turn = this.current;
    if (!turn && this.awaitingAck) {
      this.onAck(event);
      return;
    }
    if (!turn) {
      const what = event.type === "error" ? `error ${event.code}: ${event.message}` : `a ${event.type} event outside any answer`;
      this.showError(`The agent sent ${what}`);
      return;
    }
    const cut = turn.state === "interrupted";
    switch (event.type) {
      case "text":
        if (!cut) turn.addText(String(event.delta ?? ""));
        break;
      case "sentence":
        turn.addSentence(event.index, String(event.text ?? ""));
        break;
      case "words":
        if (!cut) turn.addWords(event);
        break;
      case "done":
        turn.metrics = event.metrics || {};
        this.endTurn(turn, "playing");
        break;
      case "interrupted": // the agent stopped the answer and says what it keeps of it
        turn.remembered(event);
        this.endTurn(turn, "interrupted");
        break;
      case "error":
        if (event.fatal === false) {
          turn.errors.push(event);
          this.showError(`Agent warning ${event.code}: ${event.message}${unspoken(event)}`);
        } else {
          turn.errors.push(event);
          this.showError(`Agent error ${event.code}: ${event.message}`);
          this.endTurn(turn, "failed");
        }
        break;
      default:
        break; // events of later protocol versions: shown by nothing, harmless
    }
    this.render(turn);
  }

  // The answer to an interrupt sent after its answer had ended on the agent.
  onAck(event) {
    const turn = this.awaitingAck;
    this.awaitingAck = null;
    if (event.type === "interrupted") {
      turn.remembered(event);
    } else if (event.type === "error") {
      this.showError(`Agent error ${event.code} on the interrupt: ${event.message}`);
    } else {
      this.showError(`The agent answered the interrupt with a ${event.type} event`);
    }
    this.render(turn);
    this.sendQueued();
  }

  onAudio({ header, data }) {
    const turn = this.current;
    if (!turn || turn.state === "interrupted") return;
    if (header.format !== "pcm" || header.sample_rate !== this.sampleRate) {
      this.showError(`The agent sent ${header.format} audio at ${header.sample_rate} Hz; the page plays pcm at ${this.sampleRate} Hz.`);
      return;
    }
    turn.addAudio(this.audio.push(turn.id, data));
    if (turn.firstAudioAt !== null && turn.receivedFrames > 0) this.render(turn);
  }

  // The agent finished this answer (or it failed); its audio may still be playing.
  endTurn(turn, state, reason) {
    turn.serverDone = true;
    if (reason) turn.errors.push({ code: "page", message: reason });
    if (turn.state !== "interrupted") turn.state = state;
    else if (state !== "interrupted" && this.connection.open) {
      // It ended as our interrupt crossed it: the agent answers that as an idle interrupt.
      this.awaitingAck = turn;
    }
    this.audio.endTurn(turn.id);
    if (this.current === turn) this.current = null;
    this.render(turn);
    this.updateButtons();
    this.sendQueued();
  }

  sendQueued() {
    if (this.queued === null || this.current || this.awaitingAck || this.listTimer !== null) return;
    const prompt = this.queued;
    this.queued = null;
    this.send(prompt);
  }

  onDrained(report) {
    const turn = this.turns.find((t) => t.id === report.turn);
    if (turn && turn.state === "playing" && turn.serverDone) {
      turn.state = "done";
      turn.settleCaptions(Number.POSITIVE_INFINITY);
    }
    if (turn) {
      turn.playedFrames = report.played;
      turn.underruns = report.underruns;
      this.render(turn);
    }
    this.updateButtons();
  }

  // --- the page -------------------------------------------------------------------------

  tick() {
    this.el("level").value = this.audio.level();
    this.updateButtons();
    const turn = this.activeTurn();
    if (!turn || !this.audio.context) return;
    const heard = this.audio.heardMs();
    const index = turn.wordIndexAt(heard);
    if (turn.captionTrace.length < CAPTION_TRACE_LIMIT && this.audio.playing) {
      turn.captionTrace.push({ frame: this.audio.contextFrame(), heard, word: index });
    }
    updateCaptions(turn, index, heard);
  }

  render(turn) {
    const container = this.el("turns");
    let node = container.querySelector(`[data-turn="${turn.id}"]`);
    if (!node) {
      node = document.createElement("article");
      node.dataset.turn = String(turn.id);
      container.append(node);
    }
    renderTurn(node, turn);
    node.scrollIntoView({ block: "end" });
  }

  showError(message) {
    this.errors.push({ message, at: performance.now() });
    this.el("error-text").textContent = message;
    this.el("error").hidden = false;
  }

  clearError(kind) {
    if (kind === "connection" && !/connection/.test(this.el("error-text").textContent)) return;
    this.el("error").hidden = true;
  }

  updateButtons() {
    const button = this.el("interrupt");
    const idle = !this.activeTurn();
    if (button.disabled !== idle) button.disabled = idle;
  }

  bindControls() {
    const prompt = this.el("prompt");
    this.el("composer").addEventListener("submit", (event) => {
      event.preventDefault();
      const text = prompt.value;
      if (!text.trim()) {
        // Said, not swallowed: the box is left as it is.
        this.showError("Nothing was sent: the text box holds only whitespace.");
        return;
      }
      prompt.value = "";
      this.send(text);
    });
    prompt.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.el("composer").requestSubmit();
      }
    });
    // Typing while the answer plays is barge-in: the listener has started to talk back.
    prompt.addEventListener("input", () => {
      if (prompt.value.trim()) this.interrupt();
    });
    this.el("interrupt").addEventListener("click", () => this.interrupt());
    this.el("new-conversation").addEventListener("click", () => this.newConversation());
    this.el("error-dismiss").addEventListener("click", () => this.clearError());
    const speed = this.el("speed");
    speed.addEventListener("input", () => {
      this.el("speed-value").textContent = `${Number(speed.value).toFixed(1)}×`;
    });
  }
}

async function main() {
  const response = await fetch("/api/config");
  const config = await response.json();
  document.getElementById("target").textContent =
    `${config.target_description}${config.text_source ? ` · text: ${config.text_source}` : ""}`;
  const speed = document.getElementById("speed");
  [speed.min, speed.max] = config.speed_range.map(String); // what the agent accepts
  window.playground = new Playground(config);
}

// A sentence the voice could not speak is named, so a listener knows what was missed.
function unspoken(event) {
  if (typeof event.text !== "string") return "";
  const which = Number.isInteger(event.index) ? `sentence ${event.index}` : "text";
  return ` (${which} not spoken: "${event.text}")`;
}

main().catch((error) => {
  const box = document.getElementById("error");
  document.getElementById("error-text").textContent = `The page could not start: ${error.message}`;
  box.hidden = false;
});
