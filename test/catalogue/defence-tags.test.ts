/**
 * The defence tags of WhatsMyName and Maigret: what each says, and, when the lists
 * are on this machine (../shared/reference), that every platform of ours on a host
 * they tag with a handshake check or a challenge names a transport past it.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadBuiltinCatalogue } from '../../src/catalogue/builtin.js';
import { hostKey } from '../../src/catalogue/counterparts.js';
import {
  browserCannotRead,
  type DefenceKind,
  defenceKind,
  protectionTags,
  type TaggingSource,
  transportCalledFor,
  transportForTags,
} from '../../src/catalogue/defence-tags.js';
import { referenceEntries } from '../../src/catalogue/reference-lists.js';
import { referenceDir, referenceFile } from '../support/reference.js';

const FILES: Readonly<Record<TaggingSource, string>> = {
  whatsmyname: 'whatsmyname/wmn-data.json',
  maigret: 'maigret/data.json',
};

/** Ours on a tagged host that stay on http, and why. */
const STAY_ON_HTTP: Readonly<Record<string, string>> = {
  'Arch Linux GitLab':
    'Anubis challenges clients that present themselves as browsers; the check is the GitLab API, read as JSON',
  'GNOME GitLab':
    'Anubis challenges clients that present themselves as browsers; the check is the GitLab API, read as JSON',
};

describe('defence tags', () => {
  it('tell a handshake check from a challenge, and name no transport for the others', () => {
    expect(defenceKind('maigret', 'tls_fingerprint')).toBe('handshake');
    expect(defenceKind('whatsmyname', 'ddos-guard')).toBe('challenge');
    expect(defenceKind('maigret', 'ip_reputation')).toBe('none');
    expect(defenceKind('maigret', 'constructor')).toBeUndefined();
    expect(defenceKind('whatsmyname', 'unheard-of')).toBeUndefined();
  });

  it('call for the costliest transport any of them needs', () => {
    expect(transportCalledFor([])).toBe('http');
    expect(transportCalledFor(['none', undefined])).toBe('http');
    expect(transportCalledFor(['none', 'handshake'])).toBe('impersonate');
    expect(transportCalledFor(['handshake', 'challenge', 'none'])).toBe('browser');
  });

  it("send a challenge's check by browser only when a browser can read what it reads", () => {
    const page = { detect: { exists: [{ status: [200] }], missing: [{ status: [404] }] } };
    expect(browserCannotRead(page)).toBeUndefined();
    expect(browserCannotRead({ ...page, check: { method: 'POST' } })).toMatch(/is a POST/);
    expect(browserCannotRead({ detect: { exists: [{ json: 'data.id' }], missing: [] } })).toMatch(/JSON/);
    const redirect = {
      detect: {
        exists: [{ status: [200] }],
        missing: [{ all: [{ status: [302] }, { not: { text: 'x' } }] }],
      },
    };
    expect(browserCannotRead(redirect)).toMatch(/reads a redirect/);
    // Followed, a redirect is what the browser does too: its final URL is read.
    expect(browserCannotRead({ ...redirect, check: { redirects: 'follow' } })).toBeUndefined();
    expect(transportForTags('maigret', ['cf_js_challenge'], page)).toMatchObject({ transport: 'browser' });
    expect(transportForTags('maigret', ['cf_js_challenge'], redirect)).toMatchObject({
      transport: 'impersonate',
    });
    expect(transportForTags('whatsmyname', ['cloudflare', 'captcha'], page)).toEqual({
      transport: 'impersonate',
      note: "Goes by impersonate: WhatsMyName tags it cloudflare, a shield that refuses a handshake that is not a browser's.",
    });
    expect(transportForTags('maigret', ['login', 'unheard-of'], page)).toEqual({ transport: 'http' });
  });

  it('are read by entry name from either list, other fields and shapes ignored', () => {
    const wmn = { sites: [{ name: ' Site ', protection: ['cloudflare'] }, { name: 'Bare' }, null] };
    expect([...protectionTags('whatsmyname', wmn)]).toEqual([['Site', ['cloudflare']]]);
    const maigret = { sites: { One: { protection: ['tls_fingerprint', 7] }, Two: { tags: ['x'] } } };
    expect([...protectionTags('maigret', maigret)]).toEqual([['One', ['tls_fingerprint']]]);
    expect(protectionTags('maigret', { sites: [] }).size).toBe(0);
    expect(protectionTags('whatsmyname', null).size).toBe(0);
  });
});

describe.skipIf(!referenceDir())('the catalogue against the reference lists', () => {
  /** Every tag each list uses, and the kinds of defence tagged on each host. */
  const used = new Map<TaggingSource, Set<string>>();
  const kindsByHost = new Map<string, Set<DefenceKind>>();
  // Read in beforeAll: a skipped describe's body still runs when its tests are collected.
  beforeAll(() => {
    for (const source of Object.keys(FILES) as TaggingSource[]) {
      const doc: unknown = JSON.parse(readFileSync(referenceFile(FILES[source])!, 'utf8'));
      const tags = protectionTags(source, doc);
      used.set(source, new Set([...tags.values()].flat()));
      for (const { platform } of referenceEntries(source, doc)) {
        const kinds = (tags.get(platform.name) ?? []).map((t) => defenceKind(source, t));
        const host = hostKey(platform);
        const seen = kindsByHost.get(host) ?? new Set<DefenceKind>();
        for (const kind of kinds) if (kind !== undefined) seen.add(kind);
        kindsByHost.set(host, seen);
      }
    }
  });

  it('say what every tag they use means', () => {
    for (const [source, tags] of used)
      expect(
        [...tags].filter((t) => defenceKind(source, t) === undefined),
        source,
      ).toEqual([]);
    expect(used.get('whatsmyname')!.size).toBeGreaterThan(0);
    expect(used.get('maigret')!.size).toBeGreaterThan(0);
  });

  it('every platform of ours on a host tagged with a handshake check or a challenge names a transport past it', () => {
    const { catalogue } = loadBuiltinCatalogue();
    const tagged = catalogue.platforms.filter(
      (p) => transportCalledFor(kindsByHost.get(hostKey(p)) ?? []) !== 'http',
    );
    expect(tagged.length).toBeGreaterThan(100);
    const left = tagged.filter((p) => p.transport === 'http' && !(p.name in STAY_ON_HTTP)).map((p) => p.name);
    expect(left).toEqual([]);
    // A listed reason stays true: the platform is still tagged and still on http.
    for (const name of Object.keys(STAY_ON_HTTP)) {
      const platform = tagged.find((p) => p.name === name);
      expect(platform?.transport, name).toBe('http');
    }
    // Browser only where a challenge is tagged: a handshake check alone is passed by impersonate.
    const needless = tagged
      .filter((p) => p.transport === 'browser' && !kindsByHost.get(hostKey(p))?.has('challenge'))
      .map((p) => p.name);
    expect(needless).toEqual([]);
  });
});
