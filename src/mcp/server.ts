/**
 * `userscout mcp`'s server: three tools over a search backend (this machine's
 * engine, or a service), each with a JSON input schema. A search answers in
 * the API's shape with a summary line first; a platform that could not tell or
 * could not be reached is said to be so, never counted as "no account", and a
 * failure is a tool error naming its code, never an empty result.
 */
import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';
import type { SearchJson } from '../api/search-response.js';
import { CATEGORIES } from '../catalogue/categories.js';
import { isUserscoutError } from '../errors.js';
import type { SearchBackend } from './search-backend.js';

/**
 * How long a tool waits for a search to end before answering with it still running. MCP
 * clients give up on a call after about a minute by default, so a tool answers well within it.
 */
export const DEFAULT_WAIT_SECONDS = 25;
export const MAX_WAIT_SECONDS = 50;

const waitSeconds = z
  .number()
  .int()
  .min(0)
  .max(MAX_WAIT_SECONDS)
  .optional()
  .describe(
    `Seconds to wait for the search to end before answering with it still running (default ${DEFAULT_WAIT_SECONDS} for search_username, 0 for get_search_results)`,
  );

/** The package's version, for the server's name in the handshake. */
function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version?: string;
  };
  return pkg.version ?? '0.0.0';
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * The line a tool gives before the search's JSON: its state and every count, the ones that
 * did not answer apart from the misses, and what to call next while it runs. Pure.
 */
export function searchSummaryLine(search: SearchJson): string {
  const p = search.progress;
  const counts = [
    `${plural(p.hits, 'hit', 'hits')} (account exists)`,
    `${p.answered - p.hits} miss (no account)`,
    `${p.unknown} unknown (answered, could not tell)`,
    `${p.errors} error (not reached)`,
    `${p.invalid} invalid (the name breaks the platform's rule; not asked)`,
  ].join(', ');
  const head =
    search.status === 'running'
      ? `${search.username}: still running, ${p.checked} of ${p.total} platforms checked so far: ${counts}. Call get_search_results with queryId ${search.queryId} (and waitSeconds) for the rest.`
      : search.status === 'error'
        ? `${search.username}: the search failed (${search.error ?? 'error'}) after ${p.checked} of ${p.total} platforms: ${counts}.`
        : `${search.username}: completed on ${p.total} platforms: ${counts}; coverage ${Math.round(search.coverage * 100)}%.`;
  const unanswered =
    p.unknown + p.errors > 0
      ? ' A platform that is unknown or error is not a miss: an account may exist there.'
      : '';
  return `${head}${unanswered}${search.warning ? ` Warning: ${search.warning}` : ''}`;
}

function searchAnswer(search: SearchJson): CallToolResult {
  return {
    content: [
      { type: 'text', text: searchSummaryLine(search) },
      { type: 'text', text: JSON.stringify(search, null, 2) },
    ],
  };
}

/** A failure as the tool's error: its code and message, so no client reads it as "nothing found". */
function failure(error: unknown): CallToolResult {
  const text = isUserscoutError(error)
    ? `${error.code}: ${error.message}`
    : `internal: ${error instanceof Error ? error.message : String(error)}`;
  return { isError: true, content: [{ type: 'text', text }] };
}

const notFound = (queryId: string, where: string): CallToolResult => ({
  isError: true,
  content: [
    {
      type: 'text',
      text: `search_not_found: no search with queryId ${queryId} on ${where} (searches run on this machine last as long as this server; a service forgets them after its retention)`,
    },
  ],
});

export function createMcpServer(backend: SearchBackend): McpServer {
  const server = new McpServer({ name: 'userscout', version: version() });

  server.registerTool(
    'search_username',
    {
      title: 'Search a username',
      description: `Checks whether a username has an account on each platform of the catalogue (searched from ${backend.where}). Answers when the search ends or after waitSeconds, with a summary line and the search as JSON: hits with their profile pages (and names, bios, links found there), counts of misses, of platforms that could not tell (unknown) and that could not be reached (error). Only a miss means "no account". Read the rest, or every outcome, with get_search_results.`,
      inputSchema: {
        username: z.string().describe('The username to look for'),
        categories: z
          .array(z.enum(CATEGORIES))
          .optional()
          .describe('Only platforms of these categories (default: every category)'),
        platforms: z
          .array(z.string().min(1))
          .optional()
          .describe('Only these platforms, by id or name (see list_platforms)'),
        tags: z
          .array(z.string().min(1).max(60))
          .max(50)
          .optional()
          .describe(
            "Only platforms with at least one of these tags (the catalogue's tags, e.g. git, fediverse, forum)",
          ),
        top: z
          .boolean()
          .optional()
          .describe(
            'Only the curated set of the platforms most searched on: a quick first look (default false)',
          ),
        includeNsfw: z.boolean().optional().describe('Include NSFW platforms (default false)'),
        waitSeconds,
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async (input): Promise<CallToolResult> => {
      try {
        const started = await backend.start(input.username, {
          ...(input.categories ? { categories: input.categories } : {}),
          ...(input.platforms ? { platforms: input.platforms } : {}),
          ...(input.tags ? { tags: input.tags } : {}),
          ...(input.top !== undefined ? { top: input.top } : {}),
          ...(input.includeNsfw !== undefined ? { includeNsfw: input.includeNsfw } : {}),
        });
        const search = await backend.read(started.queryId, {
          all: false,
          waitMs: (input.waitSeconds ?? DEFAULT_WAIT_SECONDS) * 1000,
        });
        return search ? searchAnswer(search) : notFound(started.queryId, backend.where);
      } catch (error) {
        return failure(error);
      }
    },
  );

  server.registerTool(
    'get_search_results',
    {
      title: "Read a search's results",
      description:
        'Reads a search started with search_username, by its queryId: its hits (include "hits", the default) or every outcome with its status and reason (include "all"), with the counts and coverage. Waits up to waitSeconds for a running search to end.',
      inputSchema: {
        queryId: z.string().min(1).max(200).describe('The queryId search_username answered with'),
        include: z
          .enum(['hits', 'all'])
          .optional()
          .describe('hits: accounts found (default); all: every platform with its status and reason'),
        waitSeconds,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (input): Promise<CallToolResult> => {
      try {
        const search = await backend.read(input.queryId, {
          all: input.include === 'all',
          waitMs: (input.waitSeconds ?? 0) * 1000,
        });
        return search ? searchAnswer(search) : notFound(input.queryId, backend.where);
      } catch (error) {
        return failure(error);
      }
    },
  );

  server.registerTool(
    'list_platforms',
    {
      title: 'List platforms',
      description:
        'The platforms a search covers, of one category when given: name, id, category, whether NSFW, and whether it is searched (with the reason when it is not).',
      inputSchema: {
        category: z.enum(CATEGORIES).optional().describe('Only this category (default: every category)'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (input): Promise<CallToolResult> => {
      try {
        const platforms = await backend.platforms(input.category);
        const searched = platforms.filter((p) => p.enabled).length;
        return {
          content: [
            {
              type: 'text',
              text: `${plural(platforms.length, 'platform', 'platforms')}${input.category ? ` in ${input.category}` : ''}, ${searched} searched.`,
            },
            { type: 'text', text: JSON.stringify({ platforms, total: platforms.length }, null, 2) },
          ],
        };
      } catch (error) {
        return failure(error);
      }
    },
  );

  return server;
}
