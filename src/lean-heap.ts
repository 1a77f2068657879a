/**
 * Garbage-collector settings that trade some CPU for a smaller heap
 * (USERSCOUT_LEAN_HEAP): on for the CLI's search, a process that does one
 * bounded piece of work and exits; off for the service unless set. V8's
 * defaults suit a long-running server: the young generation doubles up to
 * 2 × 16 MiB semi-spaces, and the old generation may grow to several times
 * what survived the last full collection before the next one. A CLI search
 * holds little alive at its busiest, yet with those defaults its heap grows
 * several times larger, mostly answers and handshakes already thrown away.
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
  // once it is hot takes tens of MB of native memory for a moment, the peak of a small search,
  // and saves no CPU a search would notice.
  '--liftoff-only',
];

/**
 * Only for a process that does one bounded piece of work and exits (`'one-shot'`,
 * the CLI's search), never for a server: JavaScript stays in V8's interpreter,
 * without its baseline (Sparkplug) and optimising (TurboFan) compilers. A search
 * spends its CPU in TLS, the regular expression engine, JSON and undici's parser,
 * none of which this touches, and ends before optimised code pays for its
 * compilation (whose memory, on V8's worker threads, is part of the peak), so the
 * peak is lower for the same CPU. A server's hot paths run for days and need the
 * optimising compiler.
 */
const ONE_SHOT_FLAGS: readonly string[] = [
  '--max-opt=0',
  // Every full collection then runs in V8's memory-reducing mode (--trace-gc marks each
  // "(reduce)"; V8 keeps it otherwise for idle or backgrounded pages): it compacts the old
  // space's fragmented pages and gives emptied ones back, and keeps the young generation at
  // half the size: less committed memory for more young collections, so more CPU. On a
  // loaded machine that CPU can push slow platforms past their timeout, which is why the
  // service never sets it.
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
