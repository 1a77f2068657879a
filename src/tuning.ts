/**
 * Tuning constants: numbers the code is tuned with but that no operator needs to set,
 * each with why it is what it is. Settings an operator may change live in config.ts
 * beside this file; a constant that an operator should be able to change moves there.
 * Ground, like config.ts: imported from anywhere, importing nothing.
 *
 * No value here is derived from the simulated web (src/sim/): it simulates sites from
 * these and the settings' defaults, never the other way round.
 */

// --- Sending and reading answers (engine) ---

/** A followed redirect's body is read to its end, so its connection is reused; a larger one is dropped. */
export const DRAIN_MAX_BYTES = 64 * 1024;

/**
 * The rest of a body after the classifier has decided is read and thrown away so its keep-alive
 * connection serves the next check: tens of kilobytes cost far less CPU than a new TLS handshake.
 * A rest larger than this, or slower than RELEASE_MAX_MS, is dropped with its connection.
 */
export const RELEASE_MAX_BYTES = 256 * 1024;
/** See RELEASE_MAX_BYTES: a slow rest would hold the connection longer than a new one costs. */
export const RELEASE_MAX_MS = 2_000;

/**
 * The classifier reads the whole body so far each time it is asked, so it is asked once per batch
 * of chunks that arrived together, and at the latest after this many new bytes, so that a fast
 * huge body still stops early.
 */
export const DECIDE_EVERY_BYTES = 64 * 1024;

/**
 * With a Content-Length and no more than this still to come, the classifier waits for the end:
 * reading the rest costs less than classifying the body so far once more, and the connection is
 * then free at once. A decision on a partial body is the whole body's, so only bytesRead changes.
 */
export const SMALL_REST_BYTES = 64 * 1024;

/** TLS sessions kept to resume, one per server name: a catalogue's origins and then some. */
export const MAX_TLS_SESSIONS = 4096;

/**
 * How long a connection beyond an origin's kept ones stays open once idle: long enough that the
 * next searches' paced requests to that origin (a few a second) still find it, where each new
 * connection costs a TLS handshake on both ends; short enough that a burst's extra connections
 * do not stay for the site's whole keep-alive.
 */
export const IDLE_GRACE_MS = 4000;

/**
 * How long a browser page must stay on one document after its load, with no navigation of its
 * own under way, to be read (ms): a challenge page's script starts its reload within it, and the
 * page behind the challenge is read once that reload's document comes (transport/page-settling.ts).
 */
export const BROWSER_SETTLE_MS = 400;

/**
 * How long a navigation a browser page started itself may go unanswered (ms): past it the
 * navigation is stopped and the page read as it stands, so a page that navigates where nothing
 * answers holds its browser context this long, not the check's whole deadline. Long enough for
 * a slow site to answer a challenge's reload.
 */
export const BROWSER_NAVIGATION_WAIT_MS = 5_000;

/**
 * How long a browser page read as a challenge its script passes unattended is waited for to move
 * on (ms), from its first reading: live ones pass within seconds, and one still standing after
 * this is looping or waits for a person; the check then reads it as the challenge, and its
 * browser context is free for the next before the deadline.
 */
export const BROWSER_CHALLENGE_WAIT_MS = 5_000;

/**
 * How many times a browser page that moved on while it was read is read again before the read's
 * failure stands: each retry waits for the page to settle anew.
 */
export const BROWSER_READ_TRIES = 3;

/**
 * How many times the body cap a browser page's subresources (its scripts, its data requests) may
 * read together. A single-page site's script bundle is often past the cap of one answer, and it
 * must run for the page to say anything; a page that asks for more is stopped as one whose
 * document passed the cap is.
 */
export const BROWSER_SUBRESOURCE_CAP_FACTOR = 8;

// --- Scheduling (schedule) ---

/**
 * Share of the check deadline within which the requests not yet sent to a site, and a search's
 * own, must all go for the site to admit the search: the rest of the deadline is left to control
 * checks and retries, which take send times from the same budgets.
 */
export const ADMIT_SHARE = 0.9;

/**
 * Paths ahead shorter than this are alike to the in-flight cap (ms), and longer ones within a
 * factor of two: a path is an estimate, so only a clear difference comes before priority.
 */
export const PATH_UNIT_MS = 500;

/**
 * The share of its rate a guessed site limit keeps after each rate-limited answer: halving finds
 * a site's limit in a few answers, and the slow climb back (`recoveryPerMinute`) finds what it bears.
 */
export const LIMIT_DECREASE_FACTOR = 0.5;
/** A learned limit sends one request at a time: a site that rate-limited us has shown it counts closely. */
export const LEARNED_BURST = 1;

/**
 * Longest a search waits for the shelf (learned limits, transports) to be read again before it
 * starts (ms): the copy read before serves meanwhile, so a store that does not answer holds no search.
 */
export const SHELF_READ_WAIT_MS = 1_000;

// --- Reading a control check (engine) ---

/**
 * Two body lengths this close are "the same page" (the name itself, a date or a token differ
 * between two renderings): at most this many bytes apart...
 */
export const SAME_LENGTH_BYTES = 64;
/** ...or this share of the longer one. */
export const SAME_LENGTH_SHARE = 0.02;

/**
 * A control that got no answer (not sent, or no reply) is tried again after this at the latest
 * (ms), sooner than its window: until one answers, the platform's hits have nothing to be read against.
 */
export const UNANSWERED_CONTROL_MS = 60_000;

// --- Running searches (runner) ---

/**
 * How long an outcome may wait for others to be stored with it (ms): a store write per batch,
 * not per outcome, and still well within a poll's second. Each batch costs a networked store a
 * few round trips and about a dozen commands, so fewer, larger batches save most of them.
 */
export const OUTCOME_FLUSH_MS = 100;
/** Outcomes, or checks noted, written at once at most: a batch this long is written without waiting. */
export const OUTCOME_BATCH_MAX = 64;

/**
 * Share of never-measured platforms taken to answer only at the timeout (hung, slow or
 * unreachable) when a search is estimated: small enough that one or two unmeasured platforms add
 * little, large enough that with hundreds (a cold service) the estimate is about the timeout, as
 * one of them almost surely hangs (1 − 0.99³⁰⁰ ≈ 95%).
 */
export const UNMEASURED_SLOW_SHARE = 0.01;

/** Share of a search's platforms never measured above which its estimate is not learnt from: a cold guess teaches nothing. */
export const UNMEASURED_SHARE_NOT_LEARNT = 0.1;

/**
 * Search-thread restarts allowed within SEARCH_THREAD_RESTART_WINDOW_MS before its running
 * searches are given up: a thread that keeps dying would otherwise restart forever.
 */
export const SEARCH_THREAD_MAX_RESTARTS = 5;
export const SEARCH_THREAD_RESTART_WINDOW_MS = 60_000;
/** How long a closing search thread may take to hand its searches back before it is terminated (ms). */
export const SEARCH_THREAD_CLOSE_GRACE_MS = 10_000;

// --- Stores ---

/**
 * Writes a store makes as round trips (Redis, PostgreSQL) in flight at once for one batch: they
 * overlap without taking a networked store's whole connection pool from other searches and the API.
 */
export const WRITES_IN_FLIGHT = 4;

/**
 * Rows deleted per retention sweep transaction: each batch holds SQLite's write lock for a few
 * milliseconds, and the event loop is given back between batches.
 */
export const SWEEP_BATCH_ROWS = 500;

/**
 * Weight of the newest answered check in a platform's `recentMs`, an exponentially weighted mean:
 * an estimate follows a site that slowed down within a few checks, and one outlier moves it little.
 */
export const RECENT_MS_ALPHA = 0.2;

/**
 * How long one read of every platform's recent latency serves a process (ms): a read costs a
 * networked store a command per platform, and latencies a few seconds old order a search as well.
 */
export const RECENT_LATENCIES_MAX_AGE_MS = 5_000;

/**
 * How long a SQLite statement waits for another process's write lock before failing with
 * SQLITE_BUSY (ms): a write holds it for milliseconds, so only a stuck writer outlasts this.
 */
export const SQLITE_BUSY_TIMEOUT_MS = 5_000;

/**
 * Longest wait for one Redis command before Redis counts as unavailable (ms): far above a healthy
 * command's milliseconds, short enough that a request answers 503 within seconds, never hangs.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 3_000;

/**
 * Redis keeps a cache entry this long past its expiry by the wall clock (ms); reads compare with
 * the caller's clock, so a process whose clock is a little behind still finds the entry it expects.
 */
export const REDIS_CACHE_GRACE_MS = 5 * 60_000;

// --- The browser transport ---

/**
 * How long closing a check's context may take (ms) before its Chromium is taken as hung: a
 * healthy browser closes one in milliseconds, and one that does not would hold the check's
 * slot for ever. The hung browser is killed and the next check launches another.
 */
export const BROWSER_CLOSE_MS = 5_000;

/**
 * How long a wiped browser tab waits for the next check of its identity before it is
 * closed (ms): long enough to carry a search's browser checks, short enough that an idle
 * engine gives its memory back.
 */
export const BROWSER_TAB_IDLE_MS = 15_000;

/** How long a Chromium may take to start (ms); past it the launch fails and the next check tries again. */
export const BROWSER_LAUNCH_MS = 30_000;

/**
 * How often a check waiting for a browser slot asks again (ms): a slot freed in another
 * thread or worker wakes no one here, so the wait polls, each ask one Redis script or a look
 * at shared memory.
 */
export const BROWSER_SLOT_POLL_MS = 100;

// --- The API ---

/** A comment line on an idle event stream this often (ms), so proxies and browsers keep it open. */
export const SSE_HEARTBEAT_MS = 15_000;

/** How often the API reads the platforms' health verdicts again (ms): a broken platform leaves searches within seconds. */
export const HEALTH_REFRESH_MS = 5_000;

/**
 * How long a stream's client waits before it reconnects when its process shuts down (ms): long
 * enough for the load balancer to stop sending to the process that leaves.
 */
export const SSE_RECONNECT_AFTER_MS = 2_000;

/**
 * Retry-After (s) when the store is unreachable: the connection is retried in the background, and
 * a client asking again this often finds it back soon without adding to the outage's load.
 */
export const STORE_RETRY_AFTER_SECONDS = 5;

/**
 * How long a failed start may spend closing what it opened before the process ends anyway (ms):
 * a store that hangs must not keep alive a process that has already failed.
 */
export const CLOSE_AFTER_FAILURE_MS = 3_000;

// --- The command line ---

/**
 * A platform the command line remembers as taking at least this share of the timeout is slow: its
 * control goes out with its check, so a hit there does not wait for a second slow answer.
 */
export const SLOW_SHARE_OF_TIMEOUT = 0.25;

/**
 * Outcome-cache rows kept per username in Redis at most (a row is one batch of a search's
 * checks, a few dozen to a hundred a search): the oldest go first, so a name searched over and
 * over keeps its latest searches' entries and a read stays a bounded list.
 */
export const CACHE_ROWS_KEPT = 2_000;
