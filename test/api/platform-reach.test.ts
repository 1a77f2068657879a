/**
 * GET /api/platforms says how each platform is reached: the transport its checks go by
 * and whether they need an operator session, as its catalogue entry says; read through
 * the typed client and declared in the OpenAPI document.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserscoutClient } from '../../src/client/client.js';
import { loadConfig } from '../../src/config.js';
import { createService, type Service } from '../../src/service.js';
import { catalogueOf, entry } from '../support/catalogue.js';

const dir = mkdtempSync(join(tmpdir(), 'userscout-platform-reach-'));
let service: Service;
let url: string;

beforeAll(async () => {
  const catalogue = catalogueOf([
    entry('Plain'),
    entry('Guarded', { transport: 'impersonate' }),
    entry('Challenged', { transport: 'browser', category: 'coding' }),
    entry('Walled', { session: 'required' }),
  ]);
  service = await createService(loadConfig({ port: 0, host: '127.0.0.1', dataDir: dir }, {}), { catalogue });
  url = await service.listen();
});
afterAll(async () => {
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('GET /api/platforms: how each platform is reached', () => {
  it('names the transport and the session need of every platform, beside the fields it always had', async () => {
    const { platforms, total } = await new UserscoutClient({ baseUrl: url }).platforms();
    expect(total).toBe(4);
    const byName = new Map(platforms.map((p) => [p.name, p]));
    expect(byName.get('Plain')).toMatchObject({
      category: 'social',
      url: 'https://plain.test/',
      enabled: true,
      nsfw: false,
      tags: [],
      transport: 'http',
      session: 'optional',
    });
    expect(byName.get('Guarded')).toMatchObject({ transport: 'impersonate', session: 'optional' });
    expect(byName.get('Challenged')).toMatchObject({ transport: 'browser', session: 'optional' });
    expect(byName.get('Walled')).toMatchObject({ transport: 'http', session: 'required' });
    // The category filter keeps them.
    const coding = await new UserscoutClient({ baseUrl: url }).platforms('coding');
    expect(coding.platforms).toEqual([expect.objectContaining({ name: 'Challenged', transport: 'browser' })]);
  });

  it('declares both fields, optional, with their closed values, in the OpenAPI document', async () => {
    const doc = (await service.app.inject({ url: '/openapi.json' })).json();
    const schema = doc.components.schemas.Platform;
    const values = (field: string) =>
      (schema.properties[field].anyOf as { const?: string; enum?: string[] }[]).flatMap(
        (v) => v.enum ?? [v.const],
      );
    expect(values('transport')).toEqual(['http', 'impersonate', 'browser']);
    expect(values('session')).toEqual(['optional', 'required']);
    expect(schema.required).not.toContain('transport');
    expect(schema.required).not.toContain('session');
  });
});
