/**
 * The Chromium processes of one engine: at most `size`, each launched on the first
 * check that needs it and reused; a check goes to the one with the fewest contexts
 * open. A browser that dies (its process killed, its connection lost) is dropped
 * and the next check launches another; one that does not close a context within
 * BROWSER_CLOSE_MS is taken as hung, killed and dropped alike. Each is launched as
 * a server (playwright's `launchServer`) so that it can be killed even when it no
 * longer answers, and so that the process's other search threads can connect to it
 * (browser-directory.ts): with a directory, a place's browser is launched by one
 * thread and used by all.
 */
import type { Browser, BrowserServer, LaunchOptions } from 'playwright-core';
import { BROWSER_CLOSE_MS, BROWSER_LAUNCH_MS, BROWSER_SLOT_POLL_MS } from '../../tuning.js';
import type { BrowserDirectory } from './browser-directory.js';
import type { TransportTally } from './transport-tally.js';

/** `work`'s answer, or false when it fails or takes longer than `ms`. */
export async function within(ms: number, work: () => Promise<boolean>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work().catch(() => false), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** One Chromium, once launched. */
export interface PooledBrowser {
  readonly browser: Browser;
  /** Whether it died or was killed: what it was doing failed for that, not for the site. */
  readonly gone: () => boolean;
}

interface Member {
  /** Its place in the pool (and in the directory). */
  readonly place: number;
  /** The launch (or the connection to another thread's browser), shared by the checks that wait for it. */
  launched: Promise<{ server?: BrowserServer; browser: Browser }>;
  /** Its server, once launched here: its process tells a crash before the connection does. */
  server?: BrowserServer;
  /** Its place's generation in the directory, once launched or found there. */
  generation?: number;
  /** Its process, when another thread launched it (killed from here when it hangs). */
  pid?: number;
  /** Contexts open (or being opened) on it. */
  open: number;
  gone: boolean;
}

/** Whether the member's Chromium process has exited (a crash, or a kill from outside). */
function exited(member: Member): boolean {
  const child = member.server?.process();
  return child !== undefined && (child.exitCode !== null || child.signalCode !== null);
}

/** How a check's context ended: closed, not closed within BROWSER_CLOSE_MS, or its browser found dead. */
export type ContextEnd = 'closed' | 'hung' | 'gone';

export interface BrowserPoolOptions {
  readonly size: number;
  readonly tally: TransportTally;
  /** Loads playwright and launches one Chromium with the engine's settings (its proxy, its flags). */
  readonly launch: () => Promise<{
    chromium: typeof import('playwright-core').chromium;
    options: LaunchOptions;
  }>;
  /** The browsers of the process's search threads, shared; absent: this pool's own. */
  readonly directory?: BrowserDirectory | undefined;
  /** Longest a launch or a connection takes (ms). @default BROWSER_LAUNCH_MS */
  readonly launchMs?: number;
  /** How often a thread looks whether another thread's launch is done (ms). @default BROWSER_SLOT_POLL_MS */
  readonly pollMs?: number;
}

export class BrowserPool {
  readonly #options: BrowserPoolOptions;
  /** By place, `size` of them; undefined: none launched there (or it was dropped). */
  readonly #members: (Member | undefined)[];
  #closed = false;

  constructor(options: BrowserPoolOptions) {
    this.#options = options;
    const size = options.directory?.places ?? Math.max(1, options.size);
    this.#members = Array.from({ length: size }, () => undefined);
  }

  /**
   * A browser for one context: the member with the fewest open, launched if its place is
   * empty. `done` must be called when the context is closed (or could not be), with
   * how it ended: closed, not closed in time (a hang), or its browser seen gone.
   */
  async acquire(): Promise<{ pooled: PooledBrowser; done: (end: ContextEnd) => Promise<void> }> {
    // A browser whose process died is dropped before its connection says so, and one whose place
    // another thread freed (a replacement goes there) is let go: the place holds one browser.
    for (const member of this.#members)
      if (member && (exited(member) || this.#freedElsewhere(member))) void this.#drop(member, 'crashes');
    // The place with the fewest contexts open: over the process's threads when they share browsers.
    const directory = this.#options.directory;
    const openAt = (i: number) => (directory ? directory.open(i) : (this.#members[i]?.open ?? 0));
    let place = 0;
    for (let i = 0; i < this.#members.length; i++) if (openAt(i) < openAt(place)) place = i;
    const member = this.#members[place] ?? this.#launch(place);
    member.open++;
    directory?.adjustOpen(place, 1);
    let done = false;
    const finish = async (end: ContextEnd) => {
      if (done) return;
      done = true;
      member.open--;
      directory?.adjustOpen(place, -1);
      // Dropped at once: a retry must not be handed the dead browser before its process or connection tells.
      if (end === 'gone') await this.#drop(member, 'crashes');
      else if (end === 'hung') await this.#drop(member, 'hangs');
    };
    try {
      const { browser } = await member.launched;
      return {
        pooled: { browser, gone: () => member.gone || exited(member) || !browser.isConnected() },
        done: finish,
      };
    } catch (error) {
      await finish('closed');
      throw error;
    }
  }

  /** Closes `context`-like work within BROWSER_CLOSE_MS; false when it did not end in time. */
  static closeWithin(close: () => Promise<unknown>): Promise<boolean> {
    return within(BROWSER_CLOSE_MS, () =>
      close().then(
        () => true,
        () => true,
      ),
    );
  }

  get #launchMs(): number {
    return this.#options.launchMs ?? BROWSER_LAUNCH_MS;
  }

  /** Whether another thread released the member's place since it was launched or found there. */
  #freedElsewhere(member: Member): boolean {
    const directory = this.#options.directory;
    return (
      directory !== undefined &&
      member.generation !== undefined &&
      directory.generation(member.place) !== member.generation
    );
  }

  #launch(place: number): Member {
    const member: Member = { place, launched: new Promise(() => {}), open: 0, gone: false };
    const launched = this.#options.directory
      ? this.#fromDirectory(this.#options.directory, place, member)
      : this.#launchHere(member);
    member.launched = launched;
    this.#members[place] = member;
    // A launch that fails leaves the place empty for the next check to try again.
    launched.catch(() => {
      member.gone = true;
      if (this.#members[place] === member) this.#members[place] = undefined;
    });
    return member;
  }

  /** Launches a Chromium for `member` and connects to it; `published` says where the other threads find it. */
  async #launchHere(
    member: Member,
    published?: (server: BrowserServer) => boolean,
  ): Promise<{ server: BrowserServer; browser: Browser }> {
    const { chromium, options } = await this.#options.launch();
    const server = await chromium.launchServer({ ...options, timeout: this.#launchMs });
    this.#options.tally.add('launches');
    member.server = server;
    try {
      if (published && !published(server))
        throw new Error('the browser place was released while it launched');
      const browser = await chromium.connect(server.wsEndpoint(), { timeout: this.#launchMs });
      // A browser that dies is dropped: the next check launches another.
      browser.on('disconnected', () => void this.#drop(member, 'crashes'));
      if (member.gone || this.#closed) await server.kill();
      return { server, browser };
    } catch (error) {
      await server.kill().catch(() => undefined);
      throw error;
    }
  }

  /**
   * The browser at `place` of the process's directory: connected to when another thread has
   * it up, launched here when the place is empty, waited for while another thread launches it
   * (at most twice BROWSER_LAUNCH_MS: a launch still under way by then outlasted its own
   * timeouts, left by a thread that died, and is taken over here).
   */
  async #fromDirectory(
    directory: BrowserDirectory,
    place: number,
    member: Member,
  ): Promise<{ server?: BrowserServer; browser: Browser }> {
    const until = Date.now() + 2 * this.#launchMs;
    /** The launch first found under way here. */
    let waitingFor: number | undefined;
    for (;;) {
      if (member.gone || this.#closed) throw new Error('the browser pool closed');
      const at = directory.read(place);
      if (at.state === 'empty') {
        const generation = directory.claim(place);
        if (generation === undefined) continue;
        member.generation = generation;
        try {
          return await this.#launchHere(member, (server) =>
            directory.publish(place, generation, server.wsEndpoint(), server.process()?.pid ?? 0),
          );
        } catch (error) {
          directory.release(place, generation);
          throw error;
        }
      }
      if (at.state === 'up') {
        const { chromium } = await this.#options.launch();
        const browser = await chromium
          .connect(at.endpoint, { timeout: this.#launchMs })
          .catch(() => undefined);
        if (browser) {
          member.generation = at.generation;
          member.pid = at.pid;
          browser.on('disconnected', () => void this.#drop(member, 'crashes'));
          if (member.gone || this.#closed) await browser.close().catch(() => undefined);
          return { browser };
        }
        // Its owner thread died (Chromium outlives it) or no longer serves it: the place is freed
        // for a new browser, and the old one killed so that it does not outlive its place.
        if (directory.release(place, at.generation) && at.pid) killProcess(at.pid);
        continue;
      }
      waitingFor ??= at.generation;
      if (Date.now() >= until) {
        if (at.generation === waitingFor && directory.release(place, at.generation)) continue;
        throw new Error('another search thread did not launch its browser in time');
      }
      await new Promise((resolve) => setTimeout(resolve, this.#options.pollMs ?? BROWSER_SLOT_POLL_MS));
    }
  }

  /**
   * Takes `member` out of the pool and ends its process: killed through its server when
   * launched here, by its pid when another thread launched it. `why` counts it
   * unless the pool is closing, and once over the threads: the one that frees its place.
   */
  async #drop(member: Member, why: 'crashes' | 'hangs'): Promise<void> {
    if (member.gone) return;
    member.gone = true;
    if (this.#members[member.place] === member) this.#members[member.place] = undefined;
    const directory = this.#options.directory;
    const freed =
      !directory || member.generation === undefined || directory.release(member.place, member.generation);
    if (!this.#closed && freed) this.#options.tally.add(why);
    await member.launched.then(
      async ({ server, browser }) => {
        if (server) return server.kill();
        // Launched by another thread: hung, or its relay gone with that thread while Chromium
        // lives on; the thread that frees the place ends it either way, so none outlives its place.
        if (freed && member.pid) killProcess(member.pid);
        await browser.close().catch(() => undefined);
      },
      () => undefined,
    );
  }

  async close(): Promise<void> {
    this.#closed = true;
    const directory = this.#options.directory;
    const members = this.#members.filter((m): m is Member => m !== undefined);
    this.#members.fill(undefined);
    await Promise.all(
      members.map(async (member) => {
        member.gone = true;
        const launched = await member.launched.catch(() => undefined);
        if (!launched) return;
        const { server, browser } = launched;
        // Another thread's browser is only left: closing disconnects from it.
        if (!server) return void (await BrowserPool.closeWithin(() => browser.close()));
        if (directory && member.generation !== undefined) directory.release(member.place, member.generation);
        // A browser that does not close in time is killed: closing never hangs the engine's close.
        if (!(await BrowserPool.closeWithin(() => browser.close())))
          await server.kill().catch(() => undefined);
        else await server.close().catch(() => undefined);
      }),
    );
  }
}

/** Kills a process this one did not start (another thread's browser); gone already is fine. */
function killProcess(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // It exited meanwhile.
  }
}
