#!/usr/bin/env node
/**
 * The `userscout` command line. Each command lives in its own module, loaded
 * only when that command runs (so `--help` loads no engine, catalogue or
 * server); this file wires them to commander and turns every failure into one
 * line on stderr and an exit code (src/cli/exit-codes.ts).
 */
import { Command, CommanderError, type Command as CommandType, Option } from 'commander';
import { UPSTREAM_SOURCES } from '../catalogue/upstream-sources.js';
import { isUserscoutError, UserscoutError } from '../errors.js';
import { SIM_DEFAULTS } from '../sim/defaults.js';
import type { SelfCheckCommandOptions } from './catalogue-self-check.js';
import type { SyncCommandOptions } from './catalogue-sync.js';
import {
  AUDIT_FORMATS,
  type AuditFormat,
  OUTPUT_FORMATS,
  PLATFORMS_FORMATS,
  REPORT_FORMATS,
  type ReportFormat,
  SELF_CHECK_FORMATS,
  SYNC_FORMATS,
} from './choices.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from './exit-codes.js';
import { processIo } from './io.js';
import type { McpCommandOptions } from './mcp.js';
import { addNetworkOptions, integerOf } from './network-options.js';
import type { PlatformsCommandOptions } from './platforms.js';
import type { SearchCommandOptions } from './search.js';
import type { ServeOptions } from './serve.js';
import type { VariantsCommandOptions } from './variants.js';
import type { WatchAddOptions } from './watch.js';

function cliInteger(flag: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max)
    throw new UserscoutError(
      'invalid_argument',
      `${flag} must be a whole number from ${min} to ${max}; received ${value}`,
    );
  return n;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

const io = processIo();

/** `userscout catalogue sync`: the command's full name, for hints. */
function commandPath(command: CommandType): string {
  const names: string[] = [];
  for (let c: CommandType | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** A usage error as one line with where to look, e.g. `userscout: unknown option '--frmat' (see userscout search --help)`. */
export function usageLine(message: string, command: CommandType): string {
  const text = message
    .replace(/^error: /, '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' ')
    .replace('(Did you mean', '(did you mean')
    .replace(/\.$/, '');
  return `userscout: ${text} (see ${commandPath(command)} --help)`;
}

/** Every command reports usage errors in one line and throws instead of exiting, so main decides the code. */
function oneLineUsageErrors(command: CommandType): void {
  command.exitOverride().configureOutput({
    outputError: (message, write) => write(`${usageLine(message, command)}\n`),
  });
  for (const sub of command.commands) oneLineUsageErrors(sub);
}

/** The command whose action runs, for the hint after an argument its action refuses. */
let running: CommandType | undefined;

function buildProgram(): Command {
  const program = new Command('userscout').description(
    'Check whether a username exists on hundreds of online platforms',
  );

  const cliSettings = async () => (await import('../config.js')).loadConfig({}, process.env, 'cli');
  const search = program
    .command('search')
    .description('Check one or more usernames on every platform')
    .argument('<names...>', 'usernames to check')
    .option('--catalogue <file>', 'catalogue file instead of the built-in one')
    .option('--category <category>', 'only this category (repeatable)', collect)
    .option('--platform <name>', 'only this platform (repeatable)', collect)
    .option('--tag <tag>', 'only platforms with this tag (repeatable: any of them)', collect)
    .option('--top', 'only the curated set of the platforms most searched on: a quick search')
    .option('--nsfw', 'include NSFW platforms')
    .addOption(
      new Option(
        '--format <format>',
        'output format (html, pdf: a self-contained report; graphml, graph-csv: the accounts, their links and follow-ups as a graph)',
      )
        .choices([...OUTPUT_FORMATS])
        .default('table'),
    )
    .option('--all', 'every outcome, not only hits')
    .option(
      '-o, --output <file>',
      'write the json, csv, html, pdf or graphml to this file instead of stdout (graph-csv: PREFIX-nodes.csv and PREFIX-edges.csv, or DIR/graph-nodes.csv and DIR/graph-edges.csv)',
    )
    .option(
      '--server <url>',
      'search through this userscout service instead of from this machine (USERSCOUT_SERVER)',
    )
    .option(
      '--key <key>',
      "the service's professional API key (USERSCOUT_KEY; the variable keeps it out of your shell history)",
    )
    .option(
      '--variants',
      'also check lookalike names of each (see userscout variants; USERSCOUT_MAX_VARIANTS a name)',
    )
    .option(
      '--recursive',
      "also check the new names each name's hits give (profile links, ids; USERSCOUT_MAX_FOLLOW_UPS a name, depth 1)",
    );
  addNetworkOptions(search)
    .option('--no-progress', 'no progress bar')
    .action(async (names: string[], options: SearchCommandOptions) => {
      // This process does one search and exits: it collects garbage sooner (lean-heap.ts).
      if ((await cliSettings()).leanHeap) (await import('../lean-heap.js')).leanHeap('one-shot');
      const { runSearch } = await import('./search.js');
      process.exitCode = await runSearch(names, options, io);
    });

  program
    .command('variants')
    .description('Print the lookalike names of a username that --variants would check')
    .argument('<name>', 'the username')
    .option('--max <n>', 'at most this many (USERSCOUT_MAX_VARIANTS, default 10)')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (name: string, options: VariantsCommandOptions) => {
      const { runVariants } = await import('./variants.js');
      runVariants(name, options, io);
    });

  const catalogue = program.command('catalogue').description('Inspect and maintain platform catalogues');
  catalogue
    .command('validate')
    .argument('[file]', 'catalogue file (default: the built-in catalogue)')
    .description('Report every problem of a catalogue; exit 1 when there is any')
    .option(
      '--reference <dir>',
      "folder of the public site lists (whatsmyname/, sherlock/, maigret/): also refuse status-alone rules WhatsMyName's records contradict",
    )
    .action(async (file: string | undefined, options: { reference?: string }) => {
      const { formatValidateReport, validateFile } = await import('./catalogue-validate.js');
      const report = validateFile(file, options.reference);
      io.out(formatValidateReport(report));
      process.exitCode = report.problems.length > 0 ? 1 : 0;
    });
  catalogue
    .command('check')
    .argument('<file>', 'catalogue file: userscout, WhatsMyName, Sherlock or Maigret format')
    .description('Report how many entries of a catalogue file import and why the others do not')
    .addOption(new Option('--format <format>', 'output format').choices(REPORT_FORMATS).default('text'))
    .action(async (file: string, options: { format: ReportFormat }) => {
      const { checkCatalogueFile, formatCheckReport } = await import('./catalogue-check.js');
      const { report, exitCode } = checkCatalogueFile(file);
      io.out(formatCheckReport(report, options.format));
      process.exitCode = exitCode;
    });
  catalogue
    .command('audit')
    .description(
      'List where the WhatsMyName, Sherlock and Maigret lists check our platforms differently (check URL, method, status codes, markers, username rule)',
    )
    .requiredOption(
      '--reference <dir>',
      'folder of the public site lists (whatsmyname/, sherlock/, maigret/)',
    )
    .option('--catalogue <file>', 'catalogue file instead of the built-in one')
    .option('--summary', 'print only the summary')
    .addOption(new Option('--format <format>', 'output format').choices(AUDIT_FORMATS).default('table'))
    .action(
      async (options: { reference: string; catalogue?: string; summary?: boolean; format: AuditFormat }) => {
        const { formatAudit, runAudit } = await import('./catalogue-audit.js');
        io.out(formatAudit(runAudit(options), options.format, options.summary === true));
      },
    );
  catalogue
    .command('merge')
    .argument('<files...>', 'catalogue files in any supported format; the first of a platform wins')
    .description('Merge catalogues into one in the userscout format; report what was dropped on stderr')
    .option('-o, --output <file>', 'write the merged catalogue here instead of stdout')
    .action(async (files: string[], options: { output?: string }) => {
      const { runCatalogueMerge } = await import('./catalogue-merge.js');
      const outcome = runCatalogueMerge(files, options);
      if (outcome.stdout) process.stdout.write(outcome.stdout);
      process.stderr.write(outcome.stderr);
      process.exitCode = outcome.exitCode;
    });
  addNetworkOptions(
    catalogue
      .command('self-check')
      .description(
        "Check each platform's known accounts; report healthy, broken and blocked platforms and update the health file (exit 1 when any is broken)",
      )
      .option('--category <category>', 'only this category (repeatable)', collect)
      .option('--platform <name>', 'only this platform (repeatable)', collect)
      .option('--catalogue <file>', 'catalogue file instead of the built-in one')
      .option('--data-dir <dir>', 'folder of the health file (USERSCOUT_DATA_DIR, default ./data)')
      .option('--no-write', 'only report; leave the health file as it is')
      .option('--no-progress', 'no progress bar')
      .addOption(
        new Option('--format <format>', 'output format').choices(SELF_CHECK_FORMATS).default('table'),
      ),
  ).action(async (options: SelfCheckCommandOptions) => {
    const { runSelfCheck } = await import('./catalogue-self-check.js');
    process.exitCode = (await runSelfCheck(options, io)).exitCode;
  });
  catalogue
    .command('sync')
    .description(
      'Download an upstream site list, validate it and store it in the data dir as catalogues/<source>.json',
    )
    .addOption(new Option('--from <source>', 'which list').choices(UPSTREAM_SOURCES).makeOptionMandatory())
    .option('--url <url>', "where to download it (default: the project's list on GitHub)")
    .option('--data-dir <dir>', 'data folder (USERSCOUT_DATA_DIR, default ./data)')
    .option('--timeout <ms>', 'deadline of the download in milliseconds (default 60000)')
    .addOption(new Option('--format <format>', 'output format').choices(SYNC_FORMATS).default('text'))
    .action(async (options: SyncCommandOptions) => {
      const { runCatalogueSync } = await import('./catalogue-sync.js');
      await runCatalogueSync(options, io);
    });
  program
    .command('platforms')
    .description('List the platforms; --stats adds the live statistics the service keeps per platform')
    .option('--category <category>', 'only this category (repeatable)', collect)
    .option('--catalogue <file>', 'catalogue file instead of the built-in one')
    .option('--server <url>', "list this userscout service's platforms (USERSCOUT_SERVER)")
    .option('--key <key>', "the service's professional API key (USERSCOUT_KEY)")
    .option('--stats', 'checks, outcome counts, response times and last check, from the service database')
    .option('--data-dir <dir>', 'folder of the database and health file (USERSCOUT_DATA_DIR, default ./data)')
    .addOption(new Option('--format <format>', 'output format').choices(PLATFORMS_FORMATS).default('table'))
    .action(async (options: PlatformsCommandOptions) => {
      const { runPlatforms } = await import('./platforms.js');
      await runPlatforms(options, io);
    });
  program
    .command('serve')
    .description('Run the REST service (SQLite and the in-process runner unless REDIS_URL is set)')
    .option('--port <port>', 'port of the API (PORT, default 3000)', integerOf('port'))
    .option(
      '--worker-port <port>',
      "cluster mode: a worker's health and metrics port (USERSCOUT_WORKER_PORT, default 0: a free one, logged)",
      integerOf('workerPort'),
    )
    .option('--host <host>', 'address to listen on (HOST, default 127.0.0.1)')
    .option('--data-dir <dir>', 'folder of the database (USERSCOUT_DATA_DIR, default ./data)')
    .option('--catalogue <file>', 'catalogue file instead of the built-in one')
    .option('--redis-url <url>', 'cluster mode: Redis shared by every process (REDIS_URL)')
    .addOption(
      new Option(
        '--role <role>',
        'cluster mode: serve the API, run searches, or both (USERSCOUT_ROLE)',
      ).choices(['all', 'api', 'worker']),
    )
    .option(
      '--sim',
      `demo: start the simulated web too and search it instead of the internet (data in ${SIM_DEFAULTS.serveDataDir})`,
    )
    .action(async (options: ServeOptions) => {
      const { runServe } = await import('./serve.js');
      await runServe(options, io);
    });

  const mcp = program
    .command('mcp')
    .description('Serve the Model Context Protocol on stdio: tools to search usernames and read the results')
    .option('--catalogue <file>', 'catalogue file instead of the built-in one')
    .option(
      '--server <url>',
      'search through this userscout service instead of from this machine (USERSCOUT_SERVER)',
    )
    .option('--key <key>', "the service's professional API key (USERSCOUT_KEY)");
  addNetworkOptions(mcp).action(async (options: McpCommandOptions) => {
    const { runMcp } = await import('./mcp.js');
    await runMcp(options, io);
    // The protocol has ended: nothing it started may keep the process alive.
    process.exit(process.exitCode ?? 0);
  });

  program
    .command('sim')
    .description('Run the simulated web over the built-in catalogue, for trying userscout offline')
    .option('--port <port>', 'HTTP port; HTTPS listens on the next free one', String(SIM_DEFAULTS.port))
    .addOption(
      new Option('--latency <profile>', 'latency profile')
        .choices(['zero', 'realistic'])
        .default(SIM_DEFAULTS.latency),
    )
    .option('--seed <n>', 'seed of the latency and demo accounts', String(SIM_DEFAULTS.seed))
    .option('--accounts <names>', 'comma-separated names that exist on every platform', '')
    .option('--demo-name <name>', 'a name that exists on a third of the platforms', SIM_DEFAULTS.demoName)
    .option('--ca-out <file>', 'where to write the CA certificate', SIM_DEFAULTS.caOut)
    .option(
      '--rate-limits',
      'sites answer 429 beyond a seeded rate limit per client address (5 to 10 a second)',
    )
    .action(async (options: Record<string, string>) => {
      const { runStandaloneSim } = await import('../sim/main.js');
      await runStandaloneSim({
        port: cliInteger('--port', options.port!, 0, 65_535),
        latency: options.latency === 'realistic' ? 'realistic' : 'zero',
        seed: cliInteger('--seed', options.seed!, 0, 2 ** 31),
        everywhere: options.accounts!.split(',').filter(Boolean),
        demoName: options.demoName!,
        caOut: options.caOut!,
        rateLimits: Boolean(options.rateLimits),
      });
    });

  const keys = program.command('keys').description('Manage professional API keys');
  keys
    .command('create')
    .description('Create a key; it is printed once and stored only as a hash')
    .requiredOption('--name <name>', 'who or what the key is for')
    .addOption(
      new Option('--tier <tier>', 'tier of the key')
        .choices(['professional', 'free'])
        .default('professional'),
    )
    .option('--data-dir <dir>', 'folder of the database')
    .action(async (options: { name: string; tier: string; dataDir?: string }) => {
      const { createKey, withStore } = await import('./keys.js');
      const { id, key } = await withStore(options.dataDir, (store) =>
        createKey(store, options.name, options.tier),
      );
      io.err(`key ${id} created for ${options.name} (${options.tier}); it is shown only now:`);
      io.out(key);
    });
  keys
    .command('list')
    .description('List keys (never the keys themselves)')
    .option('--data-dir <dir>', 'folder of the database')
    .action(async (options: { dataDir?: string }) => {
      const { listKeys, withStore } = await import('./keys.js');
      io.out(await withStore(options.dataDir, listKeys));
    });
  keys
    .command('revoke')
    .argument('<id>', 'key id, as shown by keys list')
    .description('Revoke a key: requests with it get 401 from now on')
    .option('--data-dir <dir>', 'folder of the database')
    .action(async (id: string, options: { dataDir?: string }) => {
      const { revokeKey, withStore } = await import('./keys.js');
      await withStore(options.dataDir, (store) => revokeKey(store, id));
      io.err(`key ${id} revoked`);
    });
  program
    .command('migrate')
    .description('Bring the PostgreSQL schema (DATABASE_URL) up to date; the service also does at start-up')
    .action(async () => {
      const { runMigrate } = await import('./migrate.js');
      await runMigrate(io);
    });
  // --- watch: watchlists of a running service, through its API ---
  const watch = program
    .command('watch')
    .description('Watchlists of a running service (--server/--key or USERSCOUT_SERVER/USERSCOUT_KEY)');
  const target = (command: CommandType) =>
    command
      .option('--server <url>', 'the service, e.g. http://127.0.0.1:3000 (default: USERSCOUT_SERVER)')
      .option('--key <key>', 'an API key (default: USERSCOUT_KEY)');
  target(
    watch
      .command('add')
      .argument('<names...>', 'usernames to watch')
      .description('Create a watchlist; its webhook secret is printed once')
      .option('--interval <time>', 'between runs: seconds, or 90m, 6h, 1d (default: the service minimum)')
      .option('--webhook <url>', 'where signed events are POSTed')
      .option('--secret <secret>', 'webhook secret (default: generated)')
      .option('--category <name>', 'only this category (repeatable)', collect)
      .option('--platform <name>', 'only this platform (repeatable)', collect)
      .option('--every-run', 'send an event after every run, not only on changes'),
  ).action(async (names: string[], options: { server?: string; key?: string } & WatchAddOptions) => {
    const { watchAdd, watchConnection } = await import('./watch.js');
    await watchAdd(watchConnection(options, await cliSettings()), names, options, io);
  });
  target(
    watch
      .command('list')
      .description("List the key's watchlists")
      .addOption(new Option('--format <format>', 'output').choices(['table', 'json']).default('table')),
  ).action(async (options: { server?: string; key?: string; format: 'table' | 'json' }) => {
    const { watchList, watchConnection } = await import('./watch.js');
    await watchList(watchConnection(options, await cliSettings()), options.format, io);
  });
  target(
    watch
      .command('changes')
      .argument('<id>', 'watchlist id')
      .description('Changes found by its runs, oldest first')
      .option('--after <seq>', 'only changes after this seq')
      .addOption(new Option('--format <format>', 'output').choices(['table', 'json']).default('table')),
  ).action(
    async (
      id: string,
      options: { server?: string; key?: string; after?: string; format: 'table' | 'json' },
    ) => {
      const { watchChanges, watchConnection } = await import('./watch.js');
      await watchChanges(watchConnection(options, await cliSettings()), id, options, io);
    },
  );
  target(watch.command('run').argument('<id>', 'watchlist id').description('Run a watchlist now')).action(
    async (id: string, options: { server?: string; key?: string }) => {
      const { watchRun, watchConnection } = await import('./watch.js');
      await watchRun(watchConnection(options, await cliSettings()), id, io);
    },
  );
  // --- end of watch ---
  oneLineUsageErrors(program);
  program.hook('preAction', (_program, action) => {
    running = action;
  });
  return program;
}

/** The exit code for a failure, after its one line is written. */
function report(error: unknown): number {
  if (error instanceof CommanderError) {
    // Help and version asked for are not failures; commander already wrote them or the usage line.
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return EXIT_OK;
    return EXIT_USAGE;
  }
  if (isUserscoutError(error)) {
    const usage = error.status < 500;
    process.stderr.write(
      // An action's refusal that names one of its options points to the help listing what it accepts.
      usage && error.code === 'invalid_argument' && error.message.startsWith('--') && running
        ? `${usageLine(error.message, running)}\n`
        : `userscout: ${error.message}\n`,
    );
    return usage ? EXIT_USAGE : EXIT_FAILURE;
  }
  process.stderr.write(`userscout: ${error instanceof Error ? error.message : String(error)}\n`);
  return EXIT_FAILURE;
}

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  // End at once: whatever the failed command left open (a listener, a thread) must not keep it alive.
  process.exit(report(error));
}
