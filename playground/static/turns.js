// One exchange of the conversation as the page saw it: the prompt, the streamed text, the
// sentences and their words on the answer's audio timeline, the timings, and, when the
// listener cut it short, what was heard.
//
// Word times: a `words` event gives times from the first sample of its sentence; its
// `offset_ms` (when the agent sends it) places the sentence in the answer. Without it the
// page counts the audio it received before that sentence (words precede their audio).

export class Turn {
  constructor(id, prompt, options, sampleRate) {
    this.id = id;
    this.prompt = prompt;
    this.mode = options.mode;
    this.voice = options.voice || "";
    this.speed = options.speed;
    this.sampleRate = sampleRate;
    this.sentAt = performance.now();
    this.firstTextAt = null;
    this.lastTextAt = null;
    this.firstAudioAt = null;
    this.textAtFirstAudio = null; // characters of text received when the first audio came
    this.text = "";
    this.sentences = new Map(); // index -> {text, words: [{text, start, end, from, to}]}
    this.words = []; // every word in answer order, times in ms from the answer's first sample
    this.receivedFrames = 0;
    this.state = "running"; // running | playing | done | interrupted | failed
    this.serverDone = false;
    this.cutMs = null;
    this.metrics = null;
    this.errors = [];
    this.captionTrace = [];
    this.agentHeard = null; // what the agent remembers of a cut answer
    this.agentPlayedMs = null;
    this.nowIndex = -1; // the lit caption word
    this.heardNow = 0;
  }

  get ttftMs() {
    return this.firstTextAt === null ? null : this.firstTextAt - this.sentAt;
  }

  get ttfaMs() {
    return this.firstAudioAt === null ? null : this.firstAudioAt - this.sentAt;
  }

  get receivedMs() {
    return (this.receivedFrames / this.sampleRate) * 1000;
  }

  addText(delta) {
    const now = performance.now();
    if (this.firstTextAt === null) this.firstTextAt = now;
    this.lastTextAt = now;
    this.text += delta;
  }

  addAudio(frames) {
    if (this.firstAudioAt === null) {
      this.firstAudioAt = performance.now();
      this.textAtFirstAudio = this.text.length;
    }
    this.receivedFrames += frames;
  }

  addSentence(index, text) {
    if (!this.sentences.has(index)) this.sentences.set(index, { text, words: [] });
  }

  addWords(event) {
    const offset = Number.isFinite(event.offset_ms) ? event.offset_ms : this.receivedMs;
    const sentence = this.sentences.get(event.index) || { text: "", words: [] };
    this.sentences.set(event.index, sentence);
    let cursor = 0;
    for (const word of event.words) {
      // Where the word stands in the sentence text (for the heard text of a cut answer).
      const from = sentence.text.indexOf(word.text, cursor);
      const at = from >= 0 ? from : cursor;
      cursor = from >= 0 ? from + word.text.length : cursor;
      const placed = {
        text: word.text,
        start: offset + word.start_ms,
        end: offset + word.end_ms,
        sentence: event.index,
        from: at,
        to: cursor,
      };
      sentence.words.push(placed);
      this.words.push(placed);
    }
    this.words.sort((a, b) => a.start - b.start);
  }

  // The word being spoken at `ms`: the last one that has started (it stays lit through the
  // pause after it), or -1 before the first.
  wordIndexAt(ms) {
    let lo = 0;
    let hi = this.words.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.words[mid].start <= ms) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  cut(playedMs, atFrame) {
    this.cutMs = playedMs;
    this.cutAtFrame = atFrame; // the audio context's frame when the listener interrupted
    this.state = "interrupted";
    this.settleCaptions(playedMs);
  }

  // Nothing is being spoken any more: no word lit, the ones heard by `heardMs` marked.
  settleCaptions(heardMs) {
    this.nowIndex = -1;
    this.heardNow = heardMs;
  }

  // The agent's `interrupted` event: the part of this answer it keeps in the conversation.
  remembered(event) {
    this.agentHeard = typeof event.heard === "string" ? event.heard : null;
    this.agentPlayedMs = Number.isFinite(event.played_ms) ? event.played_ms : null;
  }

  // Words whose audio ended at or before the cut: what the listener heard.
  heardWords() {
    if (this.cutMs === null) return this.words;
    return this.words.filter((w) => w.end <= this.cutMs);
  }

  // The heard part of the answer as written: each sentence's text up to its last heard word.
  heardText() {
    if (this.cutMs === null) return this.text;
    const heard = this.heardWords();
    const parts = [];
    for (const [index, sentence] of [...this.sentences.entries()].sort((a, b) => a[0] - b[0])) {
      const last = heard.filter((w) => w.sentence === index).pop();
      if (last) parts.push(sentence.text.slice(0, last.to).trim());
    }
    return parts.join(" ");
  }
}
