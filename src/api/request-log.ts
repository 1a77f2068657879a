/**
 * What the server logs per request. One line per request at info level, when it
 * has been answered (method, URL, status, time); the line on arrival is debug.
 * A refused request (429) logs nothing at info: under a flood of them the log
 * would cost more than the answer, so they are counted in /metrics
 * (userscout_refused_requests_total) and logged at debug only.
 */
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

export class RequestLog extends LogController {
  constructor() {
    super({ requestIdLogLabel: 'requestId' });
  }

  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const fields = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else if (reply.statusCode === 429) reply.log.debug(fields, 'request refused');
    else reply.log.info(fields, 'request completed');
  }
}
