/**
 * `userscout search NAME [NAME...]`: runs the engine in this process, shows a
 * progress bar on stderr when it is a terminal, prints results to stdout.
 */
import { SingleBar } from 'cli-progress';
import { selectPlatforms } from '../catalogue/select.js';
import { usernameProblem } from '../catalogue/username-rule.js';
import { loadConfig } from '../config.js';
import { createEngine } from '../engine/create-engine.js';
import type { Outcome } from '../engine/outcome.js';
import { UserscoutError } from '../errors.js';
import { loadCommandCatalogue, parseCategories } from './command-inputs.js';
import { type NetworkCommandOptions, networkOverrides } from './network-options.js';
import {
  formatCsv,
  formatJson,
  formatTable,
  OUTPUT_FORMATS,
  type OutputFormat,
  type SearchReport,
  summarise,
} from './output.js';

export interface SearchCommandOptions extends NetworkCommandOptions {
  catalogue?: string;
  category?: string[];
  platform?: string[];
  nsfw?: boolean;
  format?: string;
  all?: boolean;
  progress?: boolean;
}

export interface Io {
  /** Writes a line to stdout (the line end is added). */
  readonly out: (text: string) => void;
  /** Writes text to stdout as it is (CSV brings its own CRLF line ends). */
  readonly write: (text: string) => void;
  readonly err: (text: string) => void;
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

export async function runSearch(names: string[], options: SearchCommandOptions, io: Io): Promise<number> {
  const format = (options.format ?? 'table') as OutputFormat;
  if (!OUTPUT_FORMATS.includes(format)) {
    throw new UserscoutError(
      'invalid_argument',
      `--format must be one of ${OUTPUT_FORMATS.join(', ')}; received ${options.format}`,
    );
  }
  for (const name of names) {
    const problem = usernameProblem(name);
    if (problem) throw new UserscoutError('invalid_username', `username ${JSON.stringify(name)} ${problem}`);
  }
  const categories = parseCategories(options.category);
  const config = loadConfig(networkOverrides(options), process.env, 'cli');
  const catalogue = loadCommandCatalogue(options.catalogue ?? (config.catalogue || undefined), io.err);
  const platforms = selectPlatforms(catalogue, {
    categories,
    platforms: options.platform,
    includeNsfw: options.nsfw ?? config.includeNsfw,
  });
  if (platforms.length === 0) throw new UserscoutError('invalid_argument', 'no platform matches the filters');

  const engine = createEngine(config, catalogue);
  const reports: SearchReport[] = [];
  const controller = new AbortController();
  const onSigint = () => controller.abort(new UserscoutError('invalid_argument', 'interrupted'));
  process.once('SIGINT', onSigint);
  try {
    for (const username of names) {
      const started = performance.now();
      const outcomes: Outcome[] = [];
      const showBar = options.progress !== false && io.stderr.isTTY === true;
      const bar = showBar
        ? new SingleBar({
            stream: io.stderr,
            format: `${username} [{bar}] {value}/{total} checked | {hits} hits | {duration}s`,
            hideCursor: true,
            clearOnComplete: true,
          })
        : undefined;
      bar?.start(platforms.length, 0, { hits: 0 });
      let hits = 0;
      for await (const outcome of engine.search(username, platforms, controller.signal)) {
        outcomes.push(outcome);
        if (outcome.status === 'hit') hits++;
        bar?.increment(1, { hits });
      }
      bar?.stop();
      const report: SearchReport = {
        username,
        status: 'completed',
        totalPlatforms: platforms.length,
        results: outcomes,
      };
      reports.push(report);
      const c = summarise(outcomes);
      io.err(
        `${username}: ${c.hit} hit, ${c.miss} miss, ${c.unknown} unknown, ${c.error} error, ${c.invalid} invalid on ${platforms.length} platforms in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
      if (format === 'table') io.out(formatTable(report, options.all ?? false));
    }
  } finally {
    process.off('SIGINT', onSigint);
    await engine.close();
  }
  if (format === 'json') io.out(formatJson(reports));
  if (format === 'csv') io.write(formatCsv(reports, options.all ?? false));
  return 0;
}
