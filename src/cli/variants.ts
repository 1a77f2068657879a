/**
 * `userscout variants NAME`: the lookalike names a search with `--variants`
 * (or `variants: true` on the API) would check, one a line (ready for
 * `xargs userscout search`), or as JSON with the kind of each.
 */
import { checkUsername } from '../catalogue/check-username.js';
import { lookalikeNames } from '../catalogue/lookalike-names.js';
import { loadConfig, SETTINGS } from '../config.js';
import { UserscoutError } from '../errors.js';
import type { Io } from './io.js';

export const VARIANTS_FORMATS = ['text', 'json'] as const;

export interface VariantsCommandOptions {
  max?: string;
  format?: string;
}

/** The cap: the setting's, unless --max asks for another within the setting's own range. */
function variantsCap(max: string | undefined, env: Readonly<Record<string, string | undefined>>): number {
  if (max !== undefined) {
    const kind = SETTINGS.maxVariantsPerRequest.kind;
    const [min, highest] = kind.type === 'int' ? [kind.min, kind.max] : [0, 0];
    if (!/^\d+$/.test(max) || Number(max) < min || Number(max) > highest)
      throw new UserscoutError(
        'invalid_argument',
        `--max must be a whole number from ${min} to ${highest}; received ${max}`,
      );
    return Number(max);
  }
  return loadConfig({}, env, 'cli').maxVariantsPerRequest;
}

export function runVariants(
  name: string,
  options: VariantsCommandOptions,
  io: Pick<Io, 'out'>,
  env: Readonly<Record<string, string | undefined>> = process.env,
): void {
  checkUsername(name, true);
  const format = options.format ?? 'text';
  if (!(VARIANTS_FORMATS as readonly string[]).includes(format))
    throw new UserscoutError(
      'invalid_argument',
      `--format must be one of ${VARIANTS_FORMATS.join(', ')}; received ${format}`,
    );
  const variants = lookalikeNames(name, variantsCap(options.max, env));
  if (format === 'json') io.out(JSON.stringify(variants, null, 2));
  else if (variants.length > 0) io.out(variants.map((v) => v.username).join('\n'));
}
