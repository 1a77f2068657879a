/**
 * The JSON Schema of a catalogue file, generated from the TypeBox schema in
 * `schema.ts` so the two cannot drift: `npm run schema` writes it to
 * `docs/catalogue.schema.json`, and a test fails when the committed file
 * differs from what the schema generates now. Editors use it to check entries
 * as they are written; `userscout catalogue validate` checks the rest (regexes
 * compile as RE2, templates hold {username}, known names keep the platform's rule).
 */
import { fileURLToPath } from 'node:url';
import type { TSchema } from '@sinclair/typebox';
import {
  BasicSignalSchema,
  CheckSchema,
  FamilySchema,
  PlatformSchema,
  ShieldSchema,
  SignalSchema,
  UsernameRuleSchema,
} from './schema.js';

export const CATALOGUE_SCHEMA_FILE = fileURLToPath(
  new URL('../../docs/catalogue.schema.json', import.meta.url),
);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The schema as plain JSON (TypeBox keeps its own markers in symbol keys, which this drops). */
function plain(schema: TSchema): Json {
  return JSON.parse(JSON.stringify(schema)) as Json;
}

/** Replaces every copy of a named schema inside `node` by a `$ref` to its definition. */
function withRefs(node: Json, refs: ReadonlyMap<string, string>, root = true): Json {
  if (!root && node !== null && typeof node === 'object') {
    const ref = refs.get(JSON.stringify(node));
    if (ref) return { $ref: ref };
  }
  if (Array.isArray(node)) return node.map((item) => withRefs(item, refs, false));
  if (node !== null && typeof node === 'object')
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, withRefs(v, refs, false)]));
  return node;
}

export function catalogueJsonSchema(): Json {
  const named: [string, TSchema][] = [
    ['platform', PlatformSchema],
    ['check', CheckSchema],
    ['signal', SignalSchema],
    ['basicSignal', BasicSignalSchema],
    ['usernameRule', UsernameRuleSchema],
    ['shield', ShieldSchema],
    ['family', FamilySchema],
  ];
  const refs = new Map(
    named.map(([name, schema]) => [JSON.stringify(plain(schema)), `#/definitions/${name}`]),
  );
  const definitions = Object.fromEntries(
    named.map(([name, schema]) => [name, withRefs(plain(schema), refs)]),
  ) as Record<string, { required: string[] } & Record<string, Json>>;
  // An entry of a family takes its profile and detect rules from the family.
  const platform = definitions.platform!;
  const own = ['profile', 'detect'];
  platform.required = platform.required.filter((field) => !own.includes(field));
  platform.anyOf = [{ required: ['family'] }, { required: own }];
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'userscout catalogue',
    description:
      'A userscout catalogue file: platforms and bot-shield fingerprints. Generated from src/catalogue/schema.ts by `npm run schema`; see docs/catalogue.md.',
    type: 'object',
    required: ['platforms'],
    additionalProperties: false,
    properties: {
      $schema: { type: 'string' },
      platforms: { type: 'array', items: { $ref: '#/definitions/platform' } },
      shields: { type: 'array', items: { $ref: '#/definitions/shield' } },
      families: { type: 'array', items: { $ref: '#/definitions/family' } },
    },
    definitions,
  };
}

/** The file's exact text. */
export function renderCatalogueJsonSchema(): string {
  return `${JSON.stringify(catalogueJsonSchema(), null, 2)}\n`;
}
