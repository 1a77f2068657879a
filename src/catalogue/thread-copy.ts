/**
 * A catalogue as a search thread receives it: a structured clone, which keeps
 * of each regex only its source and flags (a compiled `LinearRegex` is not
 * plain data), and nothing frozen. Compiled again and frozen as the loader
 * leaves a catalogue.
 */
import { freezeCatalogue } from './freeze.js';
import { reviveLinearRegex } from './linear-regex.js';
import type { BasicSignal, Catalogue, ExtractRule, ExtractRules, Platform, Signal } from './platform.js';

export function catalogueFromClone(clone: Catalogue): Catalogue {
  return freezeCatalogue({ platforms: clone.platforms.map(revivePlatform), shields: clone.shields });
}

function revivePlatform(platform: Platform): Platform {
  return {
    ...platform,
    detect: {
      exists: platform.detect.exists.map(reviveSignal),
      missing: platform.detect.missing.map(reviveSignal),
    },
    extract: platform.extract && reviveExtract(platform.extract),
  };
}

function reviveSignal(signal: Signal): Signal {
  if (signal.kind !== 'all') return reviveBasic(signal);
  return {
    kind: 'all',
    parts: signal.parts.map((part) =>
      part.kind === 'not' ? { kind: 'not', signal: reviveBasic(part.signal) } : reviveBasic(part),
    ),
  };
}

function reviveBasic(signal: BasicSignal): BasicSignal {
  return signal.kind === 'regex' ? { kind: 'regex', re: reviveLinearRegex(signal.re) } : signal;
}

function reviveRule(rule: ExtractRule): ExtractRule {
  return rule.kind === 'regex' ? { kind: 'regex', re: reviveLinearRegex(rule.re) } : rule;
}

function reviveExtract(extract: ExtractRules): ExtractRules {
  const revive = <K extends string>(rules: Readonly<Partial<Record<K, ExtractRule>>>) =>
    Object.fromEntries(
      Object.entries<ExtractRule | undefined>(rules).flatMap(([k, rule]) =>
        rule ? [[k, reviveRule(rule)]] : [],
      ),
    ) as Partial<Record<K, ExtractRule>>;
  return { fields: revive(extract.fields), ids: revive(extract.ids) as Record<string, ExtractRule> };
}
