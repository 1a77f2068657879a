/**
 * The built-in catalogue as the service shows it: at least 725 enabled
 * platforms in at least 15 categories, and the category filter works for each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATEGORIES } from '../../src/catalogue/categories.js';
import { loadConfig } from '../../src/config.js';
import { createService, type Service } from '../../src/service.js';
import { tempDir } from '../support/service.js';

interface PlatformBody {
  name: string;
  category: string;
  enabled: boolean;
  nsfw: boolean;
  disabledReason?: string;
}

let service: Service;

beforeAll(async () => {
  service = await createService(loadConfig({ dataDir: tempDir(), port: 0 }, {}));
});
afterAll(async () => {
  await service?.close();
});

async function get(url: string) {
  const r = await service.app.inject({ method: 'GET', url });
  expect(r.statusCode).toBe(200);
  return r.json();
}

describe('GET /api/platforms on the built-in catalogue', () => {
  it('reports at least 725 enabled platforms in at least 15 categories', async () => {
    const { platforms, total } = (await get('/api/platforms')) as {
      platforms: PlatformBody[];
      total: number;
    };
    expect(total).toBe(platforms.length);
    const enabled = platforms.filter((p) => p.enabled);
    const categories = new Set(enabled.map((p) => p.category));
    console.log(
      `built-in catalogue: ${enabled.length} enabled of ${total} platforms in ${categories.size} categories`,
    );
    expect(enabled.length).toBeGreaterThanOrEqual(725);
    expect(categories.size).toBeGreaterThanOrEqual(15);
    for (const p of platforms.filter((p) => !p.enabled)) expect(p.disabledReason, p.name).toBeTruthy();
    for (const p of platforms.filter((p) => p.category === 'nsfw')) expect(p.nsfw, p.name).toBe(true);
  });

  it('filters by each category, agreeing with /api/categories', async () => {
    const all = (await get('/api/platforms')) as { platforms: PlatformBody[] };
    const { categories } = (await get('/api/categories')) as {
      categories: { name: string; platforms: number }[];
    };
    expect(categories.map((c) => c.name)).toEqual([...CATEGORIES]);
    for (const { name, platforms: count } of categories) {
      const r = (await get(`/api/platforms?category=${name}`)) as {
        platforms: PlatformBody[];
        total: number;
      };
      expect(r.platforms.length, name).toBeGreaterThan(0);
      expect(
        r.platforms.every((p) => p.category === name),
        name,
      ).toBe(true);
      expect(r.platforms.length, name).toBe(all.platforms.filter((p) => p.category === name).length);
      expect(r.platforms.filter((p) => p.enabled).length, name).toBe(count);
    }
  });
});
