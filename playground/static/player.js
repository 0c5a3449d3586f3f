// Main-thread side of the audio output: one AudioContext at the agent's sample rate, the
// pcm-player worklet (jitter buffer), an output tap and an AnalyserNode for the level meter.
//
// The audio clock: the worklet reports how many frames of the current answer it has played
// and the context frame of that report; between reports the page advances it with the
// context's currentTime. `heardMs()` subtracts the output latency (frames rendered but not yet
// out of the speaker), so it is what the listener has heard: the `played_ms` of an interrupt
// and the time the captions follow.

export class AudioOut extends EventTarget {
  constructor(sampleRate) {
    super();
    this.sampleRate = sampleRate;
    this.context = null;
    this.turn = 0;
    this.last = null; // the worklet's last report
    this.recording = null;
    this.keepReceived = false; // keep each answer's samples (for inspection) in `received`
    this.received = new Map();
  }

  async start() {
    if (this.context) {
      if (this.context.state === "suspended") await this.context.resume();
      return;
    }
    const context = new AudioContext({ sampleRate: this.sampleRate, latencyHint: "interactive" });
    await context.audioWorklet.addModule("/static/pcm-worklet.js");
    this.player = new AudioWorkletNode(context, "pcm-player", {
      numberOfInputs: 0,
      outputChannelCount: [1],
      processorOptions: { prebufferFrames: Math.round(this.sampleRate * 0.06) },
    });
    this.tap = new AudioWorkletNode(context, "output-tap", { outputChannelCount: [1] });
    this.analyser = context.createAnalyser();
    this.analyser.fftSize = 1024;
    this.player.connect(this.tap).connect(this.analyser).connect(context.destination);
    this.player.port.onmessage = (event) => this.onReport(event.data);
    this.tap.port.onmessage = (event) => this.onTap(event.data);
    this.context = context;
    if (context.state === "suspended") await context.resume();
  }

  onReport(report) {
    if (report.turn !== this.turn) return;
    this.last = { ...report, at: this.context.currentTime };
    if (report.kind !== "tick") {
      this.dispatchEvent(new CustomEvent(report.kind, { detail: report }));
    }
  }

  beginTurn(turn) {
    this.turn = turn;
    this.last = null;
    this.player.port.postMessage({ type: "turn", turn });
  }

  // pcm: ArrayBuffer of signed 16-bit little-endian mono samples.
  push(turn, pcm) {
    const ints = new Int16Array(pcm, 0, Math.floor(pcm.byteLength / 2));
    const samples = new Float32Array(ints.length);
    for (let i = 0; i < ints.length; i++) samples[i] = ints[i] / 32768;
    if (this.keepReceived) {
      if (!this.received.has(turn)) this.received.set(turn, []);
      this.received.get(turn).push(samples.slice());
    }
    this.player.port.postMessage({ type: "audio", turn, samples }, [samples.buffer]);
    return ints.length;
  }

  endTurn(turn) {
    this.player.port.postMessage({ type: "end", turn });
  }

  // Interrupt: fade out now; returns the heard time and the context frame of the call.
  stop(turn) {
    const heard = this.heardMs();
    this.player.port.postMessage({ type: "stop", turn });
    return { heard, frame: this.contextFrame() };
  }

  contextFrame() {
    return Math.round(this.context.currentTime * this.sampleRate);
  }

  get playing() {
    return Boolean(this.last) && ["playing", "buffering"].includes(this.last.state);
  }

  // Frames of the current answer sent to the output so far (the worklet's count, advanced
  // by the context clock since its last report while playing, never past what it received).
  playedFrames() {
    if (!this.last) return 0;
    let frames = this.last.played;
    if (this.last.state === "playing") {
      frames += Math.max(0, this.contextFrame() - this.last.frame);
      frames = Math.min(frames, this.last.received);
    }
    return frames;
  }

  latencyMs() {
    if (!this.context) return 0;
    return ((this.context.outputLatency || 0) + (this.context.baseLatency || 0)) * 1000;
  }

  heardMs() {
    return Math.max(0, (this.playedFrames() / this.sampleRate) * 1000 - this.latencyMs());
  }

  // Root-mean-square level of what is being played (0..1), for the meter.
  level() {
    if (!this.analyser) return 0;
    const buffer = new Float32Array(this.analyser.fftSize);
    this.analyser.getFloatTimeDomainData(buffer);
    let sum = 0;
    for (const v of buffer) sum += v * v;
    return Math.sqrt(sum / buffer.length);
  }

  // Recording of the output (what the tap sees), with the context frame of each block.
  startRecording() {
    this.recording = [];
    this.tap.port.postMessage({ record: true });
  }

  stopRecording() {
    this.tap.port.postMessage({ record: false });
    const blocks = this.recording || [];
    this.recording = null;
    return blocks;
  }

  onTap(block) {
    if (this.recording) this.recording.push(block);
  }
}
