/**
 * GET /api/search/{id}/graph.graphml, graph-nodes.csv and graph-edges.csv: the
 * search as a graph (src/report/graph.ts) of its name, the accounts found, what
 * their profiles link to and its follow-up searches with their own hits, as
 * GraphML (Gephi, yEd) or as the two CSV files Neo4j's LOAD CSV reads. Read like
 * the search itself: anyone with the id (only its key for a private search).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { UserscoutError } from '../../errors.js';
import { fileSafe } from '../../report/file-name.js';
import { type Graph, type GraphSearch, searchGraph } from '../../report/graph.js';
import { graphEdgesCsv, graphNodesCsv } from '../../report/graph-csv.js';
import { graphMl } from '../../report/graphml.js';
import type { AppDeps } from '../deps.js';
import { EventsParams } from '../schemas.js';
import { searchResponse } from '../search-response.js';
import { searchViewReader } from '../search-view.js';

interface GraphFile {
  readonly file: string;
  readonly operationId: string;
  readonly summary: string;
  readonly type: string;
  readonly write: (graph: Graph) => string;
}

const CSV_TYPE = 'text/csv; charset=utf-8; header=present';

const FILES: readonly GraphFile[] = [
  {
    file: 'graph.graphml',
    operationId: 'getSearchGraphMl',
    summary: 'The search as a GraphML graph (Gephi, yEd, Cytoscape, NetworkX)',
    type: 'application/graphml+xml; charset=utf-8',
    write: graphMl,
  },
  {
    file: 'graph-nodes.csv',
    operationId: 'getSearchGraphNodes',
    summary: "The nodes of the search's graph as CSV (Neo4j LOAD CSV)",
    type: CSV_TYPE,
    write: graphNodesCsv,
  },
  {
    file: 'graph-edges.csv',
    operationId: 'getSearchGraphEdges',
    summary: "The edges of the search's graph as CSV (Neo4j LOAD CSV)",
    type: CSV_TYPE,
    write: graphEdgesCsv,
  },
];

const GRAPH_SHAPE =
  'Nodes (kind): the name searched and each follow-up name (username; queryId, notSearched), each account found (account: platform, platformId, category, url, status, and the profile fields fullName, bio, location, createdAt, followers, following, website, avatarUrl), each account or page a profile links to (an account of a known platform, status not_checked unless a search here checked it; or a url). Node ids name what they stand for (name:alice, account:github:alice, url:https://…), so exports merge. Edges: has_account (name → account), links_to (account → account or url; url), followed_up (name → follow-up name; via, the platform id of the hit that gave it, queryId, notSearched). A follow-up search adds its own hits under its name. Text is as the sites wrote it but for the control characters XML cannot hold; in CSV a cell a spreadsheet would read as a formula (= + - @) starts with an apostrophe.';

export async function graphRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const read = searchViewReader(deps);
  const platforms = new Map(deps.catalogue.platforms.map((p) => [p.id, p]));
  const platformOf = (id: string) => platforms.get(id);
  const percent = deps.config.coverageWarningPercent;
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  for (const { file, operationId, summary, type, write } of FILES) {
    api.get(
      `/api/search/:id/${file}`,
      {
        schema: {
          tags: ['search'],
          summary,
          operationId,
          description: `${GRAPH_SHAPE} The same graph as GET /api/search/{id}/graph.graphml, graph-nodes.csv and graph-edges.csv, and as userscout search --format graphml or graph-csv.`,
          params: EventsParams,
          response: {
            200: {
              description: 'The graph file',
              content: { [type.split(';')[0]!]: { schema: { type: 'string' } } },
            },
            404: { $ref: 'Error#' },
          },
        },
      },
      async (request, reply) => {
        const found = await read(request.params.id, request.caller, { all: true, log: request.log });
        if (!found) throw new UserscoutError('search_not_found');
        const search = searchResponse(found.view, percent);
        const searches: GraphSearch[] = [search];
        // Its follow-ups' own hits (at most maxFollowUps searches, never recursive themselves).
        for (const followUp of search.followUps ?? []) {
          if (followUp.queryId === undefined) continue;
          const their = await read(followUp.queryId, request.caller, { all: true, log: request.log });
          if (their) searches.push(searchResponse(their.view, percent));
        }
        return reply
          .header(
            'content-disposition',
            `attachment; filename="userscout-${fileSafe(found.search.username)}-${file}"`,
          )
          .type(type)
          .send(write(searchGraph(searches, platformOf)));
      },
    );
  }
}
