/**
 * Serves the web page (the Vite build of src/web) at `/`, with a strict
 * Content-Security-Policy: only this origin's own scripts, styles, images and
 * API calls; no inline code, no third party.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { UserscoutError } from '../errors.js';

/** Where `npm run build` puts the page: dist/web of the package, from src/api or dist/api alike. */
const BUILT_WEB_DIR = fileURLToPath(new URL('../../dist/web/', import.meta.url));

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
].join('; ');

const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), interest-cohort=()',
};

export interface WebPageOptions {
  /** Folder of the built page; '' for the package's own build. @default '' */
  readonly dir?: string;
}

/** A Fastify plugin (encapsulated: its headers apply to the page's files only). */
export function webPage(options: WebPageOptions = {}): (app: FastifyInstance) => Promise<void> {
  const root = options.dir || BUILT_WEB_DIR;
  return async (app) => {
    app.addHook('onSend', async (_request, reply, payload) => {
      reply.headers(PAGE_HEADERS);
      return payload;
    });
    if (!existsSync(join(root, 'index.html'))) {
      app.log.warn({ dir: root }, 'the web page is not built; run `npm run build`');
      app.get('/', { schema: { hide: true } }, async () => {
        throw new UserscoutError(
          'unavailable',
          `The web page is not built: run \`npm run build\` (looked in ${root})`,
        );
      });
      return;
    }
    await app.register(fastifyStatic, {
      root,
      prefix: '/',
      // One route per built file, found at start-up: unknown paths keep the API's 404 body.
      wildcard: false,
      index: ['index.html'],
      decorateReply: false,
      // Our own cache-control below, not send's `public, max-age=0`.
      cacheControl: false,
      setHeaders: (res, path) => {
        // Vite names assets by content hash, so they never change; the HTML must be revalidated.
        res.setHeader(
          'cache-control',
          /[/\\]assets[/\\]/.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
  };
}
