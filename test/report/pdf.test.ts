/**
 * PDF reports printed by headless Chromium (src/report/pdf.ts): the report of a
 * search read back by poppler (pages, the hits' names), no request made while a
 * page prints whatever it asks for, and clear errors when Chromium is missing,
 * too slow or busy.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReport } from '../../src/api/report-html.js';
import { everyOutcomeView, searchResponse } from '../../src/api/search-response.js';
import type { Outcome } from '../../src/engine/verdict/outcome.js';
import { UserscoutError } from '../../src/errors.js';
import { PdfPrinter, printPdf } from '../../src/report/pdf.js';
import { readPdf } from '../support/pdf-text.js';
import { CHROMIUM } from '../web/support.js';

/** A print starts a browser: seconds each on a loaded 2-core machine. */
const PRINT_TEST_MS = 120_000;

const OPTIONS = { executablePath: CHROMIUM, timeoutMs: 60_000 };

/** Platform names no other text of the report holds. */
const HIT_NAMES = Array.from({ length: 60 }, (_, i) => `Zeppelin${String(i).padStart(2, '0')}`);

function outcome(name: string, status: Outcome['status']): Outcome {
  const id = name.toLowerCase();
  return {
    platform: name,
    platformId: id,
    category: 'social',
    url: `https://${id}.test/u/alice`,
    status,
    responseTime: 120,
    evidence: { rule: 'status 200', attempts: 1, httpStatus: status === 'hit' ? 200 : 404 },
    ...(status === 'hit' ? { profile: { fullName: `Alice of ${name}`, bio: 'A <b>bio</b> & more' } } : {}),
  };
}

/** The HTML report of a completed search of alice with 60 hits (several pages) and a few misses. */
function report(): string {
  const outcomes = [...HIT_NAMES.map((n) => outcome(n, 'hit')), outcome('Missing', 'miss')];
  const search = {
    id: 'query-1',
    username: 'alice',
    state: 'completed' as const,
    estimatedSeconds: 3,
    createdAt: Date.parse('2026-01-02T03:04:05Z'),
    finishedAt: Date.parse('2026-01-02T03:04:09Z'),
    platformIds: outcomes.map((o) => o.platformId),
  };
  return renderReport(searchResponse(everyOutcomeView(search, outcomes, []), 50), {
    generatedAt: Date.parse('2026-01-02T03:05:00Z'),
  });
}

describe('printPdf', () => {
  it(
    "prints the HTML report as a PDF of several pages, each hit's platform named",
    async () => {
      const pdf = await printPdf(report(), OPTIONS);
      expect(Buffer.from(pdf.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
      const read = readPdf(pdf);
      expect(read.pages).toBeGreaterThan(1);
      expect(read.text).toContain('userscout report: alice');
      for (const name of HIT_NAMES) expect(read.text).toContain(name);
      expect(read.text).toContain('Alice of Zeppelin07');
    },
    PRINT_TEST_MS,
  );

  describe('a page that asks for outside resources', () => {
    let server: Server;
    let base: string;
    const requests: string[] = [];
    beforeAll(async () => {
      server = createServer((req, res) => {
        requests.push(req.url ?? '');
        res.writeHead(200, { 'content-type': 'text/plain' }).end('x');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it(
      'prints it without a single request reaching the server',
      async () => {
        const localhost = base.replace('127.0.0.1', 'localhost');
        // Every way a page may fetch: images, style sheets, fonts, frames, scripts, prefetches, and a
        // refresh, which must not replace the page being printed (Chromium then fails the print).
        const html = `<!DOCTYPE html><html><head>
<meta http-equiv="refresh" content="0; url=${base}/refresh">
<link rel="stylesheet" href="${base}/style.css"><link rel="prefetch" href="${base}/prefetch">
<link rel="preconnect" href="${localhost}"><link rel="icon" href="${base}/favicon.ico">
<style>@import url("${base}/import.css"); @font-face{font-family:f;src:url(${base}/font.woff2)}
body{font-family:f;background:url(${localhost}/background.png)}</style>
<script src="${base}/script.js"></script><script>fetch('${base}/fetch')</script>
</head><body><h1>Printed offline</h1>
<img src="${base}/image.png"><img srcset="${localhost}/srcset.png 2x"><iframe src="${base}/frame"></iframe>
<object data="${base}/object"></object><video poster="${base}/poster.png"></video><audio src="${base}/audio"></audio>
<svg><image href="${base}/svg.png"/></svg><a ping="${base}/ping" href="${base}/link">a link</a>
</body></html>`;
        const pdf = await printPdf(html, OPTIONS);
        expect(readPdf(pdf).text).toContain('Printed offline');
        // The server still answers: it was never asked.
        expect((await fetch(`${base}/alive`)).status).toBe(200);
        expect(requests).toEqual(['/alive']);
      },
      PRINT_TEST_MS,
    );
  });

  it('says how to install Chromium when it is not there', async () => {
    const missing = printPdf('<p>x</p>', { executablePath: '/nonexistent/chromium', timeoutMs: 5_000 });
    await expect(missing).rejects.toMatchObject({
      name: 'UserscoutError',
      code: 'pdf_unavailable',
      message: expect.stringContaining('apt-get install chromium'),
    });
    await expect(missing).rejects.toThrow('/nonexistent/chromium');
  });

  it('stops a print that takes longer than its deadline', async () => {
    const error = await printPdf(report(), { ...OPTIONS, timeoutMs: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserscoutError);
    expect(error).toMatchObject({ code: 'pdf_failed', message: expect.stringContaining('longer than 1 ms') });
  });
});

describe('PdfPrinter', () => {
  it(
    'prints one at a time and refuses those past its queue with a time to come back',
    async () => {
      const printer = new PdfPrinter({ ...OPTIONS, queue: 1 });
      const html = '<h1>Zeppelin00</h1>';
      const results = await Promise.allSettled([
        printer.print(html),
        printer.print(html),
        printer.print(html),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
      expect((results[2] as PromiseRejectedResult).reason).toMatchObject({
        code: 'pdf_busy',
        details: { retryAfter: 5 },
      });
      // Once they have ended, the next one prints.
      expect(readPdf(await printer.print(html)).text).toContain('Zeppelin00');
    },
    PRINT_TEST_MS,
  );

  it('says Chromium is missing before it waits its turn', async () => {
    const printer = new PdfPrinter({ executablePath: '/nonexistent/chromium', timeoutMs: 5_000, queue: 0 });
    await expect(printer.print('<p>x</p>')).rejects.toMatchObject({ code: 'pdf_unavailable' });
  });
});
