/**
 * The network options of the commands that send checks (`search`,
 * `catalogue self-check`): their commander definitions and the settings they
 * override. Their defaults are the command line's (`loadConfig(…, 'cli')`): on a
 * person's own machine local addresses are theirs to check, so private
 * destinations are allowed unless `--refuse-private` (or the environment) says otherwise.
 */
import { type Command, InvalidArgumentError } from 'commander';
import { SETTINGS, type SettingName } from '../config.js';

export interface NetworkCommandOptions {
  /** Numbers when parsed from the command line; strings are read as the environment's are. */
  timeout?: number | string;
  concurrency?: number | string;
  perHost?: number | string;
  proxy?: string;
  connectTo?: string[];
  caFile?: string;
  sessionsFile?: string;
  insecure?: boolean;
  refusePrivate?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * A commander parser for an option that sets a whole-number setting, with the
 * setting's own range: a bad value is a usage error, named by its option.
 */
export function integerOf(setting: SettingName): (value: string) => number {
  const kind = SETTINGS[setting].kind;
  if (kind.type !== 'int') throw new TypeError(`${setting} is not a whole-number setting`);
  const { min, max } = kind;
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max)
      throw new InvalidArgumentError(`Expected a whole number from ${min} to ${max}.`);
    return n;
  };
}

export function addNetworkOptions(command: Command): Command {
  return command
    .option('--timeout <ms>', 'deadline per platform in milliseconds', integerOf('timeoutMs'))
    .option('--concurrency <n>', 'checks in flight at once', integerOf('concurrency'))
    .option('--per-host <n>', 'checks in flight to one host, per egress identity', integerOf('perHost'))
    .option('--proxy <url>', 'http://, https:// or socks5:// proxy')
    .option('--connect-to <rule>', 'HOST1:PORT1:HOST2:PORT2, as curl (repeatable)', collect)
    .option('--ca-file <file>', 'extra CA certificates to trust (PEM)')
    .option(
      '--sessions-file <file>',
      'operator sessions (JSON: platform -> cookies/headers), sent to that platform only',
    )
    .option('--insecure', 'accept any TLS certificate')
    .option('--refuse-private', 'refuse private and loopback destinations');
}

/** The settings these options override; the rest come from the environment and defaults. */
export function networkOverrides(options: NetworkCommandOptions): Partial<Record<SettingName, unknown>> {
  return {
    ...(options.timeout !== undefined ? { timeoutMs: options.timeout } : {}),
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.perHost !== undefined ? { perHost: options.perHost } : {}),
    ...(options.proxy !== undefined ? { proxy: options.proxy } : {}),
    ...(options.connectTo?.length ? { connectTo: options.connectTo } : {}),
    ...(options.caFile !== undefined ? { caFile: options.caFile } : {}),
    ...(options.sessionsFile !== undefined ? { sessionsFile: options.sessionsFile } : {}),
    ...(options.insecure ? { insecureTls: true } : {}),
    ...(options.refusePrivate ? { refusePrivate: true } : {}),
  };
}
