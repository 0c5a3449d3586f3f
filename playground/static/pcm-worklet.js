// Audio thread of the playground: the PCM player and an output tap.
//
// pcm-player plays the answer's audio as it arrives, with a small jitter buffer: it starts
// (and restarts after running dry) once `prebufferFrames` are queued, or at once when the
// answer is complete. Chunks are played back to back, sample after sample, so sentences join
// without a gap. It keeps FADE frames in reserve while the answer is still arriving: if the
// queue runs dry those frames are faded out instead of cut (no click), and playback fades
// back in when it restarts. `stop` (an interrupt) fades out within one render quantum.
//
// Counters it reports (every REPORT_QUANTA render quanta, and on each state change):
// `played` frames of this turn's audio sent to the output, `underruns`, and the context frame
// at which the report was made, which the page uses as its audio clock.

const FADE = 48; // 2 ms at 24 kHz
const REPORT_QUANTA = 4;

class PcmPlayer extends AudioWorkletProcessor {
  constructor(options) {
    super();
    const opts = (options && options.processorOptions) || {};
    this.prebufferFrames = opts.prebufferFrames || 1440; // 60 ms at 24 kHz
    this.reset(0);
    this.quanta = 0;
    this.port.onmessage = (event) => this.onMessage(event.data);
  }

  reset(turn) {
    this.turn = turn;
    this.queue = [];
    this.offset = 0; // read position in queue[0]
    this.buffered = 0;
    this.played = 0;
    this.received = 0;
    this.underruns = 0;
    this.ended = false;
    this.fadeIn = false;
    this.state = "idle"; // idle | buffering | playing | stopping
  }

  onMessage(msg) {
    if (msg.type === "turn") {
      this.reset(msg.turn);
      this.state = "buffering";
      this.report("turn");
    } else if (msg.turn !== this.turn) {
      // A late message for an earlier turn (after an interrupt): nothing to play.
    } else if (msg.type === "audio") {
      if (this.state === "idle") return; // stopped: the rest of this answer is not played
      this.queue.push(msg.samples);
      this.buffered += msg.samples.length;
      this.received += msg.samples.length;
    } else if (msg.type === "end") {
      this.ended = true;
    } else if (msg.type === "stop" && this.state !== "idle") {
      this.state = "stopping";
    }
  }

  // Copy up to `count` queued frames into out[at..], scaled by a ramp when asked.
  take(out, at, count, ramp) {
    let written = 0;
    while (written < count && this.queue.length) {
      const chunk = this.queue[0];
      const n = Math.min(count - written, chunk.length - this.offset);
      for (let i = 0; i < n; i++) {
        let gain = 1;
        if (ramp === "out") gain = 1 - (written + i + 1) / count;
        else if (ramp === "in") gain = (written + i) / count;
        out[at + written + i] = chunk[this.offset + i] * gain;
      }
      written += n;
      this.offset += n;
      if (this.offset === chunk.length) {
        this.queue.shift();
        this.offset = 0;
      }
    }
    this.buffered -= written;
    this.played += written;
    return written;
  }

  process(_inputs, outputs) {
    const out = outputs[0][0];
    const frames = out.length;
    out.fill(0);
    this.changes = []; // state changes of this quantum, reported once it is rendered
    let at = 0;
    if (this.state === "buffering" && this.ended && this.buffered === 0) {
      this.state = "idle"; // the answer ended with nothing (more) to play
      this.changes.push("drained");
    } else if (this.state === "buffering" && (this.buffered >= this.prebufferFrames || this.ended)) {
      this.state = "playing";
      this.changes.push("playing");
    }
    if (this.state === "stopping") {
      this.take(out, 0, Math.min(FADE, frames, this.buffered), "out");
      this.queue = [];
      this.buffered = 0;
      this.offset = 0;
      this.state = "idle";
      this.changes.push("stopped");
    } else if (this.state === "playing") {
      if (this.fadeIn) {
        at += this.take(out, 0, Math.min(FADE, frames, this.buffered), "in");
        this.fadeIn = false;
      }
      const reserve = this.ended ? 0 : FADE;
      const plain = Math.max(0, Math.min(frames - at, this.buffered - reserve));
      at += this.take(out, at, plain, null);
      if (at < frames) {
        if (this.ended) {
          if (this.buffered === 0) {
            this.state = "idle";
            this.changes.push("drained");
          }
        } else {
          // Ran dry while the answer is still arriving: fade the reserve out, wait for more.
          this.take(out, at, Math.min(FADE, frames - at, this.buffered), "out");
          this.underruns += 1;
          this.fadeIn = true;
          this.state = "buffering";
          this.changes.push("underrun");
        }
      }
    }
    for (let c = 1; c < outputs[0].length; c++) outputs[0][c].set(out);
    this.quanta += 1;
    for (const kind of this.changes) this.report(kind);
    if (!this.changes.length && this.quanta % REPORT_QUANTA === 0 && this.state !== "idle") {
      this.report("tick");
    }
    return true;
  }

  report(kind) {
    this.port.postMessage({
      kind,
      turn: this.turn,
      state: this.state,
      played: this.played,
      received: this.received,
      underruns: this.underruns,
      frame: currentFrame + 128, // the context frame right after this render quantum
    });
  }
}

// Passes its input through and, while recording, posts copies of it with the context frame
// of each block: what the listener hears, for the page's own checks and its level meter.
class OutputTap extends AudioWorkletProcessor {
  constructor() {
    super();
    this.recording = false;
    this.port.onmessage = (event) => {
      this.recording = Boolean(event.data.record);
    };
  }

  process(inputs, outputs) {
    const input = inputs[0];
    const output = outputs[0];
    for (let c = 0; c < output.length; c++) {
      if (input[c]) output[c].set(input[c]);
      else output[c].fill(0);
    }
    if (this.recording && input[0]) {
      this.port.postMessage({ frame: currentFrame, samples: input[0].slice() });
    }
    return true;
  }
}

registerProcessor("pcm-player", PcmPlayer);
registerProcessor("output-tap", OutputTap);
