/**
 * Watchlists on Redis, on the Redis store's connection and key prefix. Every
 * write that must be atomic (a claim with its lease and token, a save checked
 * against the token, the end of a run with its changes and deliveries) is one
 * Lua script. A Redis outage surfaces as `store_unavailable`.
 *
 * Keys under `PREFIX:`: `wl:ID` (hash: owner, createdAt, updatedAt, spec,
 * state, nextRunAt, running, version), `wl-owner:OWNER` (sorted set by
 * creation), `wl-due` (sorted set by due time), `wl-changes:ID` (list, seq =
 * index + 1), `dl:ID` (hash: watchlistId, delivery, version), `dl-list:WLID`
 * (sorted set by creation) and `dl-due` (sorted set by due time).
 */
import type { Redis } from 'ioredis';
import { asStoreError } from '../redis/unavailable.js';
import { duplicateIdError } from './store.js';
import {
  cancelledDelivery,
  type DeliveryRecord,
  deliveryDueAt,
  type Leased,
  type LeasedDelivery,
  type WatchChange,
  type Watchlist,
  type WatchlistSpec,
  type WatchlistState,
  type WatchlistStore,
} from './watchlists.js';

const SCRIPTS = {
  // KEYS: wl, owner index, due. ARGV: id, createdAt, dueAt, fields...
  usWlCreate: {
    numberOfKeys: 3,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
      redis.call('HSET', KEYS[1], unpack(ARGV, 4))
      redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
      redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
      return 1`,
  },
  // KEYS: wl, due, changes, deliveries list, deliveries due. ARGV: id, delivery key prefix, owner key prefix.
  usWlDelete: {
    numberOfKeys: 5,
    lua: `
      local owner = redis.call('HGET', KEYS[1], 'owner')
      if not owner then return 0 end
      redis.call('ZREM', ARGV[3] .. owner, ARGV[1])
      redis.call('ZREM', KEYS[2], ARGV[1])
      for _, d in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
        redis.call('DEL', ARGV[2] .. d)
        redis.call('ZREM', KEYS[5], d)
      end
      redis.call('DEL', KEYS[1], KEYS[3], KEYS[4])
      return 1`,
  },
  // KEYS: wl. ARGV: spec JSON, updatedAt. Only an existing watchlist is updated.
  usWlUpdateSpec: {
    numberOfKeys: 1,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
      redis.call('HSET', KEYS[1], 'spec', ARGV[1], 'updatedAt', ARGV[2])
      return 1`,
  },
  // KEYS: wl, due. ARGV: id, at. Returns 0 not found, 1 queued, 2 running.
  usWlRequestRun: {
    numberOfKeys: 2,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
      if redis.call('HGET', KEYS[1], 'running') == '1' then return 2 end
      local next = math.min(tonumber(redis.call('HGET', KEYS[1], 'nextRunAt')), tonumber(ARGV[2]))
      redis.call('HSET', KEYS[1], 'nextRunAt', next)
      local due = redis.call('ZSCORE', KEYS[2], ARGV[1])
      if (not due) or tonumber(due) > tonumber(ARGV[2]) then redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1]) end
      return 1`,
  },
  // KEYS: due. ARGV: now, leaseMs, wl key prefix. Returns {id, token} or nil.
  usClaim: {
    numberOfKeys: 1,
    lua: `
      local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 1)
      if #ids == 0 then return false end
      local id = ids[1]
      redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), id)
      local token = redis.call('HINCRBY', ARGV[3] .. id, 'version', 1)
      return {id, token}`,
  },
  // KEYS: wl, due. ARGV: id, token, dueAt, fields...
  usWlSave: {
    numberOfKeys: 2,
    lua: `
      if redis.call('HGET', KEYS[1], 'version') ~= ARGV[2] then return 0 end
      redis.call('HSET', KEYS[1], unpack(ARGV, 4))
      redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
      return 1`,
  },
  // KEYS: wl, due. ARGV: id, token, dueAt.
  usWlDefer: {
    numberOfKeys: 2,
    lua: `
      if redis.call('HGET', KEYS[1], 'version') ~= ARGV[2] then return 0 end
      redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
      return 1`,
  },
  // KEYS: wl, due, changes, deliveries list, deliveries due. ARGV: id, token, dueAt, delivery key prefix,
  // changes count, deliveries count, state fields count, state fields..., change JSON...,
  // (id, watchlistId, createdAt, JSON, dueAt or '') per delivery.
  usWlFinish: {
    numberOfKeys: 5,
    lua: `
      if redis.call('HGET', KEYS[1], 'version') ~= ARGV[2] then return 0 end
      local nChanges, nDeliveries, nFields = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
      local i = 8
      redis.call('HSET', KEYS[1], unpack(ARGV, i, i + nFields - 1))
      i = i + nFields
      redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
      local seq = redis.call('LLEN', KEYS[3])
      for _ = 1, nChanges do
        seq = seq + 1
        redis.call('RPUSH', KEYS[3], '{"seq":' .. seq .. ',' .. string.sub(ARGV[i], 2))
        i = i + 1
      end
      for _ = 1, nDeliveries do
        local id = ARGV[i]
        redis.call('HSET', ARGV[4] .. id, 'watchlistId', ARGV[i + 1], 'delivery', ARGV[i + 3], 'version', 0)
        redis.call('ZADD', KEYS[4], ARGV[i + 2], id)
        if ARGV[i + 4] ~= '' then redis.call('ZADD', KEYS[5], ARGV[i + 4], id) end
        i = i + 5
      end
      return 1`,
  },
  // KEYS: dl, deliveries list, deliveries due. ARGV: id, watchlistId, createdAt, JSON, dueAt or ''.
  usDlCreate: {
    numberOfKeys: 3,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
      redis.call('HSET', KEYS[1], 'watchlistId', ARGV[2], 'delivery', ARGV[4], 'version', 0)
      redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
      if ARGV[5] ~= '' then redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1]) end
      return 1`,
  },
  // KEYS: dl, deliveries due. ARGV: id, token, JSON, dueAt or ''.
  usDlSave: {
    numberOfKeys: 2,
    lua: `
      if redis.call('HGET', KEYS[1], 'version') ~= ARGV[2] then return 0 end
      redis.call('HSET', KEYS[1], 'delivery', ARGV[3])
      if ARGV[4] == '' then redis.call('ZREM', KEYS[2], ARGV[1])
      else redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1]) end
      return 1`,
  },
  // KEYS: deliveries due. ARGV: now, leaseMs, dl key prefix, wl key prefix, most looked at, skipped owners...
  // Returns {id, token, owner, JSON} of the first due delivery whose owner is not skipped, or nil.
  usDlClaim: {
    numberOfKeys: 1,
    lua: `
      local skip = {}
      for i = 6, #ARGV do skip[ARGV[i]] = true end
      local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[5]))
      for _, id in ipairs(ids) do
        local raw = redis.call('HGET', ARGV[3] .. id, 'delivery')
        local wl = redis.call('HGET', ARGV[3] .. id, 'watchlistId')
        local owner = wl and redis.call('HGET', ARGV[4] .. wl, 'owner')
        if not raw or not owner then
          redis.call('ZREM', KEYS[1], id)
        elseif not skip[owner] then
          redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), id)
          local token = redis.call('HINCRBY', ARGV[3] .. id, 'version', 1)
          return {id, token, owner, raw}
        end
      end
      return false`,
  },
  // KEYS: owner's watchlists, deliveries due. ARGV: dl-list key prefix, dl key prefix, keep, createdBefore.
  // Returns how many deliveries the owner has after.
  usDlTrim: {
    numberOfKeys: 2,
    lua: `
      local all = {}
      for _, wl in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
        local list = ARGV[1] .. wl
        local items = redis.call('ZRANGE', list, 0, -1, 'WITHSCORES')
        for i = 1, #items, 2 do table.insert(all, {items[i], tonumber(items[i + 1]), list}) end
      end
      table.sort(all, function(a, b) if a[2] ~= b[2] then return a[2] > b[2] end return a[1] > b[1] end)
      local kept = 0
      for n, d in ipairs(all) do
        local pending = redis.call('ZSCORE', KEYS[2], d[1])
        if (not pending) and (n > tonumber(ARGV[3]) or d[2] < tonumber(ARGV[4])) then
          redis.call('DEL', ARGV[2] .. d[1])
          redis.call('ZREM', d[3], d[1])
        else
          kept = kept + 1
        end
      end
      return kept`,
  },
  // KEYS: dl, deliveries due. ARGV: id, version read, cancelled JSON. Only a pending one not claimed since.
  usDlCancel: {
    numberOfKeys: 2,
    lua: `
      if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then return 0 end
      if redis.call('HGET', KEYS[1], 'version') ~= ARGV[2] then return -1 end
      redis.call('HSET', KEYS[1], 'delivery', ARGV[3])
      redis.call('HINCRBY', KEYS[1], 'version', 1)
      redis.call('ZREM', KEYS[2], ARGV[1])
      return 1`,
  },
} as const;

/** Due deliveries a claim looks through for one whose owner is not skipped: every script is bounded. */
const CLAIM_SCAN = 200;

type ScriptName = keyof typeof SCRIPTS;
type Scripted = Redis & Record<ScriptName, (...args: (string | number)[]) => Promise<unknown>>;

/** The state as hash fields: `running` and `nextRunAt` apart, so a Lua script can read them. */
function stateFields(state: WatchlistState): (string | number)[] {
  return ['state', JSON.stringify(state), 'nextRunAt', state.nextRunAt, 'running', state.run ? '1' : '0'];
}

function toWatchlist(id: string, h: Record<string, string>): Watchlist | undefined {
  if (!h.owner || !h.spec || !h.state) return undefined;
  const state = JSON.parse(h.state) as WatchlistState;
  return {
    id,
    owner: h.owner,
    createdAt: Number(h.createdAt),
    updatedAt: Number(h.updatedAt),
    spec: JSON.parse(h.spec) as WatchlistSpec,
    state: { ...state, nextRunAt: Number(h.nextRunAt ?? state.nextRunAt) },
  };
}

export class RedisWatchlists implements WatchlistStore {
  readonly #redis: Scripted;
  readonly #prefix: string;

  /** `prefix` ends with a colon. */
  constructor(redis: Redis, prefix: string) {
    for (const [name, script] of Object.entries(SCRIPTS)) {
      if (!(name in redis)) redis.defineCommand(name, script);
    }
    this.#redis = redis as Scripted;
    this.#prefix = prefix;
  }

  #key(...parts: string[]): string {
    return this.#prefix + parts.join(':');
  }

  async #guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw asStoreError(error);
    }
  }

  createWatchlist(w: Watchlist): Promise<void> {
    return this.#guard(async () => {
      const created = await this.#redis.usWlCreate(
        this.#key('wl', w.id),
        this.#key('wl-owner', w.owner),
        this.#key('wl-due'),
        w.id,
        w.createdAt,
        w.state.nextRunAt,
        'owner',
        w.owner,
        'createdAt',
        w.createdAt,
        'updatedAt',
        w.updatedAt,
        'spec',
        JSON.stringify(w.spec),
        'version',
        0,
        ...stateFields(w.state),
      );
      if (created === 0) throw duplicateIdError('Watchlist', w.id);
    });
  }

  getWatchlist(id: string): Promise<Watchlist | undefined> {
    return this.#guard(async () => toWatchlist(id, await this.#redis.hgetall(this.#key('wl', id))));
  }

  listWatchlists(owner: string): Promise<Watchlist[]> {
    return this.#guard(async () => {
      const ids = await this.#redis.zrange(this.#key('wl-owner', owner), 0, -1);
      const out: Watchlist[] = [];
      for (const id of ids) {
        const w = toWatchlist(id, await this.#redis.hgetall(this.#key('wl', id)));
        if (w) out.push(w);
      }
      return out;
    });
  }

  updateWatchlistSpec(id: string, spec: WatchlistSpec, updatedAt: number): Promise<boolean> {
    return this.#guard(
      async () =>
        (await this.#redis.usWlUpdateSpec(this.#key('wl', id), JSON.stringify(spec), updatedAt)) === 1,
    );
  }

  deleteWatchlist(id: string): Promise<boolean> {
    return this.#guard(
      async () =>
        (await this.#redis.usWlDelete(
          this.#key('wl', id),
          this.#key('wl-due'),
          this.#key('wl-changes', id),
          this.#key('dl-list', id),
          this.#key('dl-due'),
          id,
          this.#key('dl', ''),
          this.#key('wl-owner', ''),
        )) === 1,
    );
  }

  requestRun(id: string, at: number): Promise<'queued' | 'running' | 'not_found'> {
    return this.#guard(async () => {
      const r = await this.#redis.usWlRequestRun(this.#key('wl', id), this.#key('wl-due'), id, at);
      return r === 0 ? 'not_found' : r === 2 ? 'running' : 'queued';
    });
  }

  claimDueWatchlist(now: number, leaseMs: number): Promise<Leased<Watchlist> | undefined> {
    return this.#guard(async () => {
      for (let i = 0; i < 10; i++) {
        const claimed = (await this.#redis.usClaim(this.#key('wl-due'), now, leaseMs, this.#key('wl', ''))) as
          | [string, number]
          | null;
        if (!claimed) return undefined;
        const [id, token] = claimed;
        const w = toWatchlist(id, await this.#redis.hgetall(this.#key('wl', id)));
        if (w) return { value: w, token: Number(token) };
        // Deleted meanwhile: the claim made a stray version field; drop it and its due entry.
        await this.#redis.multi().del(this.#key('wl', id)).zrem(this.#key('wl-due'), id).exec();
      }
      return undefined;
    });
  }

  saveWatchlistState(id: string, token: number, state: WatchlistState, dueAt: number): Promise<boolean> {
    return this.#guard(
      async () =>
        (await this.#redis.usWlSave(
          this.#key('wl', id),
          this.#key('wl-due'),
          id,
          token,
          dueAt,
          ...stateFields(state),
        )) === 1,
    );
  }

  deferWatchlist(id: string, token: number, dueAt: number): Promise<boolean> {
    return this.#guard(
      async () =>
        (await this.#redis.usWlDefer(this.#key('wl', id), this.#key('wl-due'), id, token, dueAt)) === 1,
    );
  }

  finishWatchlistRun(
    id: string,
    token: number,
    finish: Parameters<WatchlistStore['finishWatchlistRun']>[2],
  ): Promise<boolean> {
    return this.#guard(async () => {
      const fields = stateFields(finish.state);
      const args: (string | number)[] = [
        id,
        token,
        finish.dueAt,
        this.#key('dl', ''),
        finish.changes.length,
        finish.deliveries.length,
        fields.length,
        ...fields,
        ...finish.changes.map((c) => JSON.stringify(c)),
        ...finish.deliveries.flatMap((d) => [
          d.id,
          d.watchlistId,
          d.createdAt,
          JSON.stringify(d),
          deliveryDueAt(d) ?? '',
        ]),
      ];
      const r = await this.#redis.usWlFinish(
        this.#key('wl', id),
        this.#key('wl-due'),
        this.#key('wl-changes', id),
        this.#key('dl-list', id),
        this.#key('dl-due'),
        ...args,
      );
      return r === 1;
    });
  }

  listWatchChanges(
    watchlistId: string,
    options: { afterSeq?: number; limit?: number } = {},
  ): Promise<WatchChange[]> {
    return this.#guard(async () => {
      const start = options.afterSeq ?? 0;
      const stop = options.limit === undefined ? -1 : start + options.limit - 1;
      const rows = await this.#redis.lrange(this.#key('wl-changes', watchlistId), start, stop);
      return rows.map((r) => JSON.parse(r) as WatchChange);
    });
  }

  createDelivery(d: DeliveryRecord): Promise<void> {
    return this.#guard(async () => {
      const created = await this.#redis.usDlCreate(
        this.#key('dl', d.id),
        this.#key('dl-list', d.watchlistId),
        this.#key('dl-due'),
        d.id,
        d.watchlistId,
        d.createdAt,
        JSON.stringify(d),
        deliveryDueAt(d) ?? '',
      );
      if (created === 0) throw duplicateIdError('Delivery', d.id);
    });
  }

  getDelivery(id: string): Promise<DeliveryRecord | undefined> {
    return this.#guard(async () => {
      const raw = await this.#redis.hget(this.#key('dl', id), 'delivery');
      return raw ? (JSON.parse(raw) as DeliveryRecord) : undefined;
    });
  }

  listDeliveries(watchlistId: string, limit = 100): Promise<DeliveryRecord[]> {
    return this.#guard(async () => {
      const ids = await this.#redis.zrevrange(this.#key('dl-list', watchlistId), 0, limit - 1);
      const out: DeliveryRecord[] = [];
      for (const id of ids) {
        const raw = await this.#redis.hget(this.#key('dl', id), 'delivery');
        if (raw) out.push(JSON.parse(raw) as DeliveryRecord);
      }
      return out;
    });
  }

  claimDueDelivery(
    now: number,
    leaseMs: number,
    skipOwners: readonly string[] = [],
  ): Promise<LeasedDelivery | undefined> {
    return this.#guard(async () => {
      const claimed = (await this.#redis.usDlClaim(
        this.#key('dl-due'),
        now,
        leaseMs,
        this.#key('dl', ''),
        this.#key('wl', ''),
        CLAIM_SCAN,
        ...skipOwners,
      )) as [string, number, string, string] | null;
      if (!claimed) return undefined;
      const [, token, owner, raw] = claimed;
      return { value: JSON.parse(raw) as DeliveryRecord, token: Number(token), owner };
    });
  }

  saveDelivery(delivery: DeliveryRecord, token: number): Promise<boolean> {
    return this.#guard(
      async () =>
        (await this.#redis.usDlSave(
          this.#key('dl', delivery.id),
          this.#key('dl-due'),
          delivery.id,
          token,
          JSON.stringify(delivery),
          deliveryDueAt(delivery) ?? '',
        )) === 1,
    );
  }

  trimDeliveries(owner: string, limits: { keep: number; createdBefore: number }): Promise<number> {
    return this.#guard(async () =>
      Number(
        await this.#redis.usDlTrim(
          this.#key('wl-owner', owner),
          this.#key('dl-due'),
          this.#key('dl-list', ''),
          this.#key('dl', ''),
          limits.keep,
          limits.createdBefore,
        ),
      ),
    );
  }

  stopOwner(owner: string): Promise<{ watchlists: number; deliveries: number }> {
    return this.#guard(async () => {
      const ids = await this.#redis.zrange(this.#key('wl-owner', owner), 0, -1);
      let deliveries = 0;
      for (const id of ids) {
        // Never due again, and the lease of a run under way made stale.
        await this.#redis
          .multi()
          .zrem(this.#key('wl-due'), id)
          .hincrby(this.#key('wl', id), 'version', 1)
          .exec();
        for (const d of await this.#redis.zrange(this.#key('dl-list', id), 0, -1)) {
          if (await this.#cancel(d)) deliveries++;
        }
      }
      return { watchlists: ids.length, deliveries };
    });
  }

  /** Cancels one delivery if it is pending; tried again (a few times) when a claim changed it meanwhile. */
  async #cancel(id: string): Promise<boolean> {
    for (let i = 0; i < 5; i++) {
      const [raw, version] = await this.#redis.hmget(this.#key('dl', id), 'delivery', 'version');
      if (!raw || !version) return false;
      const cancelled = cancelledDelivery(JSON.parse(raw) as DeliveryRecord);
      const r = Number(
        await this.#redis.usDlCancel(
          this.#key('dl', id),
          this.#key('dl-due'),
          id,
          version,
          JSON.stringify(cancelled),
        ),
      );
      if (r !== -1) return r === 1;
    }
    return false;
  }
}
