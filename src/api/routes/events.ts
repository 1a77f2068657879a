/**
 * GET /api/search/{id}/events: Server-Sent Events for one search. Events:
 * `progress` (checked/total/hits), `result` (one outcome; its id is the
 * outcome's seq), `done` (final status), and `reconnect` when the server
 * closes the stream while the search goes on (shutdown): the client
 * reconnects, and a client that reconnects with Last-Event-ID gets only what
 * it missed. Each live event is encoded once for all its streams
 * (event-fanout.ts), each stored result once for all the streams that open
 * (event-backlog.ts); open streams are capped per client and per search
 * (stream-limits.ts).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { UserscoutError } from '../../errors.js';
import { progressSnapshot, type SearchEvent } from '../../runner/events.js';
import { isFinished } from '../../store/store.js';
import { SSE_HEARTBEAT_MS } from '../../tuning.js';
import type { AppDeps } from '../deps.js';
import { EventBacklog } from '../event-backlog.js';
import {
  type EncodedEvent,
  type EventBatch,
  EventFanout,
  encodeSearchEvent,
  eventBatch,
  RECONNECT_FRAME,
  sseFrame,
} from '../event-fanout.js';
import type { KeyRevocations } from '../key-revocations.js';
import { EventsParams, EventsQuery } from '../schemas.js';
import { canRead } from '../search-access.js';
import { StreamLimits } from '../stream-limits.js';

const HEARTBEAT = Buffer.from(': keep-alive\n\n', 'utf8');

export async function eventRoutes(
  app: FastifyInstance,
  deps: AppDeps,
  revocations: Pick<KeyRevocations, 'watch'>,
): Promise<void> {
  const fanout = new EventFanout(deps.events, deps.config.streamFlushMs);
  const limits = new StreamLimits(deps.config);
  const backlog = new EventBacklog(deps.store);
  // Open streams end when the server closes, so shutdown does not wait on them; each
  // gets a last `reconnect` event, since its search resumes after a restart.
  const open = new Set<(reconnect: boolean) => void>();
  app.addHook('preClose', async () => {
    for (const finish of [...open]) finish(true);
  });
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/api/search/:id/events',
    {
      schema: {
        tags: ['search'],
        summary: 'Live progress of a search (Server-Sent Events)',
        operationId: 'followSearch',
        description:
          'text/event-stream with events progress ({checked,total,hits}), result (a Result; id = its sequence number), done ({status, error?}: the last event of a finished search) and reconnect ({reason, retryMs}: the server is shutting down while the search goes on; reconnect after retryMs with Last-Event-ID and the stream resumes, the search is not finished). Reconnect with Last-Event-ID (or ?lastEventId=) to resume. Usable with a browser EventSource. Open streams are capped per client and per search: past the cap, 429 too_many_streams (poll GET /api/search?id= instead).',
        params: EventsParams,
        querystring: EventsQuery,
        response: {
          200: {
            description:
              'A stream of Server-Sent Events: progress, result, done, and reconnect when the server shuts down mid-search',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          404: { $ref: 'Error#' },
          429: {
            description:
              'too_many_streams: too many event streams open for this client or on this search (details.scope says which); rate_limited: the request limit',
            $ref: 'Error#',
          },
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      // The cap first: a refused stream costs no store read.
      const release = limits.admit(request.caller.client, request.caller.tier, id);
      const search = await deps.store.getSearch(id).catch((error: unknown) => {
        release();
        throw error;
      });
      if (!search || !canRead(search, request.caller)) {
        release();
        throw new UserscoutError('search_not_found');
      }
      const header = Number(request.headers['last-event-id']);
      let lastSent = Number.isInteger(header) && header > 0 ? header : Number(request.query.lastEventId ?? 0);

      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      res.write('retry: 2000\n\n');

      let closed = false;
      let replaying = true;
      const buffered: EventBatch[] = [];
      const sendOne = ({ event, bytes }: EncodedEvent) => {
        if (event.type === 'result') {
          if (event.seq <= lastSent) return;
          lastSent = event.seq;
        }
        res.write(bytes);
      };
      // The bytes are shared by every stream of the search: only the seq check is per stream.
      const send = (batch: EventBatch) => {
        if (closed) return;
        if (batch.firstSeq > lastSent) {
          res.write(batch.bytes);
          lastSent = Math.max(lastSent, batch.lastSeq);
        } else {
          for (const item of batch.items) sendOne(item);
        }
        if (batch.done) finish(false);
      };
      const unsubscribe = fanout.subscribe(id, (batch) => (replaying ? buffered.push(batch) : send(batch)));
      const heartbeat = setInterval(() => !closed && res.write(HEARTBEAT), SSE_HEARTBEAT_MS);
      let unwatch = () => {};
      const finish = (reconnect: boolean) => {
        if (closed) return;
        closed = true;
        open.delete(finish);
        unwatch();
        clearInterval(heartbeat);
        unsubscribe();
        if (!fanout.following(id)) backlog.forget(id);
        release();
        if (reconnect) res.write(RECONNECT_FRAME);
        res.end();
      };
      open.add(finish);
      // The stream of a key ends when the key is revoked (key-revocations.ts).
      unwatch = revocations.watch(request.caller.client, () => finish(false));
      request.raw.on('close', () => finish(false));

      try {
        // Subscribed first, then the backlog: nothing falls between the two.
        await fanout.subscribed(id);
        const missed = await backlog.after(id, lastSent);
        if (closed) {
          // Closed while reading: the entry it made may have no stream left to drop it.
          if (!fanout.following(id)) backlog.forget(id);
          return;
        }
        lastSent = missed.lastSeq;
        if (missed.text) res.write(missed.text);
        const [progress, latest] = await Promise.all([deps.store.progress(id), deps.store.getSearch(id)]);
        if (closed) return;
        const snapshot = progressSnapshot(search.platformIds.length, progress);
        res.write(sseFrame('progress', snapshot));
        replaying = false;
        for (const batch of buffered.splice(0)) send(batch);
        if (latest && isFinished(latest.state)) {
          const done: SearchEvent = {
            type: 'done',
            state: latest.state,
            ...(latest.error ? { error: latest.error } : {}),
            progress: snapshot,
          };
          send(eventBatch([{ event: done, bytes: encodeSearchEvent(done) }]));
        }
      } catch (error) {
        request.log.error({ err: error }, 'event stream failed');
        finish(false);
      }
    },
  );
}
