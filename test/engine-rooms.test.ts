/**
 * Imports run one way between the engine's rooms (docs/decisions/0020): each source's
 * relative imports are read, and an import into a room its own may not reach fails
 * here, with its file and what it imports.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;

type Room = 'verdict' | 'transport' | 'controls' | 'composition' | 'schedule';

/** The room a file under src/ is in; undefined: none of these (the catalogue, the store, ...). */
function roomOf(path: string): Room | undefined {
  const file = relative(join(root, 'src'), path);
  if (file.startsWith('engine/verdict/')) return 'verdict';
  if (file.startsWith('engine/transport/')) return 'transport';
  if (file.startsWith('engine/controls/')) return 'controls';
  if (file.startsWith('engine/')) return 'composition';
  if (file.startsWith('schedule/')) return 'schedule';
  return undefined;
}

/** The other rooms each room may import, and why. */
const ALLOWED: Record<Room, { readonly imports: readonly Room[]; readonly why: string }> = {
  verdict: { imports: [], why: 'pure: builds requests and reads answers from the catalogue alone' },
  transport: {
    imports: ['verdict'],
    why: 'the only outbound IO: sends what verdict builds, gives it the answer',
  },
  controls: {
    imports: ['verdict'],
    why: 'control checks and their records, each answer read as verdict reads any',
  },
  // 0020 names schedule only as what the engine imports: nothing of the engine comes back.
  schedule: {
    imports: [],
    why: 'admission and send times: the engine asks it, and it knows nothing of the engine',
  },
  composition: {
    imports: ['verdict', 'transport', 'controls', 'schedule'],
    why: 'the pipeline and the engine, where the rooms are put together',
  },
};

/** Relative module specifiers a source imports or re-exports, statically or dynamically. */
function importsOf(text: string): string[] {
  const found: string[] = [];
  const statements =
    /^\s*(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]/gm;
  for (const m of text.matchAll(statements)) found.push((m[1] ?? m[2])!);
  for (const m of text.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(m[1]!);
  return found.filter((specifier) => specifier.startsWith('.'));
}

/** `from → to (file: specifier)` for each import that crosses rooms against ALLOWED, with the rule. */
function forbidden(files: readonly { path: string; text: string }[]): string[] {
  const found: string[] = [];
  for (const { path, text } of files) {
    const from = roomOf(path);
    if (!from) continue;
    for (const specifier of importsOf(text)) {
      const to = roomOf(resolve(dirname(path), specifier));
      if (to && to !== from && !ALLOWED[from].imports.includes(to))
        found.push(
          `${from} → ${to} (${relative(root, path)}: ${specifier}); ${from} is ${ALLOWED[from].why}`,
        );
    }
  }
  return found;
}

/** The sources that ship; a test beside a module may use another room's helpers to build its inputs. */
function sources(): { path: string; text: string }[] {
  return readdirSync(join(root, 'src'), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => join(e.parentPath, e.name))
    .map((path) => ({ path, text: readFileSync(path, 'utf8') }));
}

describe("the engine's rooms", () => {
  it('read static, multi-line, type-only, re-exported and dynamic imports', () => {
    const text = [
      "import { a } from './a.js';",
      'import {',
      '  type B,',
      '  c,',
      "} from '../b.js';",
      "import type { D } from 'undici';",
      "export { e } from './e.js';",
      "import './f.js';",
      "const g = await import('../g.js');",
      "// a comment that says from './h.js' is not an import",
    ].join('\n');
    expect(importsOf(text)).toEqual(['./a.js', '../b.js', './e.js', './f.js', '../g.js']);
  });

  it('find an import against the table', () => {
    const at = (file: string) => join(root, 'src', file);
    expect(
      forbidden([
        { path: at('engine/transport/x.ts'), text: "import { y } from '../../schedule/rate-budget.js';" },
        { path: at('engine/transport/z.ts'), text: "import type { Check } from '../pipeline/dispatch.js';" },
        { path: at('engine/verdict/v.ts'), text: "import { w } from '../transport/http.js';" },
        { path: at('schedule/s.ts'), text: "import { e } from '../engine/engine.js';" },
        { path: at('engine/pipeline/p.ts'), text: "import { t } from '../transport/http.js';" },
        { path: at('engine/transport/u.ts'), text: "import { r } from '../verdict/request.js';" },
      ]).map((line) => line.split(';')[0]),
    ).toEqual([
      'transport → schedule (src/engine/transport/x.ts: ../../schedule/rate-budget.js)',
      'transport → composition (src/engine/transport/z.ts: ../pipeline/dispatch.js)',
      'verdict → transport (src/engine/verdict/v.ts: ../transport/http.js)',
      'schedule → composition (src/schedule/s.ts: ../engine/engine.js)',
    ]);
  });

  it('import one way in src/', () => {
    const all = sources();
    expect(all.filter((f) => roomOf(f.path) === 'transport').length).toBeGreaterThan(10);
    expect(forbidden(all)).toEqual([]);
  });
});
