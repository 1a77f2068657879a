import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { freezeDeep } from '../catalogue/freeze.js';
import type { Outcome } from '../engine/verdict/outcome.js';
import { AnswerJson } from './answer-json.js';
import { ErrorBody, Platform, Result, SearchResponse, SearchSummary } from './schemas.js';
import { type SearchJson, searchResponse } from './search-response.js';
import { WatchlistResponse } from './watchlist-schemas.js';

const hit = (id: string, extra: Partial<Outcome> = {}): Outcome => ({
  platform: `Name "${id}"`,
  platformId: id,
  category: 'social',
  url: `https://${id}.example/u/"results":[]`,
  status: 'hit',
  responseTime: 12,
  evidence: {
    rule: 'exists: status 200',
    attempts: 1,
    httpStatus: 200,
    snippet: 'a "quoted" \\ line\n</script>',
  },
  profile: { fullName: 'Zoë "Z" Ünïcode', links: ['https://a.example/'], ids: { x: '1' } },
  ...extra,
});

function answer(results: readonly Outcome[]): SearchJson {
  return searchResponse(
    {
      search: {
        id: 'q1',
        username: '"results":[]',
        state: 'running',
        estimatedSeconds: 30,
        createdAt: 0,
      },
      total: 10,
      progress: {
        checked: results.length,
        byStatus: { hit: results.length, miss: 0, unknown: 0, error: 0, invalid: 0 },
      },
      results,
    },
    20,
  );
}

async function serializers() {
  const app = Fastify();
  for (const schema of [ErrorBody, Result, Platform, SearchSummary, WatchlistResponse]) app.addSchema(schema);
  let body: SearchJson | undefined;
  const answerJson = new AnswerJson();
  app.get('/whole', { schema: { response: { 200: SearchResponse } } }, async () => body);
  app.get('/parts', { schema: { response: { 200: SearchResponse } } }, async (_, reply) =>
    reply
      .type('application/json; charset=utf-8')
      .send(
        answerJson.serialize(
          body!,
          (a) => reply.serialize(a) as string,
          reply.compileSerializationSchema(Result) as (item: object) => string,
        ),
      ),
  );
  return async (next: SearchJson) => {
    body = next;
    const whole = await app.inject('/whole');
    const parts = await app.inject('/parts');
    return { whole: whole.body, parts: parts.body };
  };
}

describe('AnswerJson', () => {
  it('gives the bytes of the answer serialised whole, poll after poll, outcomes kept or not', async () => {
    const serialize = await serializers();
    const a = freezeDeep(hit('a'));
    const b = freezeDeep(hit('b', { linkedFrom: ['a'] }));
    const c = hit('c'); // not frozen: serialised on every poll
    for (const results of [[], [a], [a, c], [b, a, c], [c, b, a]]) {
      const { whole, parts } = await serialize(answer(results));
      expect(JSON.parse(whole).results).toHaveLength(results.length);
      expect(parts).toBe(whole);
    }
  });

  it('serialises a frozen outcome once, an outcome that may change on every poll', async () => {
    const answerJson = new AnswerJson();
    const seen: string[] = [];
    const result = (item: object) => {
      seen.push((item as Outcome).platformId);
      return JSON.stringify(item);
    };
    const kept = freezeDeep(hit('kept'));
    const copy = hit('copy');
    for (let i = 0; i < 3; i++) answerJson.serialize(answer([kept, copy]), (a) => JSON.stringify(a), result);
    // Listed by name: copy, then kept.
    expect(seen).toEqual(['copy', 'kept', 'copy', 'copy']);
  });
});
