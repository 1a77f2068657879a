/**
 * The benchmark's processes: the simulated web, the engine and the server each
 * run in a child of their own, so the CPU and memory measured are theirs alone.
 * A child gets its input as JSON in an environment variable, says `ready` with a
 * value, then answers requests over the IPC channel.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type ProcessUsage, readUsage } from './process-usage.js';

const INPUT_VARIABLE = 'USERSCOUT_BENCH_INPUT';

type Message =
  | { readonly kind: 'ready'; readonly value: unknown }
  | { readonly kind: 'failed'; readonly error: string }
  | { readonly kind: 'reply'; readonly id: number; readonly value?: unknown; readonly error?: string };

interface Request {
  readonly kind: 'request';
  readonly id: number;
  readonly type: string;
  readonly payload: unknown;
}

export class Child<Ready> {
  readonly #process: ChildProcess;
  readonly #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  #nextId = 1;
  #exited = false;
  readonly ready: Ready;

  private constructor(process: ChildProcess, ready: Ready) {
    this.#process = process;
    this.ready = ready;
    process.on('message', (message: Message) => {
      if (message.kind !== 'reply') return;
      const pending = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      if (message.error !== undefined) pending?.reject(new Error(message.error));
      else pending?.resolve(message.value);
    });
    process.once('exit', (code, signal) => {
      this.#exited = true;
      for (const p of this.#pending.values()) p.reject(new Error(`child exited (${code ?? signal})`));
      this.#pending.clear();
    });
  }

  /** Starts `module` (a file of bench/, run through tsx) and waits for its `ready`. */
  static async start<Ready>(
    module: string,
    input: unknown,
    readyTimeoutMs = 120_000,
    /** Node's flags for the child, e.g. its heap's sizes. */
    nodeFlags: readonly string[] = [],
  ): Promise<Child<Ready>> {
    const file = fileURLToPath(new URL(module, import.meta.url));
    const child = fork(file, [], {
      // BENCH_CPU_PROF=DIR: every child writes a V8 CPU profile there (open it in Chrome DevTools).
      execArgv: [
        ...nodeFlags,
        '--import',
        'tsx',
        ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
      ],
      env: { ...process.env, [INPUT_VARIABLE]: JSON.stringify(input) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const ready = await new Promise<Ready>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`${module} not ready within ${readyTimeoutMs} ms`));
      }, readyTimeoutMs);
      const onExit = (code: number | null) => {
        clearTimeout(timer);
        reject(new Error(`${module} exited (${code}) before it was ready`));
      };
      child.once('exit', onExit);
      child.on('message', function first(message: Message) {
        if (message.kind === 'ready') resolve(message.value as Ready);
        else if (message.kind === 'failed') reject(new Error(`${module}: ${message.error}`));
        else return;
        clearTimeout(timer);
        child.off('exit', onExit);
        child.off('message', first);
      });
    });
    return new Child(child, ready);
  }

  get pid(): number {
    return this.#process.pid ?? 0;
  }

  request<T>(type: string, payload?: unknown, timeoutMs = 600_000): Promise<T> {
    if (this.#exited) return Promise.reject(new Error('child has exited'));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`request ${type} got no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.#process.send({ kind: 'request', id, type, payload } satisfies Request);
    });
  }

  usage(): Promise<ProcessUsage> {
    return this.request<ProcessUsage>('usage');
  }

  /** Asks the child to stop, and kills it if it has not within `graceMs`. */
  async stop(graceMs = 5_000): Promise<void> {
    if (this.#exited) return;
    const exited = new Promise<void>((resolve) => this.#process.once('exit', () => resolve()));
    this.#process.kill('SIGTERM');
    const timer = setTimeout(() => this.#process.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }
}

export type Handlers = Record<string, (payload: never) => Promise<unknown> | unknown>;

/**
 * The child side: reads the input, runs `setup`, says ready with its value and
 * serves `handlers` (plus `usage`). `stop` runs on SIGTERM or when the parent goes away.
 */
export async function runChild<Input, Ready>(
  setup: (input: Input) => Promise<{ ready: Ready; handlers: Handlers; stop: () => Promise<void> }>,
): Promise<void> {
  const send = (message: Message) => process.send?.(message);
  let stop: (() => Promise<void>) | undefined;
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    const done = () => process.exit(0);
    void (stop?.() ?? Promise.resolve()).then(done, done);
    setTimeout(done, 4_000).unref();
  };
  process.once('SIGTERM', shutdown);
  process.once('disconnect', shutdown);
  try {
    const input = JSON.parse(process.env[INPUT_VARIABLE] ?? 'null') as Input;
    const started = await setup(input);
    stop = started.stop;
    const handlers: Handlers = { usage: () => readUsage(), ...started.handlers };
    process.on('message', (message: Request) => {
      if (message.kind !== 'request') return;
      const handler = handlers[message.type];
      Promise.resolve()
        .then(() => {
          if (!handler) throw new Error(`unknown request ${message.type}`);
          return handler(message.payload as never);
        })
        .then(
          (value) => send({ kind: 'reply', id: message.id, value }),
          (error: unknown) =>
            send({
              kind: 'reply',
              id: message.id,
              error: error instanceof Error ? (error.stack ?? error.message) : String(error),
            }),
        );
    });
    send({ kind: 'ready', value: started.ready });
  } catch (error) {
    send({ kind: 'failed', error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    process.exit(1);
  }
}
