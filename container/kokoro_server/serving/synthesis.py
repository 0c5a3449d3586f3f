"""The synthesis service: loads the engine in the background and runs synthesis off the loop.

`/ping` reports healthy only after the model loaded and a warm-up synthesis succeeded.
Inference and encoding run in a small thread pool shared by all sessions, so the event loop
(pings, WebSocket accepts, other sessions' sends) never waits on the model. The pool takes
work in the order of the scheduler (scheduler.py): each request queues its job there and
submits one "take the next job" task to the pool, so a free worker always runs whichever job
the scheduler ranks first at that moment, not the oldest submission.

Barge-in and hang-ups free the engine at once: `drop(owner)` removes the owner's queued jobs
and stops its running one (each job's model calls run with a RunOptions its StopSignal can
terminate, engine/stop.py); the waiter gets Dropped, never an error, and no other job is
touched.

Pre-emption (deadline scheduler, KOKORO_PREEMPT_MAX): when a job arrives that the scheduler
ranks before a running one that cannot finish in time for it, and the running one's session
has audio in hand for a rerun (`Scheduler.victim`), the running job's model call is stopped
the same way and the job goes back to the scheduler where it was (`Scheduler.requeue`), with
a fresh StopSignal; its waiter notices nothing but the time. The model is deterministic, so
its rerun gives the same bytes.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import math
import threading
import time
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from kokoro_server.audio import encoding as audio
from kokoro_server.config import Settings
from kokoro_server.engine.model import KokoroEngine
from kokoro_server.engine.model_files import locate
from kokoro_server.engine.pacing import Pacing, pace
from kokoro_server.engine.stop import Stopped, StopSignal
from kokoro_server.engine.word_times import WordTiming
from kokoro_server.logs import fields
from kokoro_server.serving.capacity import CapacityMeter
from kokoro_server.serving.scheduler import Running, Scheduler
from kokoro_server.spoken import Phonemized
from kokoro_server.text.frontend import TextFrontend
from kokoro_server.text.languages import LANGUAGES
from kokoro_server.text.pronunciation import Lexicon, load_lexicon_file

log = logging.getLogger("kokoro.synthesis")

WARM_UP_TEXT = "Hello, this is a warm-up sentence."


@dataclass(frozen=True)
class Synthesized:
    data: bytes  # encoded audio in the asked format
    duration_s: float
    synth_ms: float  # model time
    encode_ms: float
    started_at: float  # perf_counter when a worker thread picked it up
    frame_sizes: tuple[int, ...] = ()  # units a binary frame must not split (Ogg pages)
    words: tuple[WordTiming, ...] | None = None  # None: the model gives no durations
    lead_cut_ms: float = 0.0  # the model's silence cut before the first sound (pacing.py)
    pause_ms: float = 0.0  # the pause added after the piece


def build_frontend(settings: Settings, vocab: dict[str, int]) -> TextFrontend:
    """The text front end, with the server-wide lexicon if KOKORO_LEXICON names one."""
    lexicon = load_lexicon_file(settings.lexicon, vocab) if settings.lexicon else None
    return TextFrontend(vocab, lexicon)


def load_languages(frontend: TextFrontend, voices: list[str]) -> None:
    """Load the G2P of every voice's language now, not in a first request; log the missing.

    English always: Japanese and Mandarin voices read Latin-script text with it.
    """
    letters = sorted({"a", *(v[:1] for v in voices if v[:1] in LANGUAGES)})
    for letter, problem in frontend.warm_up([f"{letter}_" for letter in letters]).items():
        log.warning("language unavailable", extra=fields(language=LANGUAGES[letter], error=problem))


def freeze_loaded_heap() -> None:
    """Move everything alive once the engine is loaded out of the garbage collector's sight.

    The libraries and data a loaded server holds (emoji, G2P and normalizer tables, the
    model's bindings) are hundreds of thousands of objects that live as long as the process,
    and every full collection walked them all: a 20,000-frame stream's garbage triggered one
    that held the event loop for 130 ms (docs/reliability.md). What is allocated later is
    collected as usual."""
    gc.collect()
    gc.freeze()


class Dropped(Exception):
    """The job left the queue unrun because its owner cancelled (barge-in)."""


@dataclass(eq=False)  # by identity: one job, one entry in _running
class _Job:
    run: Callable[[StopSignal], Synthesized]
    future: asyncio.Future[Synthesized]
    loop: asyncio.AbstractEventLoop
    owner: Hashable
    deadline: float
    cost_s: float  # expected model seconds (math.inf before anything was measured)
    chars: int
    # Changed under the service's lock only:
    stop: StopSignal  # a fresh one for each attempt: a pre-empted job runs again
    ticket: int = -1
    started: float = 0.0  # perf_counter when its current attempt was taken
    preemptions: int = 0
    preempting: bool = False  # stopped to be requeued, not dropped
    dropped: bool = False  # cancelled, hung up or its waiter gone: never requeued


@dataclass(frozen=True)
class SynthesisRequest:
    """One piece to speak, as a worker runs it."""

    text: str
    voice: str
    speed: float
    format: str
    sample_rate: int
    lexicon: Lexicon | None  # the session's own; None: the server-wide one
    ending: str  # what ended the piece (segmenter): picks the pause added after its audio
    pause_scale: float


def _settle(job: _Job, result: Synthesized | None, error: BaseException | None) -> None:
    """Hand a worker's outcome to the waiting coroutine, from any thread."""

    def settle() -> None:
        if job.future.done():  # its waiter was cancelled meanwhile
            return
        if error is not None:
            job.future.set_exception(error)
        else:
            job.future.set_result(result)  # type: ignore[arg-type]

    with contextlib.suppress(RuntimeError):  # the waiter's loop is already closed
        job.loop.call_soon_threadsafe(settle)


class SynthesisService:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.engine: KokoroEngine | None = None
        self.state = "loading"  # loading -> ready | failed
        self.failure: str | None = None
        self._executor = ThreadPoolExecutor(
            max_workers=max(1, settings.synth_workers), thread_name_prefix="kokoro-synth"
        )
        self._ready = threading.Event()
        self._lock = threading.Lock()  # guards the scheduler and the capacity meter
        self._queue: Scheduler[_Job] = Scheduler(
            settings.scheduler,
            settings.scheduler_max_overtakes,
            settings.preempt_max,
            settings.preempt_slack_s,
        )
        self.capacity = CapacityMeter(settings.synth_workers)
        self._running: dict[Hashable, set[_Job]] = {}  # jobs in a worker now, by owner
        self.stopped_jobs = 0  # running jobs stopped by a cancel or hang-up (for tests)
        self.preempted_jobs = 0  # running jobs stopped and requeued (tests, benchmark)
        self.pacing = Pacing.from_settings(settings)  # bad KOKORO_TRIM_*/PAUSE_* fail here

    @property
    def ready(self) -> bool:
        return self.state == "ready"

    def load(self) -> None:
        """Blocking: load the weights, then prove the model works with a warm-up synthesis."""
        try:
            files = locate(self.settings.model_dir, self.settings.model_file)
            frontend = build_frontend(self.settings, files.vocab)
            engine = KokoroEngine(self.settings, files, frontend)
            load_languages(frontend, engine.voice_names)
            started = time.perf_counter()
            warm = engine.synthesize(WARM_UP_TEXT, engine.default_voice)
            if warm.size == 0 or not float(abs(warm).max()) > 0.0:
                raise RuntimeError("warm-up synthesis produced silence")
            log.info(
                "warm-up done",
                extra=fields(
                    ms=round((time.perf_counter() - started) * 1000, 1), voice=engine.default_voice
                ),
            )
            self.engine = engine
            freeze_loaded_heap()
            self.state = "ready"
        except Exception as exc:
            self.failure = f"{type(exc).__name__}: {exc}"
            self.state = "failed"
            log.exception("model load failed", extra=fields(error=self.failure))
        finally:
            self._ready.set()

    def start_loading(self) -> threading.Thread:
        thread = threading.Thread(target=self.load, name="kokoro-load", daemon=True)
        thread.start()
        return thread

    async def wait_ready(self) -> KokoroEngine:
        """Wait (without blocking the loop) until loading finished; raise if it failed."""
        while not self._ready.is_set():  # noqa: ASYNC110 - set by the loader thread
            await asyncio.sleep(0.05)
        if self.engine is None:
            raise RuntimeError(f"model not available: {self.failure}")
        return self.engine

    def _run(self, request: SynthesisRequest, stop: StopSignal) -> Synthesized:
        """Worker thread: the model, the pacing, the encoding of one piece."""
        assert self.engine is not None
        started = time.perf_counter()
        # Only a session with its own lexicon passes one (test doubles take none).
        extra = {"lexicon": request.lexicon} if request.lexicon else {}
        speech = self.engine.synthesize_timed(
            request.text, request.voice, request.speed, stop=stop, **extra
        )
        paced = pace(
            speech.audio,
            speech.words,
            self.pacing,
            request.ending,
            call_samples=speech.call_samples,
            joins=speech.joins,
            scale=request.pause_scale,
        )
        synthesized = time.perf_counter()
        stop.check()  # stopped after the last model call: nobody wants the encoding
        encoded = audio.encode(paced.audio, request.format, request.sample_rate)
        done = time.perf_counter()
        return Synthesized(
            data=encoded.data,
            frame_sizes=encoded.frame_sizes,
            duration_s=audio.duration_s(paced.audio),
            synth_ms=round((synthesized - started) * 1000, 1),
            encode_ms=round((done - synthesized) * 1000, 1),
            started_at=started,
            words=paced.words,
            lead_cut_ms=round(paced.lead_cut_ms, 1),
            pause_ms=round(paced.pause_ms, 1),
        )

    async def synthesize(
        self,
        text: str,
        voice: str,
        speed: float,
        fmt: str,
        rate: int,
        lexicon: Lexicon | None = None,
        *,
        ending: str = "end",
        pause_scale: float = 1.0,
        deadline: float | None = None,
        owner: Hashable | None = None,
    ) -> Synthesized:
        """Synthesize in a worker thread once the scheduler ranks this job first.

        ending: what ended the piece (segmenter `Piece.ending`), which picks the pause added
        after its trimmed audio; pause_scale: the session's `pause_scale`.
        deadline: perf_counter time by which the audio is needed (default: now).
        owner: the session; its jobs keep their order and `drop(owner)` removes them.
        Raises Dropped if the job is dropped before it runs.
        """
        request = SynthesisRequest(text, voice, speed, fmt, rate, lexicon, ending, pause_scale)
        await self.wait_ready()
        loop = asyncio.get_running_loop()
        job = _Job(
            lambda stop: self._run(request, stop),
            loop.create_future(),
            loop,
            object() if owner is None else owner,
            time.perf_counter() if deadline is None else deadline,
            math.inf,
            len(text),
            StopSignal(),
        )
        ticket = self._queue_job(job)
        try:
            return await job.future
        except asyncio.CancelledError:  # the session went away: its job need not run
            with self._lock:
                self._queue.discard(ticket)
                job.dropped = True
                stop = job.stop
            stop.stop()  # nor go on running if a worker has it
            raise

    def _queue_job(self, job: _Job) -> int:
        """Rank the job, pre-empt a running one if the scheduler says so, and have a worker
        take whichever job ranks first; the job's ticket."""
        with self._lock:
            job.cost_s = self._cost_s(job.chars)
            job.ticket = ticket = self._queue.push(job.owner, job.deadline, job, job.cost_s)
            victim = self._victim()
        if victim is not None:
            victim.stop()  # its worker requeues the job and takes the one ranked first
        try:
            self._executor.submit(self._take_next)
        except RuntimeError:  # shut down: nothing will ever take the job
            with self._lock:
                self._queue.discard(ticket)
            raise
        return ticket

    def _cost_s(self, chars: int) -> float:
        """Under the lock: expected model seconds for a job (inf: nothing measured yet)."""
        cost = self.capacity.cost_s(chars)
        return math.inf if cost is None else cost

    def _victim(self) -> StopSignal | None:
        """Under the lock: mark the running job to pre-empt, if any; its signal to stop."""
        if not self._queue.max_preemptions:
            return None
        # A job stopped already frees its worker soon: it counts as a free worker here.
        running = [job for jobs in self._running.values() for job in jobs if not job.preempting]
        views = [Running(j.deadline, j.cost_s, j.started, j.preemptions) for j in running]
        index = self._queue.victim(views, time.perf_counter(), self.capacity.workers)
        if index is None:
            return None
        running[index].preempting = True
        return running[index].stop

    def _take_next(self) -> None:
        """Worker thread: run the job the scheduler ranks first (one call per queued job).

        A pre-empted job goes back to the scheduler and this worker takes the next one: the
        requeued job has no call of its own, the job that pre-empted it does."""
        while (job := self._start_next()) is not None:
            try:
                result = job.run(job.stop)
            except Stopped:
                with self._lock:
                    self._finished(job)
                    if job.preempting and not job.dropped and not job.future.done():
                        self._requeue(job)
                        continue
                    self.stopped_jobs += 1
                _settle(job, None, Dropped("stopped during synthesis"))
                return
            except Exception as exc:
                with self._lock:
                    self._finished(job)
                _settle(job, None, exc)
                return
            with self._lock:
                self._finished(job)
                self.capacity.record(result.duration_s, result.synth_ms / 1000, job.chars)
            _settle(job, result, None)
            return

    def _start_next(self) -> _Job | None:
        """Pop the job ranked first and register it as running, at once (drop() sees it in
        one place); None when nothing is left (its job was dropped or discarded)."""
        with self._lock:
            while (job := self._queue.pop()) is not None:
                if not job.future.cancelled():  # a waiter that gave up needs no audio
                    job.started = time.perf_counter()
                    self._running.setdefault(job.owner, set()).add(job)
                    return job
        return None

    def _finished(self, job: _Job) -> None:
        """Under the lock: the job left its worker."""
        running = self._running.get(job.owner)
        if running is not None:
            running.discard(job)
            if not running:
                del self._running[job.owner]

    def _requeue(self, job: _Job) -> None:
        """Under the lock: a pre-empted job goes back where it was, to run again in full."""
        job.preempting = False
        job.preemptions += 1
        job.stop = StopSignal()
        self._queue.requeue(job.ticket, job.owner, job.deadline, job, job.cost_s)
        self.preempted_jobs += 1
        log.info(
            "sentence pre-empted",
            extra=fields(
                chars=job.chars,
                ran_ms=round((time.perf_counter() - job.started) * 1000, 1),
                due_in_ms=round((job.deadline - time.perf_counter()) * 1000),
            ),
        )

    def drop(self, owner: Hashable) -> int:
        """Barge-in or hang-up: remove an owner's queued jobs and stop its running one at
        once; their waiters get Dropped. Returns how many queued jobs were removed."""
        with self._lock:
            jobs = self._queue.cancel(owner)
            running = list(self._running.get(owner, ()))
            for job in running:
                job.dropped = True  # stopped for good, even if a pre-emption stopped it too
            stops = [job.stop for job in running]
        for stop in stops:
            stop.stop()  # the worker's model call ends within milliseconds
        for job in jobs:
            _settle(job, None, Dropped("cancelled before synthesis"))
        return len(jobs)

    @property
    def running(self) -> int:
        """Jobs in a worker thread now."""
        with self._lock:
            return sum(len(jobs) for jobs in self._running.values())

    def capacity_streams(self) -> float | None:
        with self._lock:
            return self.capacity.streams()

    @property
    def queued(self) -> int:
        with self._lock:
            return len(self._queue)

    @property
    def guard_decisions(self) -> int:
        """How often the starvation guard overrode the deadline order (for the benchmark)."""
        with self._lock:
            return self._queue.taken_by_guard

    async def phonemize(self, text: str, voice: str, lexicon: Lexicon | None) -> Phonemized:
        """What the model would be given for text, computed off the event loop."""
        engine = await self.wait_ready()
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, engine.phonemize, text, voice, lexicon)

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            jobs = []
            while (job := self._queue.pop()) is not None:
                jobs.append(job)
        for job in jobs:  # an error, not Dropped: accepted text was not synthesized
            _settle(job, None, RuntimeError("synthesis service shut down"))
