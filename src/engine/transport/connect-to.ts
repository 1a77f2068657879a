/**
 * `--connect-to HOST1:PORT1:HOST2:PORT2`, with curl's meaning: connections for
 * HOST1:PORT1 go to HOST2:PORT2 instead, while the URL, the Host header and the
 * TLS server name stay those of HOST1. An empty HOST1 or PORT1 matches any; an
 * empty HOST2 or PORT2 keeps the original. IPv6 addresses go in brackets.
 */
import { UserscoutError } from '../../errors.js';

export interface ConnectToRule {
  readonly fromHost: string | undefined;
  readonly fromPort: number | undefined;
  readonly toHost: string | undefined;
  readonly toPort: number | undefined;
}

const PART = String.raw`(\[[0-9a-fA-F:.]+\]|[^:\[\]]*)`;
const RULE = new RegExp(`^${PART}:(\\d*):${PART}:(\\d*)$`);

function port(text: string, rule: string): number | undefined {
  if (text === '') return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > 65535) {
    throw new UserscoutError(
      'invalid_argument',
      `--connect-to ${rule}: port ${text} is not between 1 and 65535`,
    );
  }
  return value;
}

function host(text: string): string | undefined {
  if (text === '') return undefined;
  return text.startsWith('[') ? text.slice(1, -1).toLowerCase() : text.toLowerCase();
}

export function parseConnectTo(rule: string): ConnectToRule {
  const m = RULE.exec(rule.trim());
  if (!m) {
    throw new UserscoutError(
      'invalid_argument',
      `--connect-to ${JSON.stringify(rule)} must look like HOST1:PORT1:HOST2:PORT2 (parts may be empty)`,
    );
  }
  return {
    fromHost: host(m[1] ?? ''),
    fromPort: port(m[2] ?? '', rule),
    toHost: host(m[3] ?? ''),
    toPort: port(m[4] ?? '', rule),
  };
}

/** Where to connect for host:port; the first matching rule wins. */
export function resolveConnectTo(
  rules: readonly ConnectToRule[],
  hostname: string,
  targetPort: number,
): { host: string; port: number } {
  const name = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  for (const rule of rules) {
    if (rule.fromHost !== undefined && rule.fromHost !== name) continue;
    if (rule.fromPort !== undefined && rule.fromPort !== targetPort) continue;
    return { host: rule.toHost ?? name, port: rule.toPort ?? targetPort };
  }
  return { host: name, port: targetPort };
}
