/**
 * The HTML report (src/api/report-html.ts) printed to PDF by headless Chromium,
 * through playwright-core. Nothing leaves the machine while it prints: the
 * report is self-contained, and in case a page were not, every request it
 * makes is answered inside the browser (the page's routes: refused, or an empty
 * 204 for a navigation), the browser context is offline, and Chromium's own
 * requests go to a proxy that does not exist. Scripts do not run.
 *
 * `printPdf` starts a browser for one print and closes it after; `PdfPrinter`
 * is the service's: one print at a time, a few waiting, the rest refused.
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { UserscoutError } from '../errors.js';

export interface PrintOptions {
  /** The Chromium (or Chrome) executable (setting `browserPath`, USERSCOUT_BROWSER_PATH). */
  readonly executablePath: string;
  /** Longest the whole print may take, browser start and close included (setting `pdfTimeoutMs`). */
  readonly timeoutMs: number;
}

/**
 * Chromium's switches: no background traffic of its own (updates, sync, safe browsing),
 * and any request that still gets past the page's routes sent to a closed port
 * (`<-loopback>` sends even loopback addresses there).
 */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
  '--no-pings',
  '--dns-prefetch-disable',
  '--proxy-server=http://127.0.0.1:9',
  '--proxy-bypass-list=<-loopback>',
];

/** Chromium is there to run, or a clear error that says how to get it. */
export async function requireChromium(executablePath: string): Promise<void> {
  try {
    await access(executablePath, constants.X_OK);
  } catch (error) {
    throw new UserscoutError(
      'pdf_unavailable',
      `PDF reports need Chromium, which is not installed at ${executablePath}: install it (apt-get install chromium) or set USERSCOUT_BROWSER_PATH to its path`,
      { cause: error },
    );
  }
}

/** One PDF of `html` (A4, backgrounds printed), from a browser started for it and closed after. */
export async function printPdf(html: string, options: PrintOptions): Promise<Buffer> {
  await requireChromium(options.executablePath);
  const { chromium } = await import('playwright-core');
  let browser: Browser | undefined;
  let expired = false;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      expired = true;
      reject(
        new UserscoutError('pdf_failed', `The PDF report took longer than ${options.timeoutMs} ms to print`),
      );
    }, options.timeoutMs);
  });
  const print = async () => {
    const launched = await chromium.launch({
      executablePath: options.executablePath,
      headless: true,
      args: CHROMIUM_ARGS,
      timeout: options.timeoutMs,
    });
    browser = launched;
    // The deadline passed while it started: nothing waits for it any more.
    if (expired) throw new UserscoutError('pdf_failed', 'The PDF report took too long to print');
    const context = await launched.newContext({
      javaScriptEnabled: false,
      offline: true,
      serviceWorkers: 'block',
    });
    // A navigation (a meta refresh, a frame) answered 204 stays where it is: the page printing
    // is not swapped for an error page halfway. Anything else is refused.
    await context.route('**/*', (route) =>
      route.request().isNavigationRequest()
        ? route.fulfill({ status: 204, body: '' })
        : route.abort('blockedbyclient'),
    );
    const page = await context.newPage();
    await page.setContent(html, { waitUntil: 'load', timeout: options.timeoutMs });
    return page.pdf({
      format: 'A4',
      printBackground: true,
      margin: { top: '12mm', bottom: '12mm', left: '10mm', right: '10mm' },
    });
  };
  try {
    return await Promise.race([print(), deadline]);
  } catch (error) {
    if (error instanceof UserscoutError) throw error;
    throw new UserscoutError('pdf_failed', undefined, { cause: error });
  } finally {
    clearTimeout(timer);
    await (browser as Browser | undefined)?.close().catch(() => {});
  }
}

export interface PdfPrinterOptions extends PrintOptions {
  /** Prints that may wait for the one being printed; more are refused (setting `pdfQueue`). */
  readonly queue: number;
}

/** Seconds a refused print is told to wait before it asks again. */
const BUSY_RETRY_AFTER_SECONDS = 5;

/** The service's printer: one print at a time (each a browser of ~100 MB), at most `queue` waiting. */
export class PdfPrinter {
  readonly #options: PdfPrinterOptions;
  /** Prints being printed or waiting. */
  #pending = 0;
  /** Settles when the last print given its turn has ended. */
  #tail: Promise<unknown> = Promise.resolve();

  constructor(options: PdfPrinterOptions) {
    this.#options = options;
  }

  async print(html: string): Promise<Buffer> {
    // Counted as it arrives, before any wait, so the first come are the ones printed.
    if (this.#pending > this.#options.queue)
      throw new UserscoutError('pdf_busy', undefined, { details: { retryAfter: BUSY_RETRY_AFTER_SECONDS } });
    this.#pending++;
    try {
      // Not installed: said at once, without waiting for a turn.
      await requireChromium(this.#options.executablePath);
      const turn = this.#tail.then(() => printPdf(html, this.#options));
      this.#tail = turn.catch(() => {});
      return await turn;
    } finally {
      this.#pending--;
    }
  }
}
