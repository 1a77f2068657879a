import { describe, expect, it } from 'vitest';
import { catalogueOf, entry } from '../../test/support/catalogue.js';
import { MemoryStore } from '../../test/support/memory-store.js';
import type { Platform } from '../catalogue/platform.js';
import type { Outcome } from '../engine/verdict/outcome.js';
import { dueAt, SelfCheckSchedule, selfCheckPlatforms } from './self-check-schedule.js';

const catalogue = catalogueOf([entry('Charlie'), entry('Alpha'), entry('Bravo')]);
const DAY = 86_400_000;

function answer(platform: Platform, username: string, status: Outcome['status']): Outcome {
  return {
    platform: platform.name,
    platformId: platform.id,
    category: platform.category,
    url: `https://x.test/${username}`,
    status,
    responseTime: 1,
    evidence: { rule: `status ${status}`, attempts: 1, httpStatus: status === 'hit' ? 200 : 404 },
  };
}

describe('the scheduled self-check', () => {
  it('spreads the platforms evenly over the interval, in one order for the whole cluster', () => {
    const platforms = selfCheckPlatforms(catalogue.platforms);
    expect(platforms.map((p) => p.id)).toEqual(['alpha', 'bravo', 'charlie']);
    const t0 = 100 * DAY;
    expect(dueAt(t0, DAY, 3)).toEqual({ index: 0, round: 100 });
    expect(dueAt(t0 + DAY / 3, DAY, 3)).toEqual({ index: 1, round: 100 });
    expect(dueAt(t0 + DAY - 1, DAY, 3)).toEqual({ index: 2, round: 100 });
    expect(dueAt(t0 + DAY, DAY, 3)).toEqual({ index: 0, round: 101 });
  });

  it('checks a due platform once across processes and stores its verdict', async () => {
    const store = new MemoryStore();
    const now = 100 * DAY + DAY / 3; // Bravo's slot
    const checked: string[] = [];
    const make = () =>
      new SelfCheckSchedule({
        platforms: selfCheckPlatforms(catalogue.platforms),
        intervalMs: DAY,
        // Bravo's site now answers every name as if it existed.
        check: async (platform, username) => {
          checked.push(`${platform.id}:${username}`);
          return answer(platform, username, 'hit');
        },
        store,
        clock: () => now,
      });
    await Promise.all([make().runDue(), make().runDue()]);
    expect(checked.sort()).toEqual(['bravo:alice', 'bravo:nobody-here-7']);
    const health = await store.listPlatformHealth();
    expect(health.bravo).toMatchObject({ verdict: 'broken', validatedAt: now });
    expect(health.bravo!.reason).toMatch(/^unclaimed "nobody-here-7": expected miss, got hit/);
    // The same platform in the same interval is not checked again.
    await make().runDue();
    expect(checked).toHaveLength(2);
  });
});
