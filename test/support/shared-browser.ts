/**
 * One Chromium for the engines of a group of tests, as a process's search threads share theirs
 * (browser-directory.ts): the first engine that needs a browser launches it and the others
 * connect to it, each check still in a context of its own. The engine that launched it
 * closes it, so every engine made here lives until `close`, once the group's tests are done.
 * For tests about what a check reads, not about a browser's life.
 */
import type { Catalogue } from '../../src/catalogue/platform.js';
import type { Engine } from '../../src/engine/engine.js';
import { BrowserDirectory } from '../../src/engine/transport/browser-directory.js';
import type { SimWeb } from '../../src/sim/server.js';
import { engineFor } from './engine.js';

export class SharedBrowser {
  readonly directory = new BrowserDirectory(BrowserDirectory.createBuffer(1));
  readonly #engines: Engine[] = [];

  /** `engineFor` with this file's browser; closed by `close`. */
  engineFor(
    sim: SimWeb,
    catalogue: Catalogue,
    overrides: Parameters<typeof engineFor>[2] = {},
    options: Parameters<typeof engineFor>[3] = {},
  ): Engine {
    const engine = engineFor(sim, catalogue, overrides, { ...options, browserDirectory: this.directory });
    this.#engines.push(engine);
    return engine;
  }

  async close(): Promise<void> {
    const engines = this.#engines.splice(0);
    await Promise.all(engines.map((engine) => engine.close()));
  }
}
