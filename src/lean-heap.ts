/**
 * Garbage-collector settings that trade some CPU for a smaller heap
 * (USERSCOUT_LEAN_HEAP): on for the CLI's search, a process that does one
 * bounded piece of work and exits; off for the service unless set. V8's
 * defaults suit a long-running server: the young generation doubles up to
 * 2 × 16 MiB semi-spaces, and the old generation may grow to several times
 * what survived the last full collection before the next one. A CLI search
 * of 716 platforms holds about 30 MiB alive at its busiest (--trace-gc), yet
 * its heap grew to 120 MiB and its RSS peaked near 240 MiB, mostly answers and
 * handshakes already thrown away; with these settings 175 (bench/README.md).
 *
 * Both settings are growth rates that V8 reads each time it sizes a space, so
 * they take effect when set at run time, and neither is a ceiling: a larger
 * search collects more often, it never runs out of heap. (A heap ceiling,
 * --max-old-space-size, can only be set at start-up, and a search larger than
 * it was sized for would end in an out-of-memory crash.)
 */
import { setFlagsFromString } from 'node:v8';

const LEAN_HEAP_FLAGS: readonly string[] = [
  // The young generation keeps its start-up size (1 MiB semi-spaces) instead of doubling to 16.
  '--semi-space-growth-factor=1',
  // The old generation may grow 30% past what survived the last full collection (V8 picks 1.1-4x).
  '--heap-growing-percent=30',
  // WebAssembly (undici's HTTP parser, llhttp) stays on its baseline compiler: optimising it
  // once it is hot took ~34 MB of native memory for a moment, the peak of a small search
  // (a 1-platform CLI search peaked at 115 MB, 80 with this; the CPU of a 716-platform one moved
  // within its noise, 2.8-3.3 s either way).
  '--liftoff-only',
];

/**
 * Only for a process that does one bounded piece of work and exits (`'one-shot'`,
 * the CLI's search), never for a server: JavaScript stays in V8's interpreter,
 * without its baseline (Sparkplug) and optimising (TurboFan) compilers. A search
 * spends its CPU in TLS, the regular expression engine, JSON and undici's parser,
 * none of which this touches, and ends before optimised code pays for its
 * compilation (whose memory, on V8's worker threads, was part of the peak): a CLI
 * search of 716 platforms peaked 6-9 MB lower with the same CPU, and so did one
 * of the whole selection (bench/README.md, case 1). A server's hot paths run for
 * days and need the optimising compiler.
 */
const ONE_SHOT_FLAGS: readonly string[] = [
  '--max-opt=0',
  // Every full collection then runs in V8's memory-reducing mode (--trace-gc marks each
  // "(reduce)"; V8 keeps it otherwise for idle or backgrounded pages): it compacts the old
  // space's fragmented pages and gives emptied ones back, and keeps the young generation at
  // half the size. Without it a CLI search's old space held up to 45 MB committed for 20-24
  // alive after each collection; with it ~30-35. Peak RSS ~16 MB lower at 716 platforms and
  // ~20 at 1,258 (medians), for twice the young collections: CPU +11% at 716, ~+20% at 1,258
  // (bench/README.md, issue 13). Under load (3.7-9.7 on 2 cores) that CPU made slow
  // platforms (7-8.5 s) time out in more runs: to be checked on a quiet machine. Not measured
  // on the service, whose capacity figures were taken without it.
  '--optimize-for-size',
];

/** What the process is: one bounded piece of work (the CLI's search) or a server. */
export type ProcessLife = 'one-shot' | 'long-running';

/** The V8 flags the lean heap sets for a process of this life. */
export function leanHeapFlags(life: ProcessLife): readonly string[] {
  return life === 'one-shot' ? [...LEAN_HEAP_FLAGS, ...ONE_SHOT_FLAGS] : LEAN_HEAP_FLAGS;
}

/** Applies leanHeapFlags(life) to this process, from now on. */
export function leanHeap(life: ProcessLife, setFlags: (flag: string) => void = setFlagsFromString): void {
  for (const flag of leanHeapFlags(life)) setFlags(flag);
}
