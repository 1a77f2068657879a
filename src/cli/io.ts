/**
 * Where the commands write: stdout for results, stderr for progress and
 * messages, and what stdout can show (colour, rows as they are found).
 * `processIo` is the process's own; a closed stdout (`| head -1`) ends the
 * command quietly with exit 0.
 */

export interface Io {
  /** One line (or block) of results on stdout. */
  readonly out: (text: string) => void;
  /** Text on stdout as it is (CSV brings its own CRLF line ends). */
  readonly write: (text: string) => void;
  /** One line of messages on stderr. */
  readonly err: (text: string) => void;
  /** stderr itself, for the progress bar. */
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** stdout is a terminal: results are printed as they are found. @default false */
  readonly outIsTerminal?: boolean;
  /** Colour on stdout. @default false */
  readonly colour?: boolean;
}

/**
 * Whether to colour a stream: `FORCE_COLOR` decides when set (as Node reads it:
 * empty, 1, 2, 3 or true force colour; anything else turns it off), then a
 * non-empty `NO_COLOR` (no-color.org) turns it off, then a terminal that is not
 * `TERM=dumb` has it. Pure.
 */
export function colourWanted(
  env: Readonly<Record<string, string | undefined>>,
  isTerminal: boolean,
): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return ['', '1', '2', '3', 'true'].includes(force);
  if (env.NO_COLOR) return false;
  return isTerminal && env.TERM !== 'dumb';
}

/** Exits quietly when the reader of a stream has gone; any other write error still surfaces. */
function endQuietlyOnEpipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    // The reader (e.g. `head -1`) has what it wanted: stop, as a Unix filter does.
    process.exit(0);
  });
}

export function processIo(env: Readonly<Record<string, string | undefined>> = process.env): Io {
  endQuietlyOnEpipe(process.stdout);
  endQuietlyOnEpipe(process.stderr);
  const outIsTerminal = process.stdout.isTTY === true;
  return {
    out: (text) => {
      if (!process.stdout.destroyed) process.stdout.write(`${text}\n`);
    },
    write: (text) => {
      if (!process.stdout.destroyed) process.stdout.write(text);
    },
    err: (text) => {
      if (!process.stderr.destroyed) process.stderr.write(`${text}\n`);
    },
    stderr: process.stderr,
    outIsTerminal,
    colour: colourWanted(env, outIsTerminal),
  };
}
