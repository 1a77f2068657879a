/**
 * Prometheus metrics of one process: searches started, checks by outcome,
 * check latency, queue depth. One registry per app, so tests stay isolated.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { ControlRecord } from '../engine/controls/control.js';
import type { TallyName, TallyReading, TransportTally } from '../engine/transport/transport-tally.js';
import type { Outcome } from '../engine/verdict/outcome.js';

/**
 * An egress identity as a label: never a proxy's user and password. Identity names carry none
 * (config.ts names a proxy by scheme and host), but records come back from a shared store.
 */
export function withoutCredentials(identity: string): string {
  return identity.replace(/\/\/[^/@]*@/, '//');
}

export class Metrics {
  readonly registry = new Registry();
  readonly searches = new Counter({
    name: 'userscout_searches_total',
    help: 'Searches started, by tier',
    labelNames: ['tier'] as const,
    registers: [this.registry],
  });
  readonly checks = new Counter({
    name: 'userscout_checks_total',
    help: 'Platform checks finished, by outcome status and reason',
    labelNames: ['status', 'reason'] as const,
    registers: [this.registry],
  });
  readonly checkSeconds = new Histogram({
    name: 'userscout_check_duration_seconds',
    help: 'Time a platform check took',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16],
    registers: [this.registry],
  });
  readonly queued = new Gauge({
    name: 'userscout_queue_depth',
    help: 'Searches waiting',
    registers: [this.registry],
  });
  /** 429s answered, by error code: counted here instead of logged, since a flood of them is cheap only unlogged. */
  readonly refused = new Counter({
    name: 'userscout_refused_requests_total',
    help: 'Requests refused with 429 (rate_limited, too_many_streams), by error code',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });
  readonly running = new Gauge({
    name: 'userscout_running_searches',
    help: 'Searches running',
    registers: [this.registry],
  });

  /** Where the drift gauge reads the control records at each scrape (`watchControls`). */
  #controls: (() => Promise<readonly ControlRecord[]>) | undefined;
  readonly drift: Gauge<'platform' | 'identity'> = new Gauge({
    name: 'userscout_platform_rule_drift',
    help: 'Per platform and egress identity with a control check: 1 when its last control (a name that cannot exist) left it drifted, so its hits are unknown/rule_drift; 0 otherwise',
    labelNames: ['platform', 'identity'] as const,
    registers: [this.registry],
    collect: async () => {
      if (!this.#controls) return;
      // A store that cannot answer now leaves the last values.
      const records = await this.#controls().catch(() => undefined);
      if (!records) return;
      this.drift.reset();
      for (const r of records)
        this.drift.set({ platform: r.platformId, identity: withoutCredentials(r.identity) }, r.drift ? 1 : 0);
    },
  });

  readonly transportChecks = new Counter({
    name: 'userscout_transport_checks_total',
    help: 'Checks answered (not from the cache), by the transport that got the answer: http, impersonate or browser',
    labelNames: ['transport'] as const,
    registers: [this.registry],
  });

  /** The process's transport tally (search threads included), read at each scrape (`watchTransports`). */
  #tally: TransportTally | undefined;
  #reading: TallyReading | undefined;
  /** A counter whose value is the tally's, read at each scrape. */
  #tallied(name: string, help: string, of: TallyName) {
    return new Counter({
      name,
      help,
      registers: [this.registry],
      collect: () => {
        const reading = this.#read();
        if (!reading) return;
        const counter = this.#tallyCounters.get(of);
        counter?.reset();
        counter?.inc(reading[of]);
      },
    });
  }
  readonly #tallyCounters = new Map<TallyName, Counter>();
  /** One reading per scrape, whichever metric asks first. */
  #read(): TallyReading | undefined {
    if (!this.#tally) return undefined;
    if (!this.#reading) {
      this.#reading = this.#tally.read();
      queueMicrotask(() => {
        this.#reading = undefined;
      });
    }
    return this.#reading;
  }
  readonly browserReplacements = new Counter({
    name: 'userscout_browser_replacements_total',
    help: 'Chromium processes dropped and replaced by the next check, by cause: crash (died or disconnected) or hang (a context did not close in time, so it was killed)',
    labelNames: ['cause'] as const,
    registers: [this.registry],
    collect: () => {
      const reading = this.#read();
      if (!reading) return;
      this.browserReplacements.reset();
      this.browserReplacements.inc({ cause: 'crash' }, reading.crashes);
      this.browserReplacements.inc({ cause: 'hang' }, reading.hangs);
    },
  });
  readonly browserOpen = new Gauge({
    name: 'userscout_browser_open',
    help: 'Browser checks in flight (context) and pages open now, idle tabs included (page), in this process',
    labelNames: ['kind'] as const,
    registers: [this.registry],
    collect: () => {
      const reading = this.#read();
      if (!reading) return;
      this.browserOpen.set({ kind: 'context' }, reading.contexts);
      this.browserOpen.set({ kind: 'page' }, reading.pages);
    },
  });

  /** The transports' costs are counted in `tally` (shared with the search threads), read at each scrape. */
  watchTransports(tally: TransportTally): void {
    this.#tally = tally;
    const counters: [TallyName, string, string][] = [
      [
        'escalations',
        'userscout_escalations_total',
        'Checks tried again through a costlier transport past a bot defence',
      ],
      ['launches', 'userscout_browser_launches_total', 'Chromium processes started'],
      [
        'tabs',
        'userscout_browser_tabs_opened_total',
        'Browser tabs (a context and its page) opened; a check reuses a wiped tab of its identity when one is idle',
      ],
      [
        'slotWaits',
        'userscout_browser_slot_waits_total',
        'Browser checks that found no free slot (process or cluster) and waited',
      ],
      [
        'slotTimeouts',
        'userscout_browser_slot_timeouts_total',
        'Browser checks that got no slot within their deadline: unknown, budget_exhausted, unsent',
      ],
      [
        'siteBudgetSpent',
        'userscout_browser_site_budget_spent_total',
        "Browser checks not sent because their site's browser budget was spent: unknown, budget_exhausted",
      ],
    ];
    for (const [of, name, help] of counters)
      if (!this.#tallyCounters.has(of)) this.#tallyCounters.set(of, this.#tallied(name, help, of));
  }

  /** The drift gauge is the store's (whichever process or thread checked), read at each scrape. */
  watchControls(list: () => Promise<readonly ControlRecord[]>): void {
    this.#controls = list;
  }

  constructor(defaults = false) {
    if (defaults) collectDefaultMetrics({ register: this.registry, prefix: 'userscout_' });
  }

  observe(outcome: Outcome): void {
    this.checks.inc({ status: outcome.status, reason: outcome.reason ?? '' });
    if (outcome.status !== 'invalid' && outcome.evidence.cachedAt === undefined) {
      this.checkSeconds.observe(outcome.responseTime / 1000);
      if (outcome.evidence.httpStatus !== undefined)
        this.transportChecks.inc({ transport: outcome.evidence.transport ?? 'http' });
    }
  }
}
