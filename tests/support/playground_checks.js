// Measurements the browser tests take inside the playground page: PlaygroundPage.check(name,
// arg) evaluates one of these functions there. The page keeps what it measures on
// `window.playground` (turns, audio clock, the messages it sent).
({
  // Keep what the next answers receive, and record the output from now on.
  async startRecording() {
    const app = window.playground;
    await app.audio.start();
    app.audio.keepReceived = true;
    app.recorded = null;
    app.audio.startRecording();
  },

  // Stop recording; the blocks stay on window.playground.recorded.
  stopRecording() {
    const app = window.playground;
    app.recorded = app.audio.stopRecording();
    return app.recorded.length;
  },

  // What one turn received against what the output tap recorded. The recording is walked
  // along the received samples: equal samples advance both, silence the player inserted
  // (running dry) advances only the recording, anything else (the fades around running dry
  // or an interrupt) counts as changed. `map` pairs a context frame with the answer sample
  // going out at it, every 20 ms.
  compareOutput(turnId) {
    const app = window.playground;
    const concat = (parts) => {
      const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
      let at = 0;
      for (const p of parts) {
        out.set(p, at);
        at += p.length;
      }
      return out;
    };
    const a = concat(app.audio.received.get(turnId) || []);
    const blocks = app.recorded || [];
    const r = concat(blocks.map((b) => b.samples));
    let sumSq = 0;
    let peak = 0;
    for (const v of r) {
      sumSq += v * v;
      peak = Math.max(peak, Math.abs(v));
    }
    const result = {
      received: a.length,
      recorded: r.length,
      rms: r.length ? Math.sqrt(sumSq / r.length) : 0,
      peak,
      gapsInRecording: 0,
      startFrame: null,
      matched: 0,
      changed: 0,
      inserted: 0,
      unplayed: a.length,
      after: 0,
      map: [],
    };
    const firstSound = r.findIndex((v) => v !== 0);
    const firstInAnswer = a.findIndex((v) => v !== 0);
    if (firstSound < 0 || firstInAnswer < 0) return result;
    let i = firstSound - firstInAnswer; // the recording index of the answer's first sample
    // Where each block starts in the concatenated recording, so a recording index maps to
    // its context frame also across a gap: a render quantum the audio thread skipped on a
    // starved machine (counted from the answer's first block on; the context starting up
    // does not count). Samples lost to a gap would show in the walk below.
    const starts = [];
    let total = 0;
    for (const block of blocks) {
      starts.push(total);
      total += block.samples.length;
    }
    let first = 0;
    while (first + 1 < blocks.length && starts[first + 1] <= i) first += 1;
    for (let k = first + 1; k < blocks.length; k++) {
      const expected = blocks[k - 1].frame + blocks[k - 1].samples.length;
      if (blocks[k].frame !== expected) result.gapsInRecording += 1;
    }
    let at = first;
    const frameOf = (index) => {
      // Called with growing indices: the block holding `index` only moves forward.
      while (at + 1 < blocks.length && starts[at + 1] <= index) at += 1;
      return blocks[at].frame + (index - starts[at]);
    };
    result.startFrame = frameOf(i);
    let j = 0;
    while (j < a.length && i < r.length) {
      if (r[i] === a[j]) {
        if (j % 480 === 0) result.map.push([frameOf(i), j]);
        result.matched += 1;
        i += 1;
        j += 1;
      } else if (r[i] === 0 && a[j] !== 0) {
        result.inserted += 1;
        i += 1;
      } else {
        result.changed += 1;
        i += 1;
        j += 1;
      }
    }
    result.unplayed = a.length - j;
    for (; i < r.length; i++) if (r[i] !== 0) result.after += 1;
    return result;
  },

  // The last recorded frame louder than `threshold`, and whether one between two frames is.
  sound([threshold, from, to]) {
    let last = null;
    let between = false;
    for (const block of window.playground.recorded || []) {
      for (let i = 0; i < block.samples.length; i++) {
        if (Math.abs(block.samples[i]) > threshold) {
          last = block.frame + i;
          if (last >= from && last <= to) between = true;
        }
      }
    }
    return { last, between };
  },

  // A turn's received samples (kept once startRecording or keepReceived asked for them),
  // summed up: their number, and a hash of them as 16-bit values (two voices saying the same
  // words differ in it).
  received(turnId) {
    let frames = 0;
    let hash = 2166136261; // FNV-1a
    for (const part of window.playground.audio.received.get(turnId) || []) {
      for (const v of part) {
        hash = Math.imul(hash ^ (Math.round(v * 32767) & 0xffff), 16777619) >>> 0;
        frames += 1;
      }
    }
    return { frames, hash };
  },

  // The voice picker as the page shows it: each option, and the line beside the field.
  voicePicker() {
    const options = [...document.querySelectorAll("#voices option")];
    return {
      options: options.map((o) => ({
        name: o.value,
        label: o.label,
        language: o.dataset.language,
        userFile: o.dataset.userFile === "true",
      })),
      placeholder: document.getElementById("voice").placeholder,
      hint: document.getElementById("voice-hint").textContent,
      state: document.getElementById("voice-hint").dataset.state,
    };
  },

  // One turn as plain data.
  turn(n) {
    const t = window.playground.turns[n - 1];
    if (!t) return null;
    return {
      id: t.id,
      state: t.state,
      text: t.text,
      serverDone: t.serverDone,
      ttft: t.ttftMs,
      ttfa: t.ttfaMs,
      firstAudioAt: t.firstAudioAt,
      lastTextAt: t.lastTextAt,
      textAtFirstAudio: t.textAtFirstAudio,
      receivedFrames: t.receivedFrames,
      playedFrames: t.playedFrames ?? null,
      underruns: t.underruns ?? null,
      words: t.words.map((w) => ({ text: w.text, start: w.start, end: w.end, sentence: w.sentence })),
      sentences: [...t.sentences.entries()].map(([index, s]) => ({ index, text: s.text })),
      cutMs: t.cutMs,
      cutAtFrame: t.cutAtFrame ?? null,
      heardText: t.cutMs === null ? null : t.heardText(),
      agentHeard: t.agentHeard,
      agentPlayedMs: t.agentPlayedMs,
      metrics: t.metrics,
      errors: t.errors,
      captionTrace: t.captionTrace,
    };
  },
})
