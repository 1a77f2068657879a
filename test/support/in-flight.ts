import type { SimRoute } from '../../src/sim/behaviour.js';

/**
 * Wraps simulated-web routes to count the requests in flight to each host, as
 * the platforms see them: `most()` is the highest count any one host has seen
 * since the last `reset()`.
 */
export function countInFlight(routes: readonly SimRoute[]): {
  routes: SimRoute[];
  most(): number;
  reset(): void;
} {
  const inFlight = new Map<string, number>();
  let most = 0;
  return {
    routes: routes.map((route) => ({
      ...route,
      handle: (request) => {
        const behaviour = route.handle(request);
        if (behaviour?.kind === 'respond') {
          const n = (inFlight.get(request.host) ?? 0) + 1;
          inFlight.set(request.host, n);
          most = Math.max(most, n);
          setTimeout(
            () => inFlight.set(request.host, (inFlight.get(request.host) ?? 1) - 1),
            behaviour.delayMs ?? 0,
          );
        }
        return behaviour;
      },
    })),
    most: () => most,
    reset: () => {
      most = 0;
    },
  };
}
