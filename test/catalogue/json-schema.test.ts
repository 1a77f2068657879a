/**
 * docs/catalogue.schema.json is generated from src/catalogue/schema.ts; this
 * keeps the committed file and the schema from drifting apart.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readBuiltinDocument } from '../../src/catalogue/builtin.js';
import { CATEGORIES } from '../../src/catalogue/categories.js';
import {
  CATALOGUE_SCHEMA_FILE,
  catalogueJsonSchema,
  renderCatalogueJsonSchema,
} from '../../src/catalogue/json-schema.js';

interface ObjectSchema {
  required: string[];
  properties: Record<string, { $ref?: string; anyOf?: { const: string }[]; items?: { $ref?: string } }>;
  additionalProperties: boolean;
}

describe('the JSON Schema of a catalogue file', () => {
  it('is committed as generated now (run `npm run schema` after changing schema.ts)', () => {
    expect(readFileSync(CATALOGUE_SCHEMA_FILE, 'utf8')).toBe(renderCatalogueJsonSchema());
  });

  const schema = catalogueJsonSchema() as unknown as {
    $schema: string;
    properties: Record<string, { items: { $ref: string } }>;
    definitions: Record<string, ObjectSchema>;
  };
  const platform = schema.definitions.platform!;

  it('describes the file, with shared parts as references', () => {
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.properties.platforms!.items.$ref).toBe('#/definitions/platform');
    expect(schema.properties.shields!.items.$ref).toBe('#/definitions/shield');
    expect(platform.properties.check!.$ref).toBe('#/definitions/check');
    expect(platform.properties.username!.$ref).toBe('#/definitions/usernameRule');
    const detect = platform.properties.detect as unknown as { properties: Record<string, ObjectSchema> };
    expect((detect.properties.exists as unknown as { items: { $ref: string } }).items.$ref).toBe(
      '#/definitions/signal',
    );
    expect(JSON.stringify(schema)).not.toContain('[object');
  });

  it('holds the closed list of categories', () => {
    expect(platform.properties.category!.anyOf!.map((c) => c.const)).toEqual([...CATEGORIES]);
  });

  it('accepts the shape of every built-in entry', () => {
    const allowed = new Set(Object.keys(platform.properties));
    const { platforms } = readBuiltinDocument() as { platforms: Record<string, unknown>[] };
    expect(platforms.length).toBeGreaterThan(725);
    for (const entry of platforms) {
      const name = String(entry.name);
      expect(
        Object.keys(entry).filter((k) => !allowed.has(k)),
        name,
      ).toEqual([]);
      expect(
        platform.required.filter((k) => !(k in entry)),
        name,
      ).toEqual([]);
    }
  });
});
