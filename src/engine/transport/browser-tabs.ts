/**
 * The browser transport's tabs: a context with its one page, kept for the next check
 * of the same egress identity once wiped. A page's renderer process is most of what a
 * browser check costs; a tab whose check stayed on one origin is wiped (its cookies, that
 * origin's storage, the page left for `about:blank`) and handed to the next check instead
 * of being closed. A tab that is not reused within BROWSER_TAB_IDLE_MS is closed, so an
 * idle engine holds none.
 */
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { untilAborted } from '../../abort.js';
import { BROWSER_CLOSE_MS, BROWSER_TAB_IDLE_MS } from '../../tuning.js';
import type { CheckRequest } from '../verdict/request.js';
import { BrowserPool, type ContextEnd, type PooledBrowser, within } from './browser-pool.js';

/** A context and its page, once opened, with the page's DevTools session (its Network domain enabled). */
export interface Opened {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly session: CDPSession;
}

/** The check a tab serves now: its request, and whether its own navigation is still to come. */
export interface TabCheck {
  readonly request: CheckRequest;
  first: boolean;
}

export interface Tab {
  readonly identity: number;
  readonly pooled: PooledBrowser;
  /** Tells the pool the context ended, and how. */
  readonly done: (end: ContextEnd) => Promise<void>;
  /** The context and page, opening: it may settle after the check that opened it gave up. */
  readonly opening: Promise<Opened>;
  /** What the page's routing reads: the check it serves now, none between checks. */
  readonly serving: { current?: TabCheck | undefined };
}

/**
 * Clears what the check left in its tab: every cookie of the context, and the storage of
 * the one origin its documents came from (local, session, IndexedDB, caches). Scripts are
 * stopped and the page left first, so that no timer or unload handler writes again after
 * the clearing; what still lands later is cleared as the tab is taken (`clearLate`). False
 * when the context holds another page (a popup goes on writing) or the wipe could not be
 * done in time: the tab is then closed.
 */
export async function wipe(opened: Opened, origin: string): Promise<boolean> {
  return within(BROWSER_CLOSE_MS, async () => {
    const { context, page, session: cdp } = opened;
    if (context.pages().length !== 1) return false;
    await cdp.send('Emulation.setScriptExecutionDisabled', { value: true });
    // Through the protocol, not the page's own sessionStorage, which a script may have replaced.
    await cdp.send('DOMStorage.enable');
    await cdp.send('DOMStorage.clear', { storageId: { securityOrigin: origin, isLocalStorage: false } });
    await page.goto('about:blank');
    await clearOrigin(opened, origin);
    // The tab's name outlives its documents.
    await page.evaluate(() => {
      window.name = '';
    });
    await cdp.send('Emulation.setScriptExecutionDisabled', { value: false });
    return context.pages().length === 1;
  });
}

/**
 * Clears, as a kept tab is taken, what reached it after its wipe: a write the page sent just
 * before its scripts stopped travels apart from the clearing (the renderer's own channel to
 * the cookie and storage services), and a response still in flight (a keepalive request, a
 * beacon) may set a cookie when it comes. So the next check starts from nothing either way.
 * False when the context holds another page or the clearing could not be done in time.
 */
export async function clearLate(opened: Opened, origin: string): Promise<boolean> {
  return within(BROWSER_CLOSE_MS, async () => {
    await clearOrigin(opened, origin);
    return opened.context.pages().length === 1;
  });
}

/** What a check may leave that the next could read: every cookie of the context, and `origin`'s storage. */
async function clearOrigin({ context, session: cdp }: Opened, origin: string): Promise<void> {
  await context.clearCookies();
  await cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' });
}

/** Closes a tab's context within BROWSER_CLOSE_MS and tells the pool how it ended. */
export async function endTab(tab: Tab, died: boolean): Promise<void> {
  const closed = await BrowserPool.closeWithin(() => tab.opening.then(({ context }) => context.close()));
  await tab.done(died ? 'gone' : closed ? 'closed' : 'hung');
}

/** A wiped tab kept for the next check, with the origin its last check's documents came from. */
export interface IdleTab {
  readonly tab: Tab;
  readonly origin: string;
}

/**
 * Wiped tabs waiting for a check, at most `cap` in all (the process's browser checks at
 * once), the oldest ended beyond it; each ended once idle for BROWSER_TAB_IDLE_MS.
 */
export class IdleTabs {
  /** In the order they were put, the oldest first. */
  readonly #tabs = new Map<Tab, { readonly timer: NodeJS.Timeout; readonly origin: string }>();
  readonly #cap: number;
  readonly #idleMs: number;
  #closed = false;

  constructor(cap: number, idleMs = BROWSER_TAB_IDLE_MS) {
    this.#cap = Math.max(1, cap);
    this.#idleMs = idleMs;
  }

  /** A wiped tab of `identity` on a live browser, or undefined; tabs found on a dead browser are ended. */
  take(identity: number): IdleTab | undefined {
    for (const [tab, { timer, origin }] of this.#tabs) {
      if (tab.identity !== identity) continue;
      clearTimeout(timer);
      this.#tabs.delete(tab);
      if (!tab.pooled.gone()) return { tab, origin };
      void endTab(tab, true);
    }
    return undefined;
  }

  /**
   * A kept tab of `identity`, cleared of what reached it since its wipe (`clear`), or undefined;
   * a tab that cannot be cleared is ended. Bounded by the check's deadline: once `signal`
   * aborts, the tab being cleared is ended and no other is tried, as each try may take
   * BROWSER_CLOSE_MS on a browser that no longer answers.
   */
  async takeCleared(identity: number, signal: AbortSignal, clear = clearLate): Promise<Tab | undefined> {
    for (let kept = this.take(identity); kept; kept = this.take(identity)) {
      const { tab, origin } = kept;
      const cleared = await untilAborted(
        tab.opening.then((opened) => clear(opened, origin)),
        signal,
      ).catch(() => false);
      if (cleared && !signal.aborted) return tab;
      void endTab(tab, tab.pooled.gone());
      if (signal.aborted) return undefined;
    }
    return undefined;
  }

  /** Keeps `tab`, wiped of `origin`, for the next check of its identity; once closed, ends it instead. */
  put(tab: Tab, origin: string): void {
    if (this.#closed) {
      void endTab(tab, tab.pooled.gone());
      return;
    }
    for (const [oldest, { timer }] of this.#tabs) {
      if (this.#tabs.size < this.#cap) break;
      clearTimeout(timer);
      this.#tabs.delete(oldest);
      void endTab(oldest, oldest.pooled.gone());
    }
    const timer = setTimeout(() => {
      this.#tabs.delete(tab);
      void endTab(tab, tab.pooled.gone());
    }, this.#idleMs);
    timer.unref();
    this.#tabs.set(tab, { timer, origin });
  }

  /** Ends every idle tab; a tab put after this is ended at once. */
  async close(): Promise<void> {
    this.#closed = true;
    const ending = [...this.#tabs].map(([tab, { timer }]) => {
      clearTimeout(timer);
      return endTab(tab, tab.pooled.gone());
    });
    this.#tabs.clear();
    await Promise.all(ending);
  }
}
