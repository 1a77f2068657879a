/**
 * Prometheus metrics of one process: searches started, checks by outcome,
 * check latency, queue depth. One registry per app, so tests stay isolated.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { ControlRecord } from '../engine/controls/control.js';
import type { TallyName, TransportTally } from '../engine/transport/transport-tally.js';
import { CHECK_SECONDS_BUCKETS, type OutcomeReading, type OutcomeTally } from '../runner/outcome-tally.js';

/**
 * An egress identity as a label: never a proxy's user and password. Identity names carry none
 * (config.ts names a proxy by scheme and host), but records come back from a shared store.
 */
export function withoutCredentials(identity: string): string {
  return identity.replace(/\/\/[^/@]*@/, '//');
}

/**
 * `read`'s answer once per scrape, whichever metric asks first: the metrics of one scrape
 * collect in the same tick, so they all show one reading of a tally.
 */
function oncePerScrape<T>(read: () => T | undefined): () => T | undefined {
  let reading: T | undefined;
  return () => {
    if (reading === undefined) {
      reading = read();
      queueMicrotask(() => {
        reading = undefined;
      });
    }
    return reading;
  };
}

export class Metrics {
  readonly registry = new Registry();
  readonly searches = new Counter({
    name: 'userscout_searches_total',
    help: 'Searches started, by tier',
    labelNames: ['tier'] as const,
    registers: [this.registry],
  });

  /** The process's outcome tally (search threads included), read at each scrape (`watchOutcomes`). */
  #outcomes: OutcomeTally | undefined;
  readonly #readOutcomes = oncePerScrape(() => this.#outcomes?.read());
  readonly #checks: Counter<'status' | 'reason'> = new Counter({
    name: 'userscout_checks_total',
    help: 'Platform checks finished, by outcome status and reason',
    labelNames: ['status', 'reason'] as const,
    registers: [this.registry],
    collect: () => {
      const reading = this.#readOutcomes();
      if (!reading) return;
      this.#checks.reset();
      for (const { status, reason, count } of reading.checks) this.#checks.inc({ status, reason }, count);
    },
  });
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: made here to register it in its place among the metrics; it is read from the outcome tally, never observed
  readonly #checkSeconds: Histogram = new TalliedHistogram(
    {
      name: 'userscout_check_duration_seconds',
      help: 'Time a platform check took',
      registers: [this.registry],
    },
    () => this.#readOutcomes()?.seconds,
  );
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

  readonly #transportChecks: Counter<'transport'> = new Counter({
    name: 'userscout_transport_checks_total',
    help: 'Checks answered (not from the cache), by the transport that got the answer: http, impersonate or browser',
    labelNames: ['transport'] as const,
    registers: [this.registry],
    collect: () => {
      const reading = this.#readOutcomes();
      if (!reading) return;
      this.#transportChecks.reset();
      for (const [transport, count] of Object.entries(reading.transports))
        if (count > 0) this.#transportChecks.inc({ transport }, count);
    },
  });

  /** The process's transport tally (search threads included), read at each scrape (`watchTransports`). */
  #tally: TransportTally | undefined;
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
  readonly #read = oncePerScrape(() => this.#tally?.read());
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

  /** The searches' outcomes are counted in `tally` (shared with the search threads), read at each scrape. */
  watchOutcomes(tally: OutcomeTally): void {
    this.#outcomes = tally;
  }
}

/**
 * A histogram whose buckets, sum and count are read at each scrape (from the outcome tally),
 * never observed here. prom-client builds a histogram's lines from `getForPromString` (and
 * `get` from it), so that is what gives them: zeros until a tally is read.
 */
class TalliedHistogram extends Histogram {
  readonly #name: string;
  readonly #help: string;
  readonly #read: () => OutcomeReading['seconds'] | undefined;

  constructor(
    config: { readonly name: string; readonly help: string; readonly registers: Registry[] },
    read: () => OutcomeReading['seconds'] | undefined,
  ) {
    super({ ...config, buckets: [...CHECK_SECONDS_BUCKETS] });
    this.#name = config.name;
    this.#help = config.help;
    this.#read = read;
  }

  async getForPromString() {
    const seconds = this.#read() ?? { buckets: CHECK_SECONDS_BUCKETS.map(() => 0), sum: 0, count: 0 };
    const line = (suffix: string, value: number, labels: Record<string, string | number> = {}) => ({
      labels,
      sharedLabels: {},
      value,
      metricName: `${this.#name}${suffix}`,
    });
    return {
      name: this.#name,
      help: this.#help,
      type: 'histogram',
      aggregator: 'sum',
      values: [
        ...CHECK_SECONDS_BUCKETS.map((le, i) => line('_bucket', seconds.buckets[i] ?? 0, { le })),
        line('_bucket', seconds.count, { le: '+Inf' }),
        line('_sum', seconds.sum),
        line('_count', seconds.count),
      ],
    };
  }
}
