/** Defaults of the standalone simulated web (`npm run sim`, `userscout sim`). */
export const SIM_DEFAULTS = {
  port: 8790,
  latency: 'zero',
  seed: 1,
  demoName: 'scoutdemo',
  caOut: '.userscout/sim-ca.pem',
} as const;
