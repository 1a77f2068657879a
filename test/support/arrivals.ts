import type { BudgetLimit } from '../../src/engine/rate-budget.js';
import type { SimRoute } from '../../src/sim/behaviour.js';

/**
 * How late a request may reach the simulated web after its budget slot: a
 * sender's or the simulated web's event loop runs late on a loaded machine
 * (200 ms and more seen with several test processes on 2 cores).
 */
export const LATE_MS = 400;

/**
 * The most requests a budget's slots put within any `windowMs` (half-open),
 * widened by LATE_MS: what arrivals in such a window can hold when every
 * request goes at or after its slot.
 */
export function budgetAllows(limit: BudgetLimit, windowMs: number): number {
  return limit.burst + Math.ceil(((windowMs + LATE_MS) * limit.perSecond) / 1000) - 1;
}

/**
 * Wraps simulated-web routes to log when each request arrives, per host, as
 * the platforms see it: `mostInWindow(ms)` is the most requests any one host
 * received within any `ms` (a half-open window [t, t + ms)).
 */
export function logArrivals(routes: readonly SimRoute[]): {
  routes: SimRoute[];
  mostInWindow(windowMs: number): number;
  count(): number;
  reset(): void;
} {
  const arrivals = new Map<string, number[]>();
  return {
    routes: routes.map((route) => ({
      ...route,
      handle: (request) => {
        const behaviour = route.handle(request);
        if (behaviour) {
          const times = arrivals.get(request.host) ?? [];
          times.push(performance.now());
          arrivals.set(request.host, times);
        }
        return behaviour;
      },
    })),
    mostInWindow: (windowMs) => {
      let most = 0;
      for (const times of arrivals.values()) {
        // Arrivals are logged in order: a sliding window over them.
        let start = 0;
        for (let end = 0; end < times.length; end++) {
          while (times[end]! - times[start]! >= windowMs) start++;
          most = Math.max(most, end - start + 1);
        }
      }
      return most;
    },
    count: () => [...arrivals.values()].reduce((n, times) => n + times.length, 0),
    reset: () => arrivals.clear(),
  };
}
