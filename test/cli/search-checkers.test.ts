/**
 * The CLI's remote checker reading a recursive search's follow-ups from the service:
 * a service that keeps them pending (its queue full) is not an error; the command
 * gets what is listed, marked pending.
 */
import { describe, expect, it } from 'vitest';
import { remoteChecker } from '../../src/cli/search-checkers.js';
import type { UserscoutClient } from '../../src/client/client.js';

/** A service whose search of `alice` completes with no outcome, and whose reads answer `reads` in turn (the last repeated). */
function fakeService(reads: readonly { followUpsPending?: boolean; followUps?: unknown[] }[]) {
  let gets = 0;
  const client = {
    platforms: async () => ({ platforms: [{ name: 'GitHub' }] }),
    start: async () => ({ queryId: 'q1', totalPlatforms: 1 }),
    async *follow() {
      yield { type: 'done', status: 'completed' };
    },
    get: async () => reads[Math.min(gets++, reads.length - 1)],
  } as unknown as UserscoutClient;
  return { client, gets: () => gets };
}

async function followUpsOf(service: ReturnType<typeof fakeService>) {
  const checker = await remoteChecker(service.client, {}, { every: 1, times: 4 });
  const run = await checker.run('alice', new AbortController().signal, undefined, true);
  for await (const _ of run.outcomes) {
    // no outcome
  }
  return run.followUps!();
}

const bob = { username: 'bob', from: 'github', queryId: 'q2' };

describe('remoteChecker follow-ups', () => {
  it('reads until the service lists them', async () => {
    const service = fakeService([{ followUpsPending: true }, { followUpsPending: false, followUps: [bob] }]);
    expect(await followUpsOf(service)).toEqual({ followUps: [bob], pending: false });
    expect(service.gets()).toBe(2);
  });

  it('gives what is listed, marked pending, when the service keeps them pending past its reads', async () => {
    const service = fakeService([{ followUpsPending: true, followUps: [bob] }]);
    expect(await followUpsOf(service)).toEqual({ followUps: [bob], pending: true });
    expect(service.gets()).toBe(4);
  });
});
