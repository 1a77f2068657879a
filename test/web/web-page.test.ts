import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { installErrorHandler } from '../../src/api/error-handler.js';
import { CONTENT_SECURITY_POLICY, webPage } from '../../src/api/web-page.js';
import { tempDir } from '../support/service.js';

async function appServing(dir: string) {
  const app = Fastify();
  installErrorHandler(app);
  app.get('/api/ping', async () => ({ ok: true }));
  await app.register(webPage({ dir }));
  await app.ready();
  return app;
}

describe('webPage', () => {
  it('serves the built files with the CSP, caching hashed assets for good', async () => {
    const dir = tempDir('userscout-webdir-');
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>t</title>');
    writeFileSync(join(dir, 'assets', 'main-abc123.js'), 'console.log(1)');
    const app = await appServing(dir);
    const index = await app.inject('/');
    expect(index.statusCode).toBe(200);
    expect(index.body).toContain('<title>t</title>');
    expect(index.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(index.headers['x-content-type-options']).toBe('nosniff');
    expect(index.headers['cache-control']).toBe('no-cache');
    const asset = await app.inject('/assets/main-abc123.js');
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    // Outside the page, nothing changes: the API keeps its headers and its 404 body.
    const api = await app.inject('/api/ping');
    expect(api.headers['content-security-policy']).toBeUndefined();
    const missing = await app.inject('/nope.html');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('not_found');
    await app.close();
  });

  it('says how to build the page when it is missing', async () => {
    const app = await appServing(tempDir('userscout-webdir-'));
    const response = await app.inject('/');
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ code: 'unavailable' });
    expect(response.json().error).toContain('npm run build');
    await app.close();
  });

  it('allows no inline code, no other origin and no framing', () => {
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'none'");
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/);
  });
});
