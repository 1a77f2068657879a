/**
 * The OpenAPI document's own parts: info, servers, licence, security, and the
 * response headers every /api/ answer carries. Routes declare their bodies and
 * status codes; the headers are the same for all of them, so they are added
 * here once, to every documented response, rather than written into each route.
 */
import type { SwaggerOptions } from '@fastify/swagger';

/** Version of the REST API (the document's info.version), not of the package. */
const API_VERSION = '1.0.0';

const header = (description: string, schema: object = { type: 'integer' }) => ({ description, schema });

/** Headers on every answer under /api/, whatever its status. */
const EVERY_ANSWER = {
  'X-Request-Id': header('Id of this request, also in error bodies and the logs', { type: 'string' }),
  'RateLimit-Limit': header('Requests (or searches, on POST /api/search) allowed in the current window'),
  'RateLimit-Remaining': header('What is left of that limit in the current window'),
  'RateLimit-Reset': header('Seconds until the window starts again'),
};

/** On every answer but a 401 (a refused key has no tier). */
const TIER = {
  'X-Userscout-Tier': header('The tier that served the request: free (no key) or professional', {
    type: 'string',
    enum: ['free', 'professional'],
  }),
};

/** On 429 and 503: when to try again. */
const RETRY_AFTER = { 'Retry-After': header('Seconds to wait before trying again') };

/** The headers a response of `status` carries. Pure. */
export function responseHeaders(status: string): Record<string, { description: string; schema: object }> {
  return {
    ...EVERY_ANSWER,
    ...(status === '401' ? {} : TIER),
    ...(status === '429' || status === '503' ? RETRY_AFTER : {}),
  };
}

type Operation = { responses?: Record<string, { headers?: Record<string, unknown> }> };
type Document = { paths?: Record<string, Record<string, Operation>> };

/** Adds the response headers to every operation under /api/. Mutates and returns the generated document. */
function documentResponseHeaders<T>(doc: T): T {
  for (const [path, operations] of Object.entries((doc as Document).paths ?? {})) {
    if (!path.startsWith('/api/')) continue;
    for (const operation of Object.values(operations)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        response.headers = { ...responseHeaders(status), ...response.headers };
      }
    }
  }
  return doc;
}

/**
 * The answer Node's HTTP parser gives before any route runs: headers over the size
 * limit. It has our error body and X-Request-Id, and none of the other headers (no
 * limit or tier was looked at); the connection is then closed. A malformed request
 * (request line, header syntax, Content-Length with Transfer-Encoding) is a 400 of the
 * same kind, documented with every operation's 400.
 */
const PARSER_REFUSAL = {
  description:
    'Request line or headers too large (over 16 KB): refused by the HTTP parser before any route, code headers_too_large; the connection is closed',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  headers: { 'X-Request-Id': EVERY_ANSWER['X-Request-Id'] },
};

/** Adds the parser's 431 to every operation under /api/. Mutates and returns the generated document. */
function documentParserErrors<T>(doc: T): T {
  for (const [path, operations] of Object.entries((doc as Document).paths ?? {})) {
    if (!path.startsWith('/api/')) continue;
    for (const operation of Object.values(operations)) {
      operation.responses = { ...operation.responses, '431': PARSER_REFUSAL };
    }
  }
  return doc;
}

/**
 * The Content-Security-Policy of the /docs page: nothing but this origin's own
 * scripts, style sheets, images and API calls. Swagger UI sets style attributes from
 * its scripts, so style attributes may be inline (scripts may not, nor style elements
 * but one, by its hash);
 * no image from the public validator, no framing, and no upgrade to https, which would
 * break a service on plain http.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "base-uri 'none'",
  "connect-src 'self'",
  "font-src 'self' data:",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "img-src 'self' data:",
  "object-src 'none'",
  "script-src 'self'",
  "script-src-attr 'none'",
  "style-src 'self'",
  // The one style element Swagger UI writes inline: the <style> of its small SVG logo.
  // A Swagger UI upgrade that changes it fails the /docs browser test, which names the new hash.
  "style-src-elem 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='",
  "style-src-attr 'unsafe-inline'",
].join('; ');

/** The other headers of the /docs page and its files (besides `nosniff`, which every answer has). */
export const DOCS_HEADERS: Readonly<Record<string, string>> = {
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

export const OPENAPI_OPTIONS: SwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: {
      title: 'userscout',
      version: API_VERSION,
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        'Checks whether a username exists on more than a thousand online platforms. Start a search with POST /api/search, then poll GET /api/search?id= (or listen to /api/search/{id}/events) until status is completed or error. Units: estimatedTime in seconds, responseTime in milliseconds. Errors share one body: {error, code, requestId}, also when the HTTP parser refuses a request before any route (400 bad_request for a malformed request line or headers, or both Content-Length and Transfer-Encoding; 431 headers_too_large for headers over 16 KB; 408 request_timeout), after which the connection is closed. Every response carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset headers; a 429 also has Retry-After. Every /api/ response but a 401 carries X-Userscout-Tier: free or professional, the tier that served it (no key is the free tier).',
    },
    // Relative: the document describes the service that serves it, wherever it is deployed.
    servers: [{ url: '/', description: 'This service' }],
    tags: [
      { name: 'search', description: 'Start and follow searches' },
      { name: 'platforms', description: 'The catalogue of platforms' },
      {
        name: 'watchlists',
        description:
          'Names watched on a schedule for API-key holders, with changes between runs sent to a signed webhook',
      },
    ],
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Professional tier key' },
        bearer: { type: 'http', scheme: 'bearer', description: 'The same key as a bearer token' },
      },
    },
    security: [{}, { apiKey: [] }, { bearer: [] }],
  },
  refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  transformObject: (documents) =>
    documentParserErrors(
      documentResponseHeaders(
        'openapiObject' in documents ? documents.openapiObject : documents.swaggerObject,
      ),
    ),
};
