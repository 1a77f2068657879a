/**
 * `userscout platforms [--category C] [--stats]`: reads the catalogue, the
 * health file and the statistics the service records in <dataDir>/userscout.db.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPlatforms } from '../../src/cli/platforms.js';
import { createStore } from '../../src/store/create-store.js';
import { entry } from '../support/catalogue.js';
import { tempDir } from '../support/service.js';

const T0 = Date.UTC(2026, 5, 1, 12, 0, 0);

function fixture(): { dataDir: string; catalogueFile: string } {
  const dataDir = tempDir();
  const catalogueFile = join(dataDir, 'catalogue.json');
  writeFileSync(
    catalogueFile,
    JSON.stringify({
      platforms: [
        entry('Alpha'),
        entry('Bravo'),
        entry('Charlie', { category: 'coding' }),
        entry('Delta', { enabled: false, disabledReason: 'login wall since 2025' }),
        entry('Echo', { category: 'nsfw', nsfw: true }),
      ],
    }),
  );
  writeFileSync(
    join(dataDir, 'health.json'),
    JSON.stringify({
      generatedAt: T0,
      platforms: {
        bravo: { verdict: 'broken', reason: 'claimed "alice": expected hit, got miss', validatedAt: T0 },
      },
    }),
  );
  return { dataDir, catalogueFile };
}

/** What the service records as it checks: the same store, the same file. */
async function recordChecks(dataDir: string): Promise<void> {
  const store = createStore({ kind: 'sqlite', path: join(dataDir, 'userscout.db') });
  try {
    await store.recordCheck('alpha', 'hit', 100, T0);
    await store.recordCheck('alpha', 'miss', 300, T0 + 1000);
    await store.recordCheck('alpha', 'error', 5000, T0 + 2000);
    await store.recordCheck('charlie', 'unknown', 250, T0 + 60_000);
  } finally {
    await store.close();
  }
}

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

describe('userscout platforms', () => {
  it('lists every platform with whether it is searched and why not', async () => {
    const { dataDir, catalogueFile } = fixture();
    const { io, out, err } = capture();
    const rows = await runPlatforms({ catalogue: catalogueFile, dataDir }, io, {});
    expect(rows.map((r) => [r.name, r.state])).toEqual([
      ['Alpha', 'enabled'],
      ['Bravo', 'broken'],
      ['Charlie', 'enabled'],
      ['Delta', 'disabled'],
      ['Echo', 'enabled'],
    ]);
    expect(out.join('\n').split('\n')).toEqual([
      'PLATFORM  CATEGORY  NSFW  STATE     REASON',
      'Alpha     social          enabled',
      'Bravo     social          broken    claimed "alice": expected hit, got miss',
      'Charlie   coding          enabled',
      'Delta     social          disabled  login wall since 2025',
      'Echo      nsfw      nsfw  enabled',
      '5 platforms, 3 searched, in 3 categories',
    ]);
    expect(err).toEqual([]);
    // Listing does not create a database.
    expect(existsSync(join(dataDir, 'userscout.db'))).toBe(false);
  });

  it('filters by category', async () => {
    const { dataDir, catalogueFile } = fixture();
    const { io } = capture();
    const rows = await runPlatforms(
      { catalogue: catalogueFile, dataDir, category: ['coding', 'nsfw'] },
      io,
      {},
    );
    expect(rows.map((r) => r.name)).toEqual(['Charlie', 'Echo']);
    await expect(
      runPlatforms({ catalogue: catalogueFile, dataDir, category: ['cars'] }, io, {}),
    ).rejects.toThrow(/--category cars is not one of social, /);
  });

  it('shows the live statistics the service recorded with --stats', async () => {
    const { dataDir, catalogueFile } = fixture();
    await recordChecks(dataDir);
    const { io, out } = capture();
    const rows = await runPlatforms({ catalogue: catalogueFile, dataDir, stats: true }, io, {});
    expect(rows[0]!.stats).toEqual({
      checks: 3,
      byStatus: { hit: 1, miss: 1, unknown: 0, error: 1, invalid: 0 },
      meanMs: expect.any(Number),
      recentMs: expect.any(Number),
      lastCheckedAt: '2026-06-01T12:00:02.000Z',
    });
    expect(rows[2]!.stats).toMatchObject({ checks: 1, byStatus: { unknown: 1 }, meanMs: 250 });
    expect(rows[1]!.stats).toBeUndefined();

    const lines = out.join('\n').split('\n');
    expect(lines[0]).toBe(
      'PLATFORM  CATEGORY  STATE     CHECKS  HIT  MISS  UNKNOWN  ERROR  INVALID  MEAN MS  RECENT MS  LAST CHECKED',
    );
    // The mean counts answered checks only (the error got none); recent weighs the latest more.
    expect(lines[1]).toBe(
      `Alpha     social    enabled        3    1     1        0      1        0      200  ${String(rows[0]!.stats!.recentMs).padStart(9)}  2026-06-01T12:00:02.000Z`,
    );
    expect(rows[0]!.stats!.meanMs).toBe(200);
    expect(lines[2]).toBe(
      'Bravo     social    broken         -    -     -        -      -        -        -          -  -',
    );
    expect(lines[3]).toContain('2026-06-01T12:01:00.000Z');
    expect(lines.at(-1)).toBe('5 platforms, 3 searched, in 3 categories; 2 checked by the service');

    const json = capture();
    await runPlatforms({ catalogue: catalogueFile, dataDir, stats: true, format: 'json' }, json.io, {});
    expect(JSON.parse(json.out.join('\n'))).toEqual({ platforms: rows, total: 5 });
  });

  it('says so when the service has not recorded anything yet', async () => {
    const { dataDir, catalogueFile } = fixture();
    const { io, err } = capture();
    const rows = await runPlatforms({ catalogue: catalogueFile, dataDir, stats: true }, io, {});
    expect(rows.every((r) => r.stats === undefined)).toBe(true);
    expect(err).toEqual([
      `no statistics yet: ${join(dataDir, 'userscout.db')} does not exist (the service records every check it makes there)`,
    ]);
    expect(existsSync(join(dataDir, 'userscout.db'))).toBe(false);
  });

  it('lists the built-in catalogue by default', async () => {
    const { io } = capture();
    const rows = await runPlatforms({ dataDir: tempDir(), category: ['coding'] }, io, {});
    expect(rows.length).toBeGreaterThan(50);
    expect(rows.every((r) => r.category === 'coding')).toBe(true);
  });
});

describe('userscout platforms --server', () => {
  it("lists a service's platforms, sends the key in a header, and says why a refused key failed", async () => {
    const { createServer } = await import('node:http');
    const keys: (string | undefined)[] = [];
    const server = createServer((request, response) => {
      keys.push(request.headers['x-api-key'] as string | undefined);
      if (request.url !== '/api/platforms' || request.headers['x-api-key'] === 'bad') {
        response.writeHead(401, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            error: 'The API key is unknown or revoked',
            code: 'unauthorized',
            requestId: 'q1',
          }),
        );
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      const p = (name: string, category: string, enabled = true, extra = {}) => ({
        name,
        id: name.toLowerCase(),
        category,
        url: `https://${name.toLowerCase()}.test/`,
        enabled,
        nsfw: false,
        tags: [],
        ...extra,
      });
      response.end(
        JSON.stringify({
          platforms: [
            p('Alpha', 'social'),
            p('Bravo', 'coding', false, { disabledReason: 'login wall' }),
            p('Charlie', 'coding'),
          ],
          total: 3,
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const { io, out } = capture();
      const rows = await runPlatforms({ server: url, key: 'k1', category: ['coding'] }, io, {});
      expect(rows.map((r) => [r.name, r.state, r.reason])).toEqual([
        ['Bravo', 'disabled', 'login wall'],
        ['Charlie', 'enabled', undefined],
      ]);
      expect(out.join('\n')).toMatch(/2 platforms, 1 searched, in 1 category$/);
      expect(keys).toEqual(['k1']);
      const error = await runPlatforms({ server: url, key: 'bad' }, io, {}).catch((e: unknown) => e);
      expect((error as Error).message).toMatch(/refused the API key/);
      expect((error as Error).message).not.toContain('bad');
      await expect(runPlatforms({ server: url, stats: true }, io, {})).rejects.toThrow(/not with --server/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
