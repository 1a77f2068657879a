/**
 * The Redis store's vocabulary when Redis is emptied under it, on the test
 * Redis: concurrent writes of one process, one refused for the generation it
 * cached (and so forgetting it) while another interns under the new one, must
 * not pull ids from under each other.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisVocabulary } from '../../src/store/redis-vocabulary.js';
import { connectTestRedis, deleteKeys, uniquePrefix } from './redis-support.js';

const prefix = uniquePrefix('vocabulary');
let redis: Redis;

beforeAll(async () => {
  redis = await connectTestRedis();
});

afterAll(async () => {
  await deleteKeys(redis, `${prefix}:`);
  await redis.quit();
});

type Intern = (...args: string[]) => Promise<(string | number)[]>;

describe('RedisVocabulary after Redis was emptied', () => {
  it('keeps the ids of the new generation when a concurrent write forgets the old one', async () => {
    const vocabulary = new RedisVocabulary(redis, `${prefix}:vocab`, `${prefix}:vocab-ids`);
    await vocabulary.intern(['a', 'b']);
    const old = vocabulary.generation;
    expect(old).not.toBe('');
    await deleteKeys(redis, `${prefix}:`); // Redis restarted empty

    // 'c' is new: the first round learns the new generation (forgetting a and b), the
    // second interns a and b again; while it is in flight, a write refused for the old
    // generation forgets that one.
    const client = redis as Redis & { usIntern: Intern };
    const intern = client.usIntern;
    let calls = 0;
    client.usIntern = (...args) => {
      const reply = intern.apply(client, args);
      if (++calls === 2) vocabulary.reset(old);
      return reply;
    };
    try {
      await vocabulary.intern(['a', 'b', 'c']);
    } finally {
      client.usIntern = intern;
    }
    expect(calls).toBe(2);
    expect(vocabulary.generation).not.toBe(old);
    const ids = ['a', 'b', 'c'].map((t) => vocabulary.idOf(t));
    expect(new Set(ids).size).toBe(3);
    expect(await vocabulary.textsOf(ids as number[])).toEqual(['a', 'b', 'c']);
    expect(await redis.hget(`${prefix}:vocab`, '0')).toBe(vocabulary.generation);
  });

  it('forgets the generation a write was refused for', async () => {
    const vocabulary = new RedisVocabulary(redis, `${prefix}:v2`, `${prefix}:v2-ids`);
    await vocabulary.intern(['x']);
    const old = vocabulary.generation;
    await deleteKeys(redis, `${prefix}:v2`);
    vocabulary.reset(old);
    expect(vocabulary.generation).toBe('');
    expect(vocabulary.idOf('x')).toBeUndefined();
    await vocabulary.intern(['x']);
    expect(vocabulary.generation).not.toBe(old);
    expect(await redis.hget(`${prefix}:v2`, String(vocabulary.idOf('x')))).toBe('x');
  });
});
