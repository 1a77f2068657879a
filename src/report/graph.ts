/**
 * A search as a graph: the names searched, the accounts found for them, the
 * pages and accounts those accounts' profiles link to, and the follow-up
 * searches of a recursive search. Built from the body of `GET /api/search?id=`
 * (the API and the CLI give the same one), written out by graphml.ts and
 * graph-csv.ts. Pure: searches in, nodes and edges out.
 *
 * Node ids are built from what a node stands for (`name:alice`,
 * `account:github:alice`, `url:https://…`), so two exports of overlapping
 * searches merge on them in a graph database.
 */
import type { AccountLink } from '../engine/verdict/linked-accounts.js';
import type { OutcomeStatus } from '../engine/verdict/outcome.js';
import type { Profile } from '../engine/verdict/profile.js';
import type { FollowUp } from '../store/store.js';

export const NODE_KINDS = ['username', 'account', 'url'] as const;
/** A name searched (or named by a profile), an account on a platform, a page that is no known platform's profile. */
export type NodeKind = (typeof NODE_KINDS)[number];

export const EDGE_TYPES = ['has_account', 'links_to', 'followed_up'] as const;
/** name → account found; account → page or account its profile links to; name → follow-up name. */
export type EdgeType = (typeof EDGE_TYPES)[number];

/** A node's properties beside its id, kind and label, in the order the writers list them. */
export const NODE_FIELDS = [
  'username',
  'platform',
  'platformId',
  'category',
  'url',
  'status',
  'fullName',
  'bio',
  'location',
  'createdAt',
  'followers',
  'following',
  'website',
  'avatarUrl',
  'queryId',
  'notSearched',
] as const;
export type NodeField = (typeof NODE_FIELDS)[number];

/** Fields whose values are counts; every other one is text. */
export const COUNT_FIELDS: ReadonlySet<NodeField> = new Set(['followers', 'following']);

/** An edge's properties beside its ends and type. */
export const EDGE_FIELDS = ['url', 'via', 'queryId', 'notSearched'] as const;
export type EdgeField = (typeof EDGE_FIELDS)[number];

export interface GraphNode {
  readonly id: string;
  readonly kind: NodeKind;
  readonly label: string;
  readonly fields: Readonly<Partial<Record<NodeField, string | number>>>;
}

export interface GraphEdge {
  readonly source: string;
  readonly target: string;
  readonly type: EdgeType;
  readonly fields: Readonly<Partial<Record<EdgeField, string>>>;
}

export interface Graph {
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly GraphEdge[];
}

/** What the graph reads of a result: the API's result fields. */
export interface GraphResult {
  readonly platform: string;
  readonly platformId: string;
  readonly category: string;
  readonly url: string;
  readonly status: OutcomeStatus;
  readonly profile?: Profile | undefined;
}

/** What the graph reads of a search: the API's search fields. */
export interface GraphSearch {
  readonly queryId: string;
  readonly username: string;
  readonly results: readonly GraphResult[];
  readonly links?: readonly AccountLink[] | undefined;
  readonly followUps?: readonly FollowUp[] | undefined;
}

/** A platform's name and category, for an account known only from a link to it. */
export type PlatformLookup = (
  platformId: string,
) => { readonly name: string; readonly category: string } | undefined;

/**
 * Characters XML 1.0 cannot hold at all (C0 controls but tab, line feed and
 * carriage return; U+FFFE, U+FFFF; half a surrogate pair): a site's text may
 * carry them, and one would make the GraphML unreadable. The CSV drops them too,
 * so both files say the same.
 */
const NOT_TEXT =
  /[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text as the graph keeps it. */
export function graphText(text: string): string {
  return text.replace(NOT_TEXT, '');
}

const nameId = (username: string) => graphText(`name:${username.toLowerCase()}`);
const accountId = (platformId: string, username: string) =>
  graphText(`account:${platformId}:${username.toLowerCase()}`);
const urlId = (url: string) => graphText(`url:${url}`);

/**
 * The graph of `searches` (a search and its follow-ups, or the several names of
 * one run): each search's name, its hits as accounts with their profile fields,
 * what their profiles link to, and its follow-ups. A follow-up given among
 * `searches` adds its own hits under its name.
 */
export function searchGraph(
  searches: readonly GraphSearch[],
  platformOf: PlatformLookup = () => undefined,
): Graph {
  const nodes = new Map<string, { kind: NodeKind; label: string; fields: Record<string, string | number> }>();
  const edges = new Map<string, GraphEdge>();
  // Every outcome seen, by account: a linked account checked by one of the searches shows its status.
  const checked = new Map<string, GraphResult>();
  for (const search of searches)
    for (const result of search.results) checked.set(accountId(result.platformId, search.username), result);

  const node = (
    id: string,
    kind: NodeKind,
    label: string,
    fields: Partial<Record<NodeField, string | number | undefined>>,
  ) => {
    const known = nodes.get(id) ?? { kind, label: graphText(label), fields: {} };
    for (const [field, value] of Object.entries(fields)) {
      if (value === undefined || known.fields[field] !== undefined) continue;
      known.fields[field] = typeof value === 'string' ? graphText(value) : value;
    }
    nodes.set(id, known);
    return id;
  };
  const edge = (
    source: string,
    target: string,
    type: EdgeType,
    fields: Partial<Record<EdgeField, string | undefined>> = {},
  ) => {
    const key = `${type} ${source} ${target}`;
    if (edges.has(key)) return;
    const kept: Partial<Record<EdgeField, string>> = {};
    for (const [field, value] of Object.entries(fields))
      if (value !== undefined) kept[field as EdgeField] = graphText(value);
    edges.set(key, { source, target, type, fields: kept });
  };

  for (const search of searches) {
    const name = node(nameId(search.username), 'username', search.username, {
      username: search.username,
      queryId: search.queryId,
    });
    for (const result of search.results) {
      if (result.status !== 'hit') continue;
      const p = result.profile;
      const account = node(
        accountId(result.platformId, search.username),
        'account',
        `${result.platform}: ${search.username}`,
        {
          username: search.username,
          platform: result.platform,
          platformId: result.platformId,
          category: result.category,
          url: result.url,
          status: result.status,
          fullName: p?.fullName,
          bio: p?.bio,
          location: p?.location,
          createdAt: p?.createdAt,
          followers: p?.followers,
          following: p?.following,
          website: p?.website,
          avatarUrl: p?.avatarUrl,
        },
      );
      edge(name, account, 'has_account');
      // Its profile's links: to a known platform's profile (an account), or a page of its own.
      const toAccounts = new Map(
        (search.links ?? []).filter((l) => l.from === result.platformId).map((l) => [l.url, l]),
      );
      const pages = [...new Set([...(p?.links ?? []), ...(p?.website ? [p.website] : [])])];
      for (const url of pages) {
        const link = toAccounts.get(url);
        if (!link) {
          edge(account, node(urlId(url), 'url', url, { url }), 'links_to', { url });
          continue;
        }
        const seen = checked.get(accountId(link.to, link.username));
        const platform = seen?.platform ?? platformOf(link.to)?.name ?? link.to;
        const target = node(accountId(link.to, link.username), 'account', `${platform}: ${link.username}`, {
          username: link.username,
          platform,
          platformId: link.to,
          category: seen?.category ?? platformOf(link.to)?.category,
          url: link.url,
          // Not checked by these searches: a link is all that is known of it.
          status: seen?.status ?? 'not_checked',
        });
        edge(account, target, 'links_to', { url });
      }
    }
    for (const followUp of search.followUps ?? []) {
      const target = node(nameId(followUp.username), 'username', followUp.username, {
        username: followUp.username,
        queryId: followUp.queryId,
        notSearched: followUp.notSearched,
      });
      edge(name, target, 'followed_up', {
        via: followUp.from,
        queryId: followUp.queryId,
        notSearched: followUp.notSearched,
      });
    }
  }
  return {
    nodes: [...nodes].map(([id, n]) => ({ id, kind: n.kind, label: n.label, fields: n.fields })),
    edges: [...edges.values()],
  };
}
