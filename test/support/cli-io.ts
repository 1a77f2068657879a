import { PassThrough } from 'node:stream';
import type { Io } from '../../src/cli/io.js';

/** A command's streams, kept: what it wrote to stdout (`out`) and to stderr (`err`), as plain text. */
export function captureIo(): { io: Io; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = {
    out: (text) => out.push(text),
    write: (text) => out.push(text),
    err: (text) => err.push(text),
    stderr: new PassThrough(),
    outIsTerminal: false,
    colour: false,
  };
  return { io, out, err };
}
