/**
 * The command line of `npm run bench`. Pure.
 */

export interface BenchOptions {
  /** Case ids to run, in the order of the registry. @default every case */
  readonly cases: readonly string[] | undefined;
  /** Smaller sets, fewer searches, a shorter polling window. @default false */
  readonly quick: boolean;
  /** Seed of latencies, accounts and synthetic sets. @default 1 */
  readonly seed: number;
  /** Folder of results files. @default bench/results */
  readonly out: string | undefined;
  /** Write no results file. @default false */
  readonly noSave: boolean;
  /** An earlier results file to compare this run with. */
  readonly compare: string | undefined;
  /** Settings of the server in the API cases (cases 3 and 5), e.g. maxRunningSearches=50. @default none */
  readonly server: Readonly<Record<string, string>>;
  /** With --compare: compare with this results file instead of running. */
  readonly with: string | undefined;
  readonly help: boolean;
}

export const USAGE = `npm run bench -- [options]
  --case 1,2,5        run only these cases (default: all: 1 2 3 4 5 6 7 8 9 10)
  --quick             smaller sets, fewer searches, 15 s of polling (a few minutes in all)
  --seed N            seed of latencies, accounts and synthetic platforms (default 1)
  --out DIR           folder of results files (default bench/results)
  --no-save           write no results file
  --server K=V,K=V    server settings for cases 3 and 5 (names as in src/config.ts),
                      e.g. --server maxRunningSearches=50,concurrency=1024; a list
                      setting's further values follow it: egress=addr:127.0.0.2,addr:127.0.0.3
  --compare A.json    after the run, print the change of every figure against A.json
  --with B.json       with --compare: compare B.json with A.json, without running`;

export function parseOptions(argv: readonly string[]): BenchOptions {
  let cases: string[] | undefined;
  let quick = false;
  let seed = 1;
  let out: string | undefined;
  let noSave = false;
  let compare: string | undefined;
  let withFile: string | undefined;
  let help = false;
  const server: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [name, inline] =
      arg.startsWith('--') && arg.includes('=') ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') throw new Error(`${name} needs a value`);
      return v;
    };
    switch (name) {
      case '--case':
      case '--cases':
        cases = value()
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        break;
      case '--quick':
        quick = true;
        break;
      case '--seed': {
        const v = value();
        seed = Number(v);
        if (!Number.isInteger(seed) || seed < 0)
          throw new Error(`--seed must be a whole number; received ${v}`);
        break;
      }
      case '--out':
        out = value();
        break;
      case '--no-save':
        noSave = true;
        break;
      case '--server': {
        // A part without `=` continues the list setting before it: egress=addr:A,addr:B.
        let last: string | undefined;
        for (const pair of value().split(',')) {
          const [key, setting] = pair.split(/=(.*)/s, 2);
          if (setting === undefined && last !== undefined && pair.trim()) {
            server[last] = `${server[last]},${pair.trim()}`;
            continue;
          }
          if (!key?.trim() || setting === undefined)
            throw new Error(`--server takes NAME=VALUE pairs; received ${pair}`);
          last = key.trim();
          server[last] = setting.trim();
        }
        break;
      }
      case '--compare':
        compare = value();
        break;
      case '--with':
        withFile = value();
        break;
      case '--help':
      case '-h':
        help = true;
        break;
      default:
        throw new Error(`unknown option ${arg}\n${USAGE}`);
    }
  }
  if (withFile !== undefined && compare === undefined) throw new Error('--with needs --compare');
  return { cases, quick, seed, out, noSave, server, compare, with: withFile, help };
}
