/**
 * `npm run schema`: writes docs/catalogue.schema.json from the TypeBox schema.
 */
import { writeFileSync } from 'node:fs';
import { CATALOGUE_SCHEMA_FILE, renderCatalogueJsonSchema } from './json-schema.js';

writeFileSync(CATALOGUE_SCHEMA_FILE, renderCatalogueJsonSchema());
process.stdout.write(`wrote ${CATALOGUE_SCHEMA_FILE}\n`);
