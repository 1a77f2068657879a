import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/web/api-client.js';

describe('the page’s API client', () => {
  it('sends only the narrowing asked for: the top set, categories, named platforms and tags, never empty lists', async () => {
    const bodies: unknown[] = [];
    const client = createApiClient({
      apiKey: () => undefined,
      fetch: async (_url, init) => {
        bodies.push(JSON.parse(String(init?.body)));
        return new Response(
          JSON.stringify({ queryId: 'q', status: 'running', totalPlatforms: 1, estimatedTime: 1 }),
          {
            status: 200,
            headers: { 'content-type': 'application/json' },
          },
        );
      },
    });
    await client.startSearch('alice', { top: true, categories: [], platforms: [] });
    await client.startSearch('alice', { top: false, categories: ['coding'], platforms: ['GitHub'] });
    await client.startSearch('alice', { tags: ['opgg'], categories: [] });
    await client.startSearch('alice', { tags: [] });
    expect(bodies).toEqual([
      { username: 'alice', top: true },
      { username: 'alice', categories: ['coding'], platforms: ['GitHub'] },
      { username: 'alice', tags: ['opgg'] },
      { username: 'alice' },
    ]);
  });
});
