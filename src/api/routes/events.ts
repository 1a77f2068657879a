/**
 * GET /api/search/{id}/events: Server-Sent Events for one search. Events:
 * `progress` (checked/total/hits), `result` (one outcome; its id is the
 * outcome's seq), `done` (final status). A client that reconnects with
 * Last-Event-ID gets only what it missed.
 */

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { UserscoutError } from '../../errors.js';
import { progressSnapshot, type SearchEvent } from '../../runner/events.js';
import type { AppDeps } from '../deps.js';
import { EventsParams, EventsQuery } from '../schemas.js';
import { canRead } from '../search-access.js';

const HEARTBEAT_MS = 15_000;

function frame(event: string, data: unknown, id?: number): string {
  return `${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export async function eventRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  // Open streams end when the server closes, so shutdown does not wait on them.
  const open = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const finish of [...open]) finish();
  });
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/api/search/:id/events',
    {
      schema: {
        tags: ['search'],
        summary: 'Live progress of a search (Server-Sent Events)',
        operationId: 'followSearch',
        description:
          'text/event-stream with events progress ({checked,total,hits}), result (a Result; id = its sequence number) and done ({status, error?}). Reconnect with Last-Event-ID (or ?lastEventId=) to resume. Usable with a browser EventSource.',
        params: EventsParams,
        querystring: EventsQuery,
        response: {
          200: {
            description: 'A stream of Server-Sent Events: progress, result and done',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          404: { $ref: 'Error#' },
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const search = await deps.store.getSearch(id);
      if (!search || !canRead(search, request.caller)) throw new UserscoutError('search_not_found');
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
      const buffered: SearchEvent[] = [];
      const send = (event: SearchEvent) => {
        if (closed) return;
        if (event.type === 'result') {
          if (event.seq <= lastSent) return;
          lastSent = event.seq;
          res.write(frame('result', event.outcome, event.seq));
          res.write(frame('progress', event.progress));
        } else if (event.type === 'started') {
          res.write(frame('progress', event.progress));
        } else {
          res.write(frame('progress', event.progress));
          res.write(frame('done', { status: event.state, ...(event.error ? { error: event.error } : {}) }));
          finish();
        }
      };
      const unsubscribe = deps.events.subscribe(id, (event) =>
        replaying ? buffered.push(event) : send(event),
      );
      const heartbeat = setInterval(() => !closed && res.write(': keep-alive\n\n'), HEARTBEAT_MS);
      const finish = () => {
        if (closed) return;
        closed = true;
        open.delete(finish);
        clearInterval(heartbeat);
        unsubscribe();
        res.end();
      };
      open.add(finish);
      request.raw.on('close', finish);

      try {
        // Subscribed first, then the backlog: nothing falls between the two.
        await deps.events.subscribed?.(id);
        for (const stored of await deps.store.listOutcomes(id, { afterSeq: lastSent })) {
          if (closed) return;
          lastSent = stored.seq;
          res.write(frame('result', stored.outcome, stored.seq));
        }
        const [progress, latest] = await Promise.all([deps.store.progress(id), deps.store.getSearch(id)]);
        const snapshot = progressSnapshot(search.platformIds.length, progress);
        res.write(frame('progress', snapshot));
        replaying = false;
        for (const event of buffered.splice(0)) send(event);
        if (latest && (latest.state === 'completed' || latest.state === 'error')) {
          send({
            type: 'done',
            state: latest.state,
            ...(latest.error ? { error: latest.error } : {}),
            progress: snapshot,
          });
        }
      } catch (error) {
        request.log.error({ err: error }, 'event stream failed');
        finish();
      }
    },
  );
}
