// Drawing one turn: the prompt, the answer's captions (a span per word, lit as it is heard),
// the raw streamed text, the timings, and for an interrupted answer what was heard and what
// was cut. The DOM carries data-* attributes so the state is readable without parsing text.

const fmtMs = (ms) => (ms === null || ms === undefined ? "–" : `${Math.round(ms)} ms`);
const fmtS = (ms) => `${(ms / 1000).toFixed(2)} s`;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

export function renderTurn(node, turn) {
  node.className = `turn turn-${turn.state}`;
  node.dataset.state = turn.state;
  node.dataset.interrupted = String(turn.cutMs !== null);

  const user = el("p", "user", turn.prompt);
  const answer = el("div", "answer");

  const captions = el("p", "captions");
  captions.dataset.words = String(turn.words.length);
  if (turn.words.length) {
    turn.words.forEach((word, i) => {
      const span = el("span", "word", word.text);
      span.dataset.i = String(i);
      span.dataset.start = String(word.start);
      span.dataset.end = String(word.end);
      if (turn.cutMs !== null && word.end > turn.cutMs) span.classList.add("cut");
      if (i === turn.nowIndex) span.classList.add("now");
      if (word.end <= turn.heardNow) span.classList.add("spoken");
      captions.append(span, " ");
    });
  } else {
    captions.textContent = [...turn.sentences.values()].map((s) => s.text).join(" ");
  }
  answer.append(captions);

  const streamed = el("p", "streamed", turn.text);
  streamed.title = "text as it streamed from the agent";
  answer.append(streamed);

  if (turn.cutMs !== null) {
    const heard = el("p", "heard");
    heard.dataset.heardText = turn.heardText();
    heard.append(el("strong", "", `Interrupted after ${fmtS(turn.cutMs)} heard.`));
    if (turn.agentHeard !== null) {
      heard.dataset.agentHeard = turn.agentHeard;
      heard.append(` The agent remembers: “${turn.agentHeard}”`);
    } else {
      heard.append(` Heard: “${turn.heardText()}”`);
    }
    answer.append(heard);
  }

  const metrics = el("p", "metrics");
  const parts = [
    `${turn.mode}`,
    `first text ${fmtMs(turn.ttftMs)}`,
    `first audio ${fmtMs(turn.ttfaMs)}`,
  ];
  if (turn.textAtFirstAudio !== null && turn.serverDone && turn.text.length) {
    const written = Math.round((100 * turn.textAtFirstAudio) / turn.text.length);
    parts.push(`${written}% of the text written at first audio`);
  }
  if (turn.receivedFrames) parts.push(`${fmtS(turn.receivedMs)} audio`);
  const agent = turn.metrics || {};
  if (agent.time_to_first_audio_ms !== undefined) {
    parts.push(`agent: first audio ${fmtMs(agent.time_to_first_audio_ms)}`);
  }
  metrics.textContent = parts.join(" · ");
  metrics.dataset.ttft = turn.ttftMs === null ? "" : String(turn.ttftMs);
  metrics.dataset.ttfa = turn.ttfaMs === null ? "" : String(turn.ttfaMs);
  answer.append(metrics);

  for (const error of turn.errors) {
    const missed = typeof error.text === "string" ? ` Not spoken: "${error.text}"` : "";
    answer.append(el("p", "turn-error", `${error.code}: ${error.message}${missed}`));
  }
  node.replaceChildren(user, answer);
}

// Light the word being heard; mark the ones already heard.
export function updateCaptions(turn, index, heardMs) {
  turn.nowIndex = index;
  turn.heardNow = heardMs;
  const node = document.querySelector(`[data-turn="${turn.id}"] .captions`);
  if (!node) return;
  node.dataset.now = String(index);
  for (const span of node.querySelectorAll(".word")) {
    const i = Number(span.dataset.i);
    span.classList.toggle("now", i === index);
    span.classList.toggle("spoken", Number(span.dataset.end) <= heardMs);
  }
}
