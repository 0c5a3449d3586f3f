// The WebSocket to the voice agent's /ws: JSON events as text frames, each `audio` event
// followed by one binary frame of exactly its `bytes`. The URL comes from the page server
// (the local agent, or a presigned URL for a deployed runtime), fetched for every connection
// because a presigned URL expires.
//
// Events dispatched: "status" ({state, detail}), "agent" (a JSON event), "audio" ({header,
// data}), "violation" (a frame that breaks the protocol: said, then skipped).

const RETRY_DELAYS_MS = [500, 1000, 2000, 4000];

export class AgentConnection extends EventTarget {
  constructor(sessionId) {
    super();
    this.sessionId = sessionId;
    this.socket = null;
    this.pendingAudio = null; // the header waiting for its binary frame
    this.retries = 0;
    this.closedByPage = false;
    this.retryTimer = null;
    this.sent = []; // every message sent, in order (for inspection)
  }

  get open() {
    return Boolean(this.socket) && this.socket.readyState === WebSocket.OPEN;
  }

  async connect() {
    clearTimeout(this.retryTimer);
    this.closedByPage = false;
    this.status("connecting", "");
    let url;
    try {
      const response = await fetch("/api/connection", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ session_id: this.sessionId }),
      });
      const body = await response.json();
      if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
      url = body.url;
    } catch (error) {
      this.status("failed", `the page server could not give a connection URL: ${error.message}`);
      this.scheduleRetry();
      return;
    }
    const socket = new WebSocket(url);
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    this.pendingAudio = null;
    socket.onopen = () => {
      this.retries = 0;
      this.status("open", "");
    };
    socket.onmessage = (event) => this.onFrame(event.data);
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (this.closedByPage) {
        this.status("closed", "");
        return;
      }
      const reason = event.reason ? `: ${event.reason}` : "";
      this.status("dropped", `connection to the agent lost (code ${event.code}${reason})`);
      this.scheduleRetry();
    };
  }

  scheduleRetry() {
    const delay = RETRY_DELAYS_MS[Math.min(this.retries, RETRY_DELAYS_MS.length - 1)];
    this.retries += 1;
    this.status("retrying", `reconnecting in ${(delay / 1000).toFixed(1)} s`);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  close() {
    this.closedByPage = true;
    clearTimeout(this.retryTimer);
    if (this.socket) this.socket.close(1000, "page closed the conversation");
  }

  send(message) {
    if (!this.open) throw new Error("not connected to the agent");
    this.socket.send(JSON.stringify(message));
    this.sent.push({ ...message, at: performance.now() });
  }

  onFrame(data) {
    if (typeof data !== "string") {
      const header = this.pendingAudio;
      this.pendingAudio = null;
      if (!header) {
        this.violation(`a binary frame of ${data.byteLength} bytes without an audio header`);
      } else if (data.byteLength !== header.bytes) {
        this.violation(`an audio frame of ${data.byteLength} bytes after a header announcing ${header.bytes}`);
      } else {
        this.dispatchEvent(new CustomEvent("audio", { detail: { header, data } }));
      }
      return;
    }
    if (this.pendingAudio) {
      this.violation("an audio header not followed by its binary frame");
      this.pendingAudio = null;
    }
    let event;
    try {
      event = JSON.parse(data);
    } catch {
      this.violation(`a message that is not JSON: ${JSON.stringify(data.slice(0, 80))}`);
      return;
    }
    if (event === null || typeof event !== "object" || typeof event.type !== "string") {
      this.violation(`a message without a type: ${data.slice(0, 80)}`);
      return;
    }
    if (event.type === "audio") {
      if (!Number.isInteger(event.bytes) || event.bytes < 0) {
        this.violation(`an audio header without a byte count: ${data.slice(0, 80)}`);
        return;
      }
      this.pendingAudio = event;
      return;
    }
    this.dispatchEvent(new CustomEvent("agent", { detail: event }));
  }

  violation(message) {
    this.dispatchEvent(new CustomEvent("violation", { detail: `The agent sent ${message}.` }));
  }

  status(state, detail) {
    this.dispatchEvent(new CustomEvent("status", { detail: { state, detail } }));
  }
}
