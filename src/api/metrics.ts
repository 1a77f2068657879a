/**
 * Prometheus metrics of one process: searches started, checks by outcome,
 * check latency, queue depth. One registry per app, so tests stay isolated.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { ControlRecord } from '../engine/control.js';
import type { Outcome } from '../engine/outcome.js';

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
    }
  }
}
