import { describe, expect, it } from 'vitest';
import type { Outcome } from '../../src/engine/verdict/outcome.js';
import type { ApiClient } from '../../src/web/api-client.js';
import { ApiError } from '../../src/web/api-failure.js';
import type { SearchSnapshot } from '../../src/web/api-types.js';
import { type FollowHandlers, followSearch } from '../../src/web/follow-search.js';

const outcome = (platform: string): Outcome => ({
  platform,
  platformId: platform,
  category: 'social',
  url: `https://${platform}.test/u/a`,
  status: 'hit',
  responseTime: 5,
  evidence: { rule: 't', attempts: 1 },
});

const snapshot = (
  status: SearchSnapshot['status'],
  checked: number,
  results: Outcome[] = [],
): SearchSnapshot => ({
  queryId: 'q1',
  status,
  username: 'a',
  results,
  progress: {
    checked,
    total: 3,
    hits: results.length,
    answered: checked,
    unknown: 0,
    errors: 0,
    invalid: 0,
    queued: false,
  },
  coverage: 1,
  estimatedTime: 2,
  createdAt: '2025-01-01T00:00:00.000Z',
  ...(status !== 'running' ? { completedAt: '2025-01-01T00:00:02.000Z' } : {}),
});

/** A client whose getSearch answers from a script, one answer per call. */
function scriptedClient(answers: (SearchSnapshot | Error)[]): ApiClient & { calls: number } {
  const client = {
    calls: 0,
    async getSearch() {
      const answer = answers[Math.min(client.calls, answers.length - 1)]!;
      client.calls += 1;
      if (answer instanceof Error) throw answer;
      return answer;
    },
    startSearch: () => Promise.reject(new Error('unused')),
    startBatch: () => Promise.reject(new Error('unused')),
    getHits: () => Promise.reject(new Error('unused')),
    listPlatforms: () => Promise.reject(new Error('unused')),
    listCategories: () => Promise.reject(new Error('unused')),
    eventsUrl: (id: string) => `/api/search/${id}/events`,
  };
  return client;
}

class FakeEventSource {
  static last: FakeEventSource | undefined;
  readonly listeners = new Map<string, ((event: MessageEvent<string>) => void)[]>();
  onerror: (() => void) | null = null;
  closed = false;
  constructor(readonly url: string) {
    FakeEventSource.last = this;
  }
  addEventListener(type: string, listener: (event: MessageEvent<string>) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  emit(type: string, data: unknown, lastEventId = '') {
    for (const l of this.listeners.get(type) ?? [])
      l({ data: JSON.stringify(data), lastEventId } as MessageEvent<string>);
  }
  close() {
    this.closed = true;
  }
}

function recorder() {
  const log: string[] = [];
  let finish: (value: string[]) => void = () => {};
  const finished = new Promise<string[]>((resolve) => {
    finish = resolve;
  });
  const handlers: FollowHandlers = {
    snapshot: (s) => log.push(`snapshot ${s.status} ${s.progress.checked}`),
    result: (o) => log.push(`result ${o.platform}`),
    progress: (p) => log.push(`progress ${p.checked}`),
    mode: (m) => log.push(`mode ${m}`),
    done: (status) => {
      log.push(`done ${status}`);
      finish(log);
    },
    failed: (f) => {
      log.push(`failed ${f.kind}`);
      finish(log);
    },
  };
  return { handlers, finished, log };
}

const bounded = <T>(promise: Promise<T>) =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timed out')), 3000)),
  ]);

describe('followSearch', () => {
  it('reads a completed recursive search again until its follow-ups are listed, saying done once', async () => {
    const pending = { ...snapshot('completed', 3, [outcome('x')]), followUpsPending: true as const };
    const listed = {
      ...snapshot('completed', 3, [outcome('x')]),
      followUps: [{ username: 'bob', from: 'x', queryId: 'q2' }],
    };
    FakeEventSource.last = undefined;
    const client = scriptedClient([snapshot('running', 0), pending, pending, listed]);
    const { handlers, log } = recorder();
    const snapshots: SearchSnapshot[] = [];
    followSearch(
      client,
      'q1',
      {
        ...handlers,
        snapshot: (s) => {
          snapshots.push(s);
          handlers.snapshot(s);
        },
      },
      { EventSource: FakeEventSource as never, pollMs: 5 },
    );
    await bounded(
      (async () => {
        while (!FakeEventSource.last) await new Promise((r) => setTimeout(r, 5));
      })(),
    );
    FakeEventSource.last!.emit('done', {});
    await bounded(
      (async () => {
        while (snapshots.at(-1)?.followUps === undefined) await new Promise((r) => setTimeout(r, 5));
      })(),
    );
    await new Promise((r) => setTimeout(r, 30));
    // The stream, then the completed search (done said at once), read again while pending, and no more.
    expect(log).toEqual([
      'snapshot running 0',
      'mode events',
      'snapshot completed 3',
      'done completed',
      'snapshot completed 3',
      'snapshot completed 3',
    ]);
    expect(client.calls).toBe(4);
    expect(snapshots.at(-1)?.followUps).toEqual([{ username: 'bob', from: 'x', queryId: 'q2' }]);
  });

  it('reports a finished search once, without streaming', async () => {
    const client = scriptedClient([snapshot('completed', 3, [outcome('x')])]);
    const { handlers, finished } = recorder();
    followSearch(client, 'q1', handlers, { EventSource: FakeEventSource as never });
    expect(await bounded(finished)).toEqual(['snapshot completed 3', 'done completed']);
  });

  it('streams results and progress, then reads the final state', async () => {
    FakeEventSource.last = undefined;
    const client = scriptedClient([snapshot('running', 0), snapshot('completed', 3, [outcome('x')])]);
    const { handlers, finished, log } = recorder();
    followSearch(client, 'q1', handlers, { EventSource: FakeEventSource as never });
    await bounded(
      (async () => {
        while (!FakeEventSource.last) await new Promise((r) => setTimeout(r, 5));
      })(),
    );
    const es = FakeEventSource.last!;
    expect(es.url).toBe('/api/search/q1/events');
    es.emit('result', outcome('x'));
    es.emit('progress', { checked: 1, total: 3, hits: 1 });
    es.emit('done', { status: 'completed' });
    expect(await bounded(finished)).toEqual([
      'snapshot running 0',
      'mode events',
      'result x',
      'progress 1',
      'snapshot completed 3',
      'done completed',
    ]);
    expect(es.closed).toBe(true);
    expect(log).toHaveLength(6);
  });

  it('treats reconnect as a pause, not an end: follows again from the last result', async () => {
    FakeEventSource.last = undefined;
    const client = scriptedClient([snapshot('running', 0), snapshot('completed', 2, [outcome('x')])]);
    const { handlers, finished, log } = recorder();
    followSearch(client, 'q1', handlers, { EventSource: FakeEventSource as never, pollMs: 10 });
    const waitFor = (check: () => boolean) =>
      bounded(
        (async () => {
          while (!check()) await new Promise((r) => setTimeout(r, 5));
        })(),
      );
    await waitFor(() => FakeEventSource.last !== undefined);
    const first = FakeEventSource.last!;
    first.emit('result', outcome('x'), '7');
    first.emit('reconnect', { reason: 'shutdown', retryMs: 20 });
    expect(first.closed).toBe(true);
    expect(log).not.toContain('done completed');
    await waitFor(() => FakeEventSource.last !== first);
    const second = FakeEventSource.last!;
    expect(second.url).toBe('/api/search/q1/events?lastEventId=7');
    second.emit('result', outcome('y'), '8');
    second.emit('done', { status: 'completed' });
    expect(await bounded(finished)).toEqual([
      'snapshot running 0',
      'mode events',
      'result x',
      'mode events',
      'result y',
      'snapshot completed 2',
      'done completed',
    ]);
  });

  it('polls when the stream breaks', async () => {
    FakeEventSource.last = undefined;
    const client = scriptedClient([snapshot('running', 0), snapshot('running', 2), snapshot('completed', 3)]);
    const { handlers, finished } = recorder();
    followSearch(client, 'q1', handlers, { EventSource: FakeEventSource as never, pollMs: 10 });
    await bounded(
      (async () => {
        while (!FakeEventSource.last) await new Promise((r) => setTimeout(r, 5));
      })(),
    );
    FakeEventSource.last!.onerror?.();
    expect(await bounded(finished)).toEqual([
      'snapshot running 0',
      'mode events',
      'mode polling',
      'snapshot running 2',
      'snapshot completed 3',
      'done completed',
    ]);
    expect(FakeEventSource.last!.closed).toBe(true);
  });

  it('polls without EventSource and stops on a failure', async () => {
    const client = scriptedClient([
      snapshot('running', 0),
      new ApiError({ kind: 'network', message: 'The service could not be reached' }),
    ]);
    const { handlers, finished } = recorder();
    followSearch(client, 'q1', handlers, { EventSource: undefined, pollMs: 10 });
    expect(await bounded(finished)).toEqual(['snapshot running 0', 'mode polling', 'failed network']);
  });

  it('gives up after the most polls allowed', async () => {
    const client = scriptedClient([snapshot('running', 0)]);
    const { handlers, finished } = recorder();
    followSearch(client, 'q1', handlers, { EventSource: undefined, pollMs: 1, maxPolls: 3 });
    const log = await bounded(finished);
    expect(log.at(-1)).toBe('failed network');
    expect(client.calls).toBe(4);
  });

  it('stops reporting once stopped', async () => {
    const client = scriptedClient([snapshot('running', 0)]);
    const { handlers, log } = recorder();
    const following = followSearch(client, 'q1', handlers, { EventSource: undefined, pollMs: 5 });
    await new Promise((r) => setTimeout(r, 30));
    following.stop();
    const seen = log.length;
    const calls = client.calls;
    await new Promise((r) => setTimeout(r, 40));
    expect(log.length).toBe(seen);
    expect(client.calls).toBe(calls);
  });
});
