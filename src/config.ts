/**
 * Every setting of userscout in one place: its default, its environment
 * variable and what it means. `loadConfig` merges defaults, environment and
 * explicit overrides once, and validates each value with a message that names
 * the setting and the value received. Numbers the code is tuned with that no
 * operator sets live beside this file, in tuning.ts.
 */
import { isIP } from 'node:net';
import { ConfigError } from './errors.js';

type Kind =
  | { readonly type: 'int'; readonly min: number; readonly max: number }
  | { readonly type: 'number'; readonly min: number; readonly max: number }
  | { readonly type: 'bool' }
  | { readonly type: 'string' }
  | { readonly type: 'list' }
  | { readonly type: 'enum'; readonly values: readonly string[] };

interface SettingSpec<T> {
  readonly env: string;
  readonly default: T;
  /**
   * The default when the command line runs checks itself (`search`, `catalogue
   * self-check`): one person's machine, nothing else sharing the process.
   */
  readonly cliDefault?: T;
  /**
   * The default (or `cliDefault`) is per egress identity: loadConfig multiplies it by the
   * identities `egress` lists (one when it lists none), within the kind's maximum. A value
   * from the environment or an override is the whole, as given.
   */
  readonly perIdentity?: true;
  /** Its value is a secret: an error about it never shows the value. */
  readonly secret?: true;
  readonly kind: Kind;
  readonly doc: string;
  /** Checks a parsed value beyond its kind: what it must be, or undefined when it is fine. */
  readonly validate?: (value: never) => string | undefined;
}

const int = (min: number, max: number): Kind => ({ type: 'int', min, max });
const decimal = (min: number, max: number): Kind => ({ type: 'number', min, max });
const MINUTE = 60_000;

/** What Fastify's `trustProxy` takes for USERSCOUT_TRUST_PROXY: off, any proxy, a hop count, or the trusted addresses/CIDRs. */
export function trustProxyOf(value: string): boolean | number | string[] {
  const text = value.trim();
  if (text === '' || text === 'false') return false;
  if (text === 'true') return true;
  if (/^\d+$/.test(text)) return Number(text);
  return text.split(',').map((s) => s.trim());
}

/** proxy-addr's names for ranges, accepted in the list as Fastify accepts them. */
const TRUST_PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function trustProxyProblem(value: string): string | undefined {
  const trusted = trustProxyOf(value);
  if (!Array.isArray(trusted)) return undefined;
  const bad = trusted.find((entry) => {
    if (TRUST_PROXY_NAMES.has(entry)) return false;
    const [address = '', prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    const bits = family === 6 ? 128 : 32;
    return (
      family === 0 ||
      rest.length > 0 ||
      (prefix !== undefined && !(/^\d+$/.test(prefix) && Number(prefix) <= bits))
    );
  });
  return bad === undefined
    ? undefined
    : `"true", "false", a hop count, or comma-separated IP addresses/CIDRs (or loopback, linklocal, uniquelocal); "${bad}" is none`;
}

/** The settings table. The README's configuration section names every one (test/readme.test.ts checks). */
export const SETTINGS = {
  host: {
    env: 'HOST',
    default: '127.0.0.1',
    kind: { type: 'string' },
    doc: 'Address the REST service listens on',
  },
  port: { env: 'PORT', default: 3000, kind: int(0, 65535), doc: 'Port the REST service listens on' },
  // A worker's port of its own, so the cluster's commands run as written on one machine (an API
  // and several workers on one PORT would collide); 0 lets each worker take a free one and log it.
  workerPort: {
    env: 'USERSCOUT_WORKER_PORT',
    default: 0,
    kind: int(0, 65535),
    doc: "Port a cluster worker serves /healthz, /readyz and /metrics on (PORT is the API's); 0: a free one, logged at start",
  },
  // Node listens with a queue of 511 connections not yet accepted. A burst of new connections
  // larger than that (a flood, or a thousand clients reconnecting their event streams after a
  // restart) overflows it, and the kernel drops the SYNs of everyone, legitimate clients
  // included, who retry after 1 s and 3 s. Linux caps it at net.core.somaxconn.
  listenBacklog: {
    env: 'USERSCOUT_LISTEN_BACKLOG',
    default: 4096,
    kind: int(1, 65_535),
    doc: 'Connections the REST port queues before the service accepts them (the kernel caps it at net.core.somaxconn, 4096 on current Linux); past it, new connections wait for SYN retries',
  },
  dataDir: {
    env: 'USERSCOUT_DATA_DIR',
    default: './data',
    kind: { type: 'string' },
    doc: 'Folder of the SQLite database and health file',
  },
  catalogue: {
    env: 'USERSCOUT_CATALOGUE',
    default: '',
    kind: { type: 'string' },
    doc: 'Catalogue file to use instead of the built-in one (our format, WhatsMyName, Sherlock or Maigret)',
  },
  redisUrl: {
    env: 'REDIS_URL',
    default: '',
    kind: { type: 'string' },
    doc: 'Redis URL; when set, cluster mode (Redis store, BullMQ queue)',
  },
  role: {
    env: 'USERSCOUT_ROLE',
    default: 'all',
    kind: { type: 'enum', values: ['all', 'api', 'worker'] },
    doc: 'Process role in cluster mode: api, worker, or all',
  },
  redisPrefix: {
    env: 'USERSCOUT_REDIS_PREFIX',
    default: 'userscout',
    kind: { type: 'string' },
    doc: 'Prefix of every Redis key and of the BullMQ queue (cluster mode); one per deployment',
  },
  // The store of record: PostgreSQL instead of SQLite, or of Redis in cluster mode.
  databaseUrl: {
    env: 'DATABASE_URL',
    default: '',
    kind: { type: 'string' },
    doc: 'PostgreSQL URL (postgres://...); when set, searches, outcomes, API keys, platform statistics and watchlists live there, and Redis (cluster mode) keeps only the queue, limits, live events, the outcome cache and control checks',
    validate: (url: string) =>
      url === '' || /^postgres(ql)?:\/\//.test(url)
        ? undefined
        : 'a postgres:// or postgresql:// URL, or empty',
  },
  jobLockMs: {
    env: 'USERSCOUT_JOB_LOCK_MS',
    default: 30_000,
    kind: int(1_000, 600_000),
    doc: "Lock on a running search (cluster mode, ms): a dead worker's search resumes on another after about this long",
  },
  webDir: {
    env: 'USERSCOUT_WEB_DIR',
    default: '',
    kind: { type: 'string' },
    doc: 'Folder of the built web page served at / (empty: dist/web of this package)',
  },
  // PDF reports are printed by headless Chromium (USERSCOUT_BROWSER_PATH) from the HTML report (src/report/pdf.ts).
  pdfTimeoutMs: {
    env: 'USERSCOUT_PDF_TIMEOUT_MS',
    default: 30_000,
    kind: int(1_000, 600_000),
    doc: 'Longest one PDF report may take to print (ms), Chromium started and closed included; past it the print is stopped',
  },
  // A print starts a browser (~100 MB): the service prints one at a time and lets only a few wait.
  pdfQueue: {
    env: 'USERSCOUT_PDF_QUEUE',
    default: 4,
    kind: int(0, 100),
    doc: 'PDF reports waiting for the one being printed (the service prints one at a time); past them, 503 pdf_busy',
  },
  logLevel: {
    env: 'USERSCOUT_LOG_LEVEL',
    default: 'info',
    kind: { type: 'enum', values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
    doc: 'pino log level',
  },
  // Engine
  timeoutMs: {
    env: 'USERSCOUT_TIMEOUT_MS',
    default: 10_000,
    kind: int(100, 120_000),
    doc: "Whole-check deadline per platform (ms), retries included; a check first waits at most this long for a send slot of its request budget (once more if it had one and missed it by the process's own delay), else it ends as unknown/budget_exhausted unsent",
  },
  connectTimeoutMs: {
    env: 'USERSCOUT_CONNECT_TIMEOUT_MS',
    default: 5_000,
    kind: int(100, 60_000),
    doc: 'TCP+TLS connect deadline (ms)',
  },
  connectsAtOnce: {
    env: 'USERSCOUT_CONNECTS_AT_ONCE',
    // A cold search begins hundreds of handshakes together, each holding its TLS state and
    // CPU meanwhile: opened all at once on a small machine, the last ones pass their deadline.
    default: 32,
    kind: int(0, 100_000),
    doc: 'Connections being opened (TCP+TLS handshake) at once per egress identity, the others waiting their turn (0: no bound), as a cold search begins hundreds together',
  },
  // A check holds its slot for its answer time (the whole timeout when none comes), so the
  // slots a search needs grow with the platforms it covers (docs/deployment.md, `S_check`).
  // Slots follow the identities, so adding one adds capacity without a second setting to find.
  concurrency: {
    env: 'USERSCOUT_CONCURRENCY',
    default: 512,
    perIdentity: true,
    kind: int(1, 4096),
    doc: 'Checks in flight at once, over all searches; by default 512 per egress identity (USERSCOUT_EGRESS), at most 4096',
  },
  // Politeness is the request-rate budget; this only caps open connections. In flight
  // = rate × answer time: 32 keeps the default budget (4/s) the bound for answers
  // up to 8 s long, where a cap of 2 held slow platforms to one check every few seconds.
  perHost: {
    env: 'USERSCOUT_PER_HOST',
    default: 32,
    kind: int(1, 1024),
    doc: 'Checks (and keep-alive connections) in flight at once to one origin, per egress identity and process; a cap on connections, while politeness is the request budget',
  },
  // A modest pace that most sites allow one address, so a polite client seldom meets their
  // 429s; a site known to limit harder gets its own budget in the catalogue. The simulated web
  // seeds its sites' limits above this default, not the other way round.
  budgetPerSecond: {
    env: 'USERSCOUT_BUDGET_PER_SECOND',
    default: 4,
    kind: decimal(0.001, 10_000),
    doc: 'Requests a second, on average, sent to one origin through one egress identity (a platform may set its own in the catalogue)',
  },
  // Bursts matter little to throughput (the rate does) and a smaller one leaves a site's
  // limiter room for requests the network delays and then delivers together.
  budgetBurst: {
    env: 'USERSCOUT_BUDGET_BURST',
    default: 2,
    kind: int(1, 10_000),
    doc: 'Requests sent at once to one origin through one egress identity before the rate applies',
  },
  // A site that answers 429 (or 503 with rate-limit headers) teaches its limit per egress
  // identity (src/schedule/learned-limit.ts); the budget above stays the ceiling.
  siteLimitFloor: {
    env: 'USERSCOUT_SITE_LIMIT_FLOOR',
    default: 0.1,
    kind: decimal(0.001, 10_000),
    doc: "Lowest request rate (a second) a site's limit is ever learned down to, per origin and egress identity",
  },
  // Slow enough that a limit learned from guesses comes back over tens of minutes, not within a burst of searches.
  siteLimitRecovery: {
    env: 'USERSCOUT_SITE_LIMIT_RECOVERY',
    default: 0.1,
    kind: decimal(0, 10_000),
    doc: "Requests a second a site's learned limit regains each minute, back up to the budget (a limit the site states itself is held until it expires)",
  },
  siteLimitTtlMs: {
    env: 'USERSCOUT_SITE_LIMIT_TTL_MS',
    default: 60 * MINUTE,
    kind: int(0, 7 * 86_400_000),
    doc: "How long a site's learned limit is kept (ms), in the store and shared across a cluster (0: limits are not learned)",
  },
  egress: {
    env: 'USERSCOUT_EGRESS',
    default: [] as string[],
    kind: { type: 'list' },
    validate: (entries: readonly string[]) => egressProblem(entries),
    doc: 'Egress identities checks are spread over, each with its own budgets: addr:IP (a local source address) and/or proxy:URL (http://, https:// or socks5://), comma-separated; empty: the default route (and USERSCOUT_PROXY)',
  },
  http2: {
    env: 'USERSCOUT_HTTP2',
    default: false,
    kind: { type: 'bool' },
    doc: 'Offer HTTP/2 to origins (ALPN), so checks in flight to one origin share a connection',
  },
  // A connection is worth keeping for the next check to its origin; a CLI search uses
  // most origins once, and a thousand idle TLS connections cost ~80 MB (sockets, pools).
  keepIdleConnections: {
    env: 'USERSCOUT_KEEP_IDLE_CONNECTIONS',
    default: true,
    cliDefault: false,
    kind: { type: 'bool' },
    doc: 'Keep a connection open (keep-alive) after a check when no other check to its origin is waiting or in flight; the CLI closes it, since one search uses most origins once',
  },
  // Connections an origin keeps while idle, beyond which they close IDLE_GRACE_MS after their
  // answer (src/tuning.ts, src/engine/transport/idle-cap.ts): a check sent with its control, or searches reaching a
  // site together, each left one open for the site's whole keep-alive (a minute), and a site
  // whose host names the user is reached by one search only. 1 keeps what the next search
  // reuses and frees the rest, trading a little CPU for memory per extra search.
  idleConnectionsPerOrigin: {
    env: 'USERSCOUT_IDLE_CONNECTIONS_PER_ORIGIN',
    default: 1,
    kind: int(0, 1024),
    doc: 'Connections kept open (keep-alive) to one origin while idle, per egress identity; those opened beyond them for checks in flight together close four seconds after their answer',
  },
  // Sites ask for a minute or more (nginx's default is 75 s) and undici follows them up to
  // 10 minutes. A lower ceiling frees connections sooner, those to a site whose host names
  // the user (reached by one search only) among them, but reopens more between searches:
  // memory against CPU, so it is the operator's choice (figures in bench/results/history.md).
  keepAliveMaxMs: {
    env: 'USERSCOUT_KEEP_ALIVE_MAX_MS',
    default: 600_000,
    kind: int(1, 3_600_000),
    doc: "Longest an idle connection is kept open for the next check to its origin when the site's keep-alive allows longer (ms); lower saves memory for more handshakes",
  },
  // V8 sizes its heap for a long-running server; a CLI search is bounded work that ends
  // (src/lean-heap.ts: growth rates only, no ceiling, so a large search cannot run out of heap).
  leanHeap: {
    env: 'USERSCOUT_LEAN_HEAP',
    default: false,
    cliDefault: true,
    kind: { type: 'bool' },
    doc: "Collect garbage sooner rather than let the heap grow (the CLI search does: about a quarter less peak memory for some more CPU; it also keeps JavaScript in V8's interpreter and has every full collection give memory back, which a server never does); no heap ceiling either way",
  },
  bodyCapBytes: {
    env: 'USERSCOUT_BODY_CAP_BYTES',
    default: 1_048_576,
    kind: int(1024, 64 * 1_048_576),
    doc: 'Most body bytes read per answer',
  },
  escalations: {
    env: 'USERSCOUT_ESCALATIONS',
    default: 0,
    kind: int(0, 10_000),
    doc: 'Checks per search that may be tried again through a costlier transport (impersonate, then browser, when installed) when the answer is a bot defence, within the check deadline; 0 (the default) turns escalation off, since it may start Chromium',
  },
  // Forgetting costs one refused request and an escalation per site and identity; remembering
  // too long keeps a site that stopped defending itself on a costlier transport.
  transportMemoryTtlMs: {
    env: 'USERSCOUT_TRANSPORT_MEMORY_TTL_MS',
    default: 60 * MINUTE,
    kind: int(0, 7 * 86_400_000),
    doc: 'How long the transport a site needed is remembered (ms), per egress identity, in the store and shared across a cluster, so later checks of the site start there; kept only while escalation is on (0: nothing is remembered)',
  },
  browserPath: {
    env: 'USERSCOUT_BROWSER_PATH',
    default: '',
    kind: { type: 'string' },
    doc: 'Chromium executable for platforms whose transport is `browser` and for PDF reports; empty: the first of /usr/bin/chromium, /usr/bin/chromium-browser, /usr/bin/google-chrome found (without one, their checks read unknown, needs_browser)',
  },
  browserContexts: {
    env: 'USERSCOUT_BROWSER_CONTEXTS',
    default: 2,
    kind: int(1, 64),
    doc: 'Browser checks at once per process, search threads together (each a fresh Chromium context, closed after); a check waiting for one past its deadline ends unknown, budget_exhausted',
  },
  // A Chromium costs memory and CPU whatever it runs: one per process unless a crash taking
  // every context of the process with it costs more than a second browser.
  browsers: {
    env: 'USERSCOUT_BROWSERS',
    default: 1,
    kind: int(1, 16),
    doc: 'Chromium processes a process (cluster worker, or embedded service with its search threads together) launches, on the first browser check, and reuses; its contexts are spread over them, and one that crashes or hangs is replaced',
  },
  // A cluster's browsers share its machines' memory and its egress addresses: a cap over every
  // worker, in Redis, so adding workers does not multiply the browser checks at once.
  browserChecksAtOnce: {
    env: 'USERSCOUT_BROWSER_CHECKS_AT_ONCE',
    default: 8,
    kind: int(1, 100_000),
    doc: "Browser checks at once in the whole cluster (cluster mode: slots leased in Redis, freed when a worker dies); alone, the process's cap with USERSCOUT_BROWSER_CONTEXTS",
  },
  // Separate from the request budget: a browser check also fetches the page's scripts and
  // runs them, so a site that defends itself is sent few of them.
  browserChecksPerSiteMinute: {
    env: 'USERSCOUT_BROWSER_CHECKS_PER_SITE_MINUTE',
    default: 30,
    kind: int(1, 100_000),
    doc: 'Browser checks a site is sent a minute, on average, up to this many at once (per deployment in cluster mode); past it a browser check ends unknown, budget_exhausted, unsent',
  },
  retries: {
    env: 'USERSCOUT_RETRIES',
    default: 2,
    kind: int(0, 10),
    doc: 'Retries after 429, 503 or a reset connection',
  },
  retryBaseMs: {
    env: 'USERSCOUT_RETRY_BASE_MS',
    default: 250,
    kind: int(1, 60_000),
    doc: 'First backoff step (ms), doubled per retry, with jitter',
  },
  retryMaxMs: {
    env: 'USERSCOUT_RETRY_MAX_MS',
    default: 4_000,
    kind: int(1, 120_000),
    doc: 'Longest backoff or Retry-After honoured (ms)',
  },
  breakerTimeouts: {
    env: 'USERSCOUT_BREAKER_TIMEOUTS',
    default: 3,
    kind: int(0, 1_000),
    doc: 'Timeouts in a row after which an origin is not sent checks for a while (0: never)',
  },
  breakerCooldownMs: {
    env: 'USERSCOUT_BREAKER_COOLDOWN_MS',
    default: 60_000,
    kind: int(1_000, 3_600_000),
    doc: 'How long checks to such an origin end at once as error/timeout before one is tried again (ms)',
  },
  maxRedirects: {
    env: 'USERSCOUT_MAX_REDIRECTS',
    default: 5,
    kind: int(0, 20),
    doc: 'Redirects followed for platforms that follow them',
  },
  userAgent: {
    env: 'USERSCOUT_USER_AGENT',
    default:
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
    kind: { type: 'string' },
    doc: 'User-Agent sent to platforms',
  },
  proxy: {
    env: 'USERSCOUT_PROXY',
    default: '',
    kind: { type: 'string' },
    doc: 'http://, https:// or socks5:// proxy for all checks',
  },
  connectTo: {
    env: 'USERSCOUT_CONNECT_TO',
    default: [] as string[],
    kind: { type: 'list' },
    doc: 'Comma-separated HOST1:PORT1:HOST2:PORT2 rules (curl --connect-to)',
  },
  caFile: {
    env: 'USERSCOUT_CA_FILE',
    default: '',
    kind: { type: 'string' },
    doc: 'Extra CA certificates (PEM file) to trust',
  },
  // A login an operator gives platforms; read by create-engine.ts, never logged (session.ts).
  sessionsFile: {
    env: 'USERSCOUT_SESSIONS_FILE',
    default: '',
    kind: { type: 'string' },
    doc: 'JSON file of operator sessions: platform name -> { "cookies": { name: value } } and/or { "headers": { name: value } }, sent only to that platform\u2019s check host and never logged or returned (docs/sessions.md)',
  },
  sessions: {
    env: 'USERSCOUT_SESSIONS',
    default: '',
    secret: true,
    kind: { type: 'string' },
    doc: 'The same JSON as USERSCOUT_SESSIONS_FILE given inline, for a secret store that injects it into the environment; a platform may be named by one of the two only',
  },
  insecureTls: {
    env: 'USERSCOUT_INSECURE_TLS',
    default: false,
    kind: { type: 'bool' },
    doc: 'Accept any TLS certificate (tests only)',
  },
  refusePrivate: {
    env: 'USERSCOUT_REFUSE_PRIVATE',
    default: true,
    cliDefault: false,
    kind: { type: 'bool' },
    doc: 'Refuse private and loopback destinations (the CLI turns it off)',
  },
  server: {
    env: 'USERSCOUT_SERVER',
    default: '',
    kind: { type: 'string' },
    doc: 'CLI only: a userscout service to search through (its URL) instead of checking from this machine',
  },
  apiKey: {
    env: 'USERSCOUT_KEY',
    default: '',
    kind: { type: 'string' },
    doc: 'CLI only: the professional API key sent to USERSCOUT_SERVER (never printed)',
  },
  latencyMemory: {
    env: 'USERSCOUT_LATENCY_FILE',
    default: '',
    kind: { type: 'string' },
    doc: "File where the CLI remembers each platform's answer time between runs, to start the slowest checks first (empty: the user's cache folder, `$XDG_CACHE_HOME/userscout/latencies.json`; `off`: none)",
  },
  includeNsfw: {
    env: 'USERSCOUT_INCLUDE_NSFW',
    default: false,
    kind: { type: 'bool' },
    doc: 'Search NSFW platforms by default',
  },
  coverageWarningPercent: {
    env: 'USERSCOUT_COVERAGE_WARNING_PERCENT',
    default: 50,
    kind: int(0, 100),
    doc: 'A search where fewer than this share (%) of the platforms checked answered hit or miss is marked as low coverage (the CLI exits 3)',
  },
  // Service
  // A running search starts its checks only when its requests fit its sites' budgets
  // (src/schedule/scheduler.ts), so what runs at once follows the budgets, and they follow
  // the identities. A search lasts at least the timeout of the platforms that never answer,
  // longer on a busy machine, so the cap must hold the searches begun within that time and
  // those waiting to begin; a fixed cap held a second identity's budgets back, so it is per
  // identity, and high enough that the budgets or the machine bind before it does.
  maxRunningSearches: {
    env: 'USERSCOUT_MAX_RUNNING_SEARCHES',
    default: 24,
    perIdentity: true,
    kind: int(1, 1024),
    doc: "Searches that run at once, others queue; by default 24 per egress identity (USERSCOUT_EGRESS), at most 1024. A running search begins its checks once its requests fit its sites' request budgets",
  },
  searchThread: {
    env: 'USERSCOUT_SEARCH_THREAD',
    default: true,
    kind: { type: 'bool' },
    doc: 'Embedded mode: run searches on a thread of their own, so checks never hold up the API',
  },
  searchThreads: {
    env: 'USERSCOUT_SEARCH_THREADS',
    // 1, the lean choice: each thread is an isolate with its own connections, caches and, cold,
    // its own warm-up; on a warm service more threads do more searches an hour for the same CPU
    // a search, so set it to the cores for throughput.
    default: 1,
    kind: int(1, 64),
    doc: 'Embedded mode with searchThread: threads the searches run on (each search on one of them, the request budgets shared by all), so checks can use more than one core',
  },
  searchThreadYoungGenerationMb: {
    // A check's answers are short-lived garbage: a larger nursery collects them in fewer
    // scavenges for a fixed cost per thread. The benchmark's engine runs with the same value.
    env: 'USERSCOUT_SEARCH_THREAD_YOUNG_GENERATION_MB',
    default: 64,
    kind: int(8, 1024),
    doc: "Embedded mode with searchThread: each search thread's young generation (V8's nursery for new objects), MB. A check's answer, view and outcome are short-lived, but at real latency they live through more collections; a larger nursery collects them in fewer scavenges and promotes fewer. Its memory is a fixed cost per thread, not per search",
  },
  maxQueuedSearches: {
    env: 'USERSCOUT_MAX_QUEUED_SEARCHES',
    default: 200,
    kind: int(0, 100_000),
    doc: 'Queued searches before 503',
  },
  finishedAnswerCacheEntries: {
    env: 'USERSCOUT_FINISHED_ANSWER_CACHE_ENTRIES',
    default: 1000,
    kind: int(0, 1_000_000),
    doc: 'Answers of finished searches kept serialized in memory for polls (most recent first; 0: none)',
  },
  queueFullRetryAfterSeconds: {
    env: 'USERSCOUT_QUEUE_FULL_RETRY_AFTER_SECONDS',
    default: 30,
    kind: int(1, 3_600),
    doc: 'Retry-After (seconds) of the 503 that refuses a search because the queue is full',
  },
  unmeasuredLatencyMs: {
    env: 'USERSCOUT_UNMEASURED_LATENCY_MS',
    default: 1_000,
    kind: int(1, 120_000),
    doc: 'Response time (ms) assumed for a platform never measured, when estimating a search and ordering its checks',
  },
  freeLimit: {
    env: 'USERSCOUT_FREE_LIMIT',
    default: 10,
    kind: int(1, 1_000_000),
    doc: 'Searches per window for the free tier',
  },
  freeWindowMs: {
    env: 'USERSCOUT_FREE_WINDOW_MS',
    default: 15 * MINUTE,
    kind: int(1000, 86_400_000),
    doc: 'Free-tier window (ms)',
  },
  proLimit: {
    env: 'USERSCOUT_PRO_LIMIT',
    default: 1000,
    kind: int(1, 1_000_000),
    doc: 'Searches per window for a professional key',
  },
  proWindowMs: {
    env: 'USERSCOUT_PRO_WINDOW_MS',
    default: 60 * MINUTE,
    kind: int(1000, 86_400_000),
    doc: 'Professional window (ms)',
  },
  readLimit: {
    env: 'USERSCOUT_READ_LIMIT',
    default: 1200,
    kind: int(1, 10_000_000),
    doc: 'Other requests (polling, events, platform list) per minute per free-tier client',
  },
  proReadLimit: {
    env: 'USERSCOUT_PRO_READ_LIMIT',
    default: 6000,
    kind: int(1, 10_000_000),
    doc: 'Other requests per minute per professional key: following 100 running searches at one poll a second',
  },
  // Event streams: each open one holds a socket and is written every event; the caps keep
  // one client (or one shared search link) from tying up the process.
  streamLimit: {
    env: 'USERSCOUT_STREAM_LIMIT',
    default: 20,
    kind: int(1, 1_000_000),
    doc: 'Event streams (GET /api/search/{id}/events) open at once per free-tier client address, per API process',
  },
  proStreamLimit: {
    env: 'USERSCOUT_PRO_STREAM_LIMIT',
    default: 200,
    kind: int(1, 1_000_000),
    doc: 'Event streams open at once per professional key, per API process',
  },
  searchStreamLimit: {
    env: 'USERSCOUT_SEARCH_STREAM_LIMIT',
    default: 100,
    kind: int(1, 1_000_000),
    doc: 'Event streams open at once on one search, over all clients, per API process',
  },
  streamFlushMs: {
    env: 'USERSCOUT_STREAM_FLUSH_MS',
    default: 50,
    kind: int(0, 5_000),
    doc: 'Live events of a search arriving within this long (ms) go to its event streams in one write each',
  },
  // Batches and lookalike names: each search they start counts against the search limit.
  maxBatchNames: {
    env: 'USERSCOUT_MAX_BATCH_NAMES',
    default: 25,
    kind: int(1, 1000),
    doc: 'Most names in one batch (POST /api/searches); each starts a search of its own',
  },
  maxVariantsPerRequest: {
    env: 'USERSCOUT_MAX_VARIANTS',
    default: 10,
    kind: int(0, 100),
    doc: 'Most lookalike names generated, and searched, for one name (`variants` on POST /api/search, `--variants`, `userscout variants`)',
  },
  // Recursive searches: each follow-up counts against the search limit of the parent's caller.
  maxFollowUps: {
    env: 'USERSCOUT_MAX_FOLLOW_UPS',
    default: 10,
    kind: int(0, 100),
    doc: 'Most follow-up searches one `recursive` search starts (new names found in its hits\u2019 profile links and ids; depth 1)',
  },
  followUpLeaseMs: {
    env: 'USERSCOUT_FOLLOW_UP_LEASE_MS',
    default: 60_000,
    kind: int(1_000, 86_400_000),
    doc: 'How long (ms) the process starting a completed `recursive` search\u2019s follow-ups holds them; one that died doing it is taken over after this long, by the next read of the search',
  },
  followUpRetryForMs: {
    env: 'USERSCOUT_FOLLOW_UP_RETRY_FOR_MS',
    default: 15 * MINUTE,
    kind: int(0, 86_400_000),
    doc: 'How long (ms) after a `recursive` search completes its follow-ups stay pending while the queue is full, tried again by the first read after each USERSCOUT_FOLLOW_UP_LEASE_MS; after, a name the queue still refuses is recorded as not searched (queue full)',
  },
  trustProxy: {
    env: 'USERSCOUT_TRUST_PROXY',
    default: '',
    kind: { type: 'string' },
    validate: (value: string) => trustProxyProblem(value),
    doc: 'Which proxies in front may name the client (X-Forwarded-For): "" or "false" (none), "true" (any), a hop count, or comma-separated proxy addresses/CIDRs',
  },
  metricsToken: {
    env: 'USERSCOUT_METRICS_TOKEN',
    default: '',
    kind: { type: 'string' },
    doc: 'Bearer token that GET /metrics requires (Authorization: Bearer TOKEN); empty: the API port does not serve /metrics, and a worker serves it on its own port without one',
  },
  revocationCheckMs: {
    env: 'USERSCOUT_REVOCATION_CHECK_MS',
    default: 5_000,
    kind: int(50, 600_000),
    doc: 'How often (ms) each API process reads the API keys: a key revoked since has its event streams closed and its queued and running searches ended (error "key revoked")',
  },
  ipv6Prefix: {
    env: 'USERSCOUT_IPV6_PREFIX',
    default: 64,
    kind: int(32, 128),
    doc: 'Keyless IPv6 clients are counted by this prefix of their address (a host holds a whole /64, and could rotate through it); 128: each address',
  },
  bodyLimitBytes: {
    env: 'USERSCOUT_BODY_LIMIT_BYTES',
    default: 4096,
    kind: int(64, 1_048_576),
    doc: 'Largest request body accepted',
  },
  retentionDays: {
    env: 'USERSCOUT_RETENTION_DAYS',
    default: 7,
    kind: int(1, 3650),
    doc: 'Days a search is kept',
  },
  cacheHitSeconds: {
    env: 'USERSCOUT_CACHE_HIT_SECONDS',
    default: 86_400,
    kind: int(0, 31_536_000),
    doc: 'How long a hit is reused',
  },
  cacheMissSeconds: {
    env: 'USERSCOUT_CACHE_MISS_SECONDS',
    default: 3_600,
    kind: int(0, 31_536_000),
    doc: 'How long a miss is reused',
  },
  cacheOtherSeconds: {
    env: 'USERSCOUT_CACHE_OTHER_SECONDS',
    default: 300,
    kind: int(0, 31_536_000),
    doc: 'How long unknown/error outcomes are reused',
  },
  // --- Watchlists and webhooks ---
  watchlistMinIntervalMs: {
    env: 'USERSCOUT_WATCHLIST_MIN_INTERVAL_MS',
    default: 3_600_000,
    kind: int(1_000, 2_592_000_000),
    doc: 'Shortest interval a watchlist may have (ms); lower it only for tests',
  },
  watchlistMaxNames: {
    env: 'USERSCOUT_WATCHLIST_MAX_NAMES',
    default: 20,
    kind: int(1, 1_000),
    doc: 'Names one watchlist may hold; each is one search per run',
  },
  watchlistTickMs: {
    env: 'USERSCOUT_WATCHLIST_TICK_MS',
    default: 5_000,
    kind: int(20, 600_000),
    doc: 'How often the scheduler looks for due runs and pending webhook deliveries (ms)',
  },
  watchlistLeaseMs: {
    env: 'USERSCOUT_WATCHLIST_LEASE_MS',
    default: 60_000,
    kind: int(100, 3_600_000),
    doc: 'How long a process holds a claimed run step before another may take it over (ms)',
  },
  watchlistMaxRunMs: {
    env: 'USERSCOUT_WATCHLIST_MAX_RUN_MS',
    default: 21_600_000,
    kind: int(1_000, 604_800_000),
    doc: 'A run whose searches have not all finished after this long ends without them (ms)',
  },
  webhookTimeoutMs: {
    env: 'USERSCOUT_WEBHOOK_TIMEOUT_MS',
    default: 10_000,
    kind: int(100, 120_000),
    doc: 'Deadline of one webhook attempt (ms)',
  },
  webhookRetryBaseMs: {
    env: 'USERSCOUT_WEBHOOK_RETRY_BASE_MS',
    default: 30_000,
    kind: int(10, 3_600_000),
    doc: 'Wait after a failed webhook attempt (ms), doubled per failure',
  },
  webhookRetryMaxMs: {
    env: 'USERSCOUT_WEBHOOK_RETRY_MAX_MS',
    default: 3_600_000,
    kind: int(10, 86_400_000),
    doc: 'Longest wait between webhook attempts (ms)',
  },
  webhookRetryForMs: {
    env: 'USERSCOUT_WEBHOOK_RETRY_FOR_MS',
    default: 86_400_000,
    kind: int(1_000, 604_800_000),
    doc: 'How long a webhook delivery is retried before it is marked failed (ms)',
  },
  webhookMaxInFlight: {
    env: 'USERSCOUT_WEBHOOK_MAX_IN_FLIGHT',
    default: 8,
    kind: int(1, 1_000),
    doc: 'Webhook attempts in flight at once, per process',
  },
  webhookMaxInFlightPerKey: {
    env: 'USERSCOUT_WEBHOOK_MAX_IN_FLIGHT_PER_KEY',
    default: 2,
    kind: int(1, 1_000),
    doc: "Webhook attempts of one API key in flight at once, per process; deliveries are taken round-robin across keys, so a slow receiver holds only its own key's slots",
  },
  watchlistMaxPerKey: {
    env: 'USERSCOUT_WATCHLIST_MAX_PER_KEY',
    default: 50,
    kind: int(1, 100_000),
    doc: 'Watchlists one API key may have (409 watchlist_limit past it)',
  },
  watchlistMaxNamesPerKey: {
    env: 'USERSCOUT_WATCHLIST_MAX_NAMES_PER_KEY',
    default: 200,
    kind: int(1, 1_000_000),
    doc: "Names all of one API key's watchlists may hold together (409 watchlist_limit past it)",
  },
  webhookMaxStoredPerKey: {
    env: 'USERSCOUT_WEBHOOK_MAX_STORED_PER_KEY',
    default: 1_000,
    kind: int(10, 1_000_000),
    doc: 'Webhook deliveries kept per API key: the oldest ended ones go first; a redelivery past it while all are pending is refused (409 delivery_limit)',
  },
  webhookRetentionMs: {
    env: 'USERSCOUT_WEBHOOK_RETENTION_MS',
    default: 30 * 86_400_000,
    kind: int(60_000, 3_650 * 86_400_000),
    doc: 'How long an ended webhook delivery (delivered, failed, cancelled) is kept (ms); removed when a run of its key ends',
  },
  webhookRedeliverLimit: {
    env: 'USERSCOUT_WEBHOOK_REDELIVER_LIMIT',
    default: 60,
    kind: int(1, 100_000),
    doc: 'Redeliveries one API key may ask for per hour (429 rate_limited past it)',
  },
  webhookAllowPrivate: {
    env: 'USERSCOUT_WEBHOOK_ALLOW_PRIVATE',
    default: false,
    kind: { type: 'bool' },
    doc: 'Accept webhook URLs to private and loopback addresses',
  },
  // --- end of watchlists and webhooks ---
  // Trust at run time: control checks and the scheduled self-check.
  controlWindowMs: {
    env: 'USERSCOUT_CONTROL_WINDOW_MS',
    default: 30 * MINUTE,
    kind: int(0, 86_400_000),
    doc: "How long a platform's control check (a name that cannot exist, checked when a hit needs it) stands, per egress identity, before another is sent (ms); a control that reads hit turns that platform's hits into unknown/rule_drift (0: no control checks)",
  },
  selfCheckIntervalMs: {
    env: 'USERSCOUT_SELF_CHECK_INTERVAL_MS',
    default: 24 * 60 * MINUTE,
    kind: int(0, 30 * 86_400_000),
    doc: "How often the service re-checks every platform's known accounts, spread over the interval, once across a cluster; a platform found broken leaves default searches (0: never)",
  },
} as const satisfies Record<string, SettingSpec<unknown>>;

/**
 * What a check retries (within the `retries` count and its deadline). Policy as
 * data: the engine's retry wrapper (`engine/retry.ts`) only reads it.
 */
export const RETRY_ON = Object.freeze({
  /** Statuses retried whatever the answer says. @default [429] */
  statuses: Object.freeze([429]),
  /**
   * Statuses retried only when neither the platform's rules nor a shield explain
   * the answer: a 503 maintenance page is retried, a bot shield's 503 is not. @default [503]
   */
  unexplainedStatuses: Object.freeze([503]),
  /** Error codes of a connection that broke before an answer. @default ['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE'] */
  transportErrors: Object.freeze(['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE']),
});

/** One egress identity: a local source address, or a proxy. */
export type EgressIdentity =
  | { readonly kind: 'addr'; readonly name: string; readonly address: string }
  | { readonly kind: 'proxy'; readonly name: string; readonly url: string };

const PROXY_PROTOCOLS = ['http:', 'https:', 'socks5:', 'socks5h:', 'socks:'];

/** Parses one `addr:IP` or `proxy:URL` entry; a string says what is wrong with it. */
function parseEgressEntry(entry: string): EgressIdentity | string {
  const colon = entry.indexOf(':');
  const kind = colon < 0 ? entry : entry.slice(0, colon);
  const value = colon < 0 ? '' : entry.slice(colon + 1);
  if (kind === 'addr') {
    if (isIP(value) === 0) return `${JSON.stringify(entry)}: addr: takes an IPv4 or IPv6 address`;
    return { kind: 'addr', name: `addr:${value}`, address: value };
  }
  if (kind === 'proxy') {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return `${JSON.stringify(entry)}: proxy: takes a URL`;
    }
    if (!PROXY_PROTOCOLS.includes(url.protocol))
      return `${JSON.stringify(entry)}: proxy: takes an http://, https:// or socks5:// URL`;
    // The name keys budgets (and may reach Redis and logs): never the credentials.
    return { kind: 'proxy', name: `proxy:${url.protocol}//${url.host}`, url: url.href };
  }
  return `${JSON.stringify(entry)}: each entry is addr:IP or proxy:URL`;
}

/** The egress identities of a configuration, in order; empty: the default route. */
export function egressIdentities(entries: readonly string[]): EgressIdentity[] {
  return entries.map((entry) => {
    const parsed = parseEgressEntry(entry);
    if (typeof parsed === 'string') throw new ConfigError('egress (USERSCOUT_EGRESS)', entry, parsed);
    return parsed;
  });
}

function egressProblem(entries: readonly string[]): string | undefined {
  const names = new Set<string>();
  for (const entry of entries) {
    const parsed = parseEgressEntry(entry);
    if (typeof parsed === 'string') return `a list of addr:IP and proxy:URL entries (${parsed})`;
    if (names.has(parsed.name)) return `a list without repeats (${parsed.name} is listed twice)`;
    names.add(parsed.name);
  }
  return undefined;
}

type Settings = typeof SETTINGS;
type ValueOf<K extends keyof Settings> = Settings[K]['default'] extends readonly string[]
  ? string[]
  : Settings[K]['default'] extends number
    ? number
    : Settings[K]['default'] extends boolean
      ? boolean
      : string;

export type Config = { readonly [K in keyof Settings]: ValueOf<K> };
export type SettingName = keyof Settings;

function parseValue(name: string, spec: SettingSpec<unknown>, raw: unknown): unknown {
  const kind = spec.kind;
  switch (kind.type) {
    case 'int': {
      const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < kind.min || value > kind.max) {
        throw new ConfigError(`${name} (${spec.env})`, raw, `a whole number from ${kind.min} to ${kind.max}`);
      }
      return value;
    }
    case 'number': {
      const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
      if (typeof value !== 'number' || !Number.isFinite(value) || value < kind.min || value > kind.max) {
        throw new ConfigError(`${name} (${spec.env})`, raw, `a number from ${kind.min} to ${kind.max}`);
      }
      return value;
    }
    case 'bool': {
      if (typeof raw === 'boolean') return raw;
      if (typeof raw === 'string' && /^(1|true|yes|on)$/i.test(raw)) return true;
      if (typeof raw === 'string' && /^(0|false|no|off)$/i.test(raw)) return false;
      throw new ConfigError(`${name} (${spec.env})`, raw, 'true or false');
    }
    case 'string':
      if (typeof raw !== 'string') throw new ConfigError(`${name} (${spec.env})`, raw, 'a string');
      return raw;
    case 'list':
      if (Array.isArray(raw) && raw.every((v) => typeof v === 'string')) return raw;
      if (typeof raw === 'string')
        return raw
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
      throw new ConfigError(`${name} (${spec.env})`, raw, 'a comma-separated list');
    case 'enum':
      if (typeof raw !== 'string' || !kind.values.includes(raw)) {
        throw new ConfigError(`${name} (${spec.env})`, raw, `one of ${kind.values.join(', ')}`);
      }
      return raw;
  }
}

/** What an error shows in place of a secret setting's value. */
const REDACTED_VALUE = '[redacted]';

/** parseValue, whose error about a secret setting shows no value. */
function secretParse(name: string, spec: SettingSpec<unknown>, raw: unknown): unknown {
  if (!spec.secret) return parseValue(name, spec, raw);
  try {
    return parseValue(name, spec, raw);
  } catch {
    throw new ConfigError(`${name} (${spec.env})`, REDACTED_VALUE, 'a string');
  }
}

/** Whose defaults apply: the service's, or the command line's where a setting has its own. */
export type ConfigMode = 'service' | 'cli';

/**
 * Defaults (the command line's in `cli` mode), then the environment, then overrides.
 * Unknown override names are refused.
 */
export function loadConfig(
  overrides: Partial<Record<SettingName, unknown>> = {},
  env: Readonly<Record<string, string | undefined>> = process.env,
  mode: ConfigMode = 'service',
): Config {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(overrides)) {
    if (!(name in SETTINGS))
      throw new ConfigError(name, overrides[name as SettingName], 'a known setting name');
  }
  const defaulted: SettingName[] = [];
  for (const [name, spec] of Object.entries(SETTINGS) as [SettingName, SettingSpec<unknown>][]) {
    let raw: unknown = mode === 'cli' && spec.cliDefault !== undefined ? spec.cliDefault : spec.default;
    const fromEnv = env[spec.env];
    if (fromEnv !== undefined && fromEnv !== '') raw = fromEnv;
    if (overrides[name] !== undefined) raw = overrides[name];
    else if (fromEnv === undefined || fromEnv === '') defaulted.push(name);
    const value = secretParse(name, spec, raw);
    const problem = spec.validate?.(value as never);
    if (problem !== undefined)
      throw new ConfigError(`${name} (${spec.env})`, spec.secret ? REDACTED_VALUE : raw, problem);
    out[name] = value;
  }
  const identities = Math.max(1, (out.egress as string[]).length);
  for (const name of defaulted) {
    const spec: SettingSpec<unknown> = SETTINGS[name];
    if (spec.perIdentity && spec.kind.type === 'int')
      out[name] = Math.min(spec.kind.max, (out[name] as number) * identities);
  }
  if ((out.egress as string[]).length > 0 && out.proxy !== '') {
    throw new ConfigError(
      'proxy (USERSCOUT_PROXY)',
      out.proxy,
      'empty when egress (USERSCOUT_EGRESS) lists identities: list the proxy there as proxy:URL',
    );
  }
  return Object.freeze(out) as Config;
}
