/**
 * GET /api/platforms[?category=] and GET /api/categories.
 */

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { CATEGORIES, CATEGORY_DESCRIPTIONS } from '../../catalogue/categories.js';
import type { AppDeps } from '../deps.js';
import { readPlatformHealth } from '../platform-health.js';
import { CategoriesResponse, errorResponses, PlatformsQuery, PlatformsResponse } from '../schemas.js';

export async function platformRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  // Read at each request: health changes while the service runs (live-health.ts).
  const listing = () =>
    deps.catalogue.platforms.map((p) => {
      const health = deps.health.get(p.id);
      const broken = health?.verdict === 'broken';
      return {
        name: p.name,
        id: p.id,
        category: p.category,
        url: p.home,
        enabled: p.enabled && !broken,
        nsfw: p.nsfw,
        tags: [...p.tags],
        transport: p.transport,
        session: p.session,
        ...(p.disabledReason
          ? { disabledReason: p.disabledReason }
          : broken && health?.reason
            ? { disabledReason: health.reason }
            : {}),
        ...(health ? { lastValidatedAt: new Date(health.validatedAt).toISOString() } : {}),
      };
    });

  api.get(
    '/api/platforms',
    {
      schema: {
        tags: ['platforms'],
        summary: 'List the platforms',
        operationId: 'listPlatforms',
        description:
          'Every platform of the catalogue, disabled ones included (see enabled and disabledReason); category filters, and an unknown category is a 400 that lists the valid ones.',
        querystring: PlatformsQuery,
        response: { 200: PlatformsResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { category } = request.query;
      const all = listing();
      const listed = category === undefined ? all : all.filter((p) => p.category === category);
      const health = await readPlatformHealth(
        deps,
        listed.map((p) => p.id),
      );
      const platforms = listed.map((p) => ({ ...p, health: health.get(p.id)! }));
      return { platforms, total: platforms.length };
    },
  );

  api.get(
    '/api/categories',
    {
      schema: {
        tags: ['platforms'],
        summary: 'List the categories',
        operationId: 'listCategories',
        description:
          'The closed list of categories, with the number of enabled platforms in each (GET /api/platforms?category= also lists the disabled ones).',
        response: { 200: CategoriesResponse, ...errorResponses },
      },
    },
    async () => {
      const all = listing();
      const categories = CATEGORIES.map((name) => ({
        name,
        description: CATEGORY_DESCRIPTIONS[name],
        platforms: all.filter((p) => p.category === name && p.enabled).length,
      }));
      return { categories, total: categories.length };
    },
  );
}
