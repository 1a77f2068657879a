/** Defaults of the simulated web when run for people: `npm run sim`, `userscout sim`, `serve --sim`. */
export const SIM_DEFAULTS = {
  port: 8790,
  latency: 'zero',
  seed: 1,
  demoName: 'scoutdemo',
  caOut: '.userscout/sim-ca.pem',
  /** `serve --sim` keeps its database here unless `--data-dir` says otherwise: apart from real results. */
  serveDataDir: '.userscout/sim-data',
} as const;
