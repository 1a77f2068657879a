/**
 * The site a platform's checks count against (politeness-bound.ts): one host, one
 * budget, whatever the scheme or port; a host holding the username is one site.
 */
import { describe, expect, it } from 'vitest';
import { politeOrigin } from '../../src/schedule/politeness-bound.js';
import { catalogueOf, entry } from '../support/catalogue.js';

describe('politeOrigin', () => {
  it('counts a platform whose host holds the username as one site, others by their host', () => {
    const [sub, path, plain] = catalogueOf([
      entry('Sub', { home: 'https://sub.test/', profile: 'https://{username}.Sub.test/' }),
      entry('Path', { home: 'https://path.test/', profile: 'https://path.test/{username}' }),
      entry('Plain', { home: 'http://path.test/', profile: 'http://path.test:8080/p/{username}' }),
    ]).platforms;
    expect(politeOrigin(sub!, 'https://alice.sub.test')).toBe('{username}.sub.test');
    expect(politeOrigin(path!, 'https://path.test')).toBe('path.test');
    // One host is one site, whatever the scheme or port: one budget (sites limit a client address).
    expect(politeOrigin(plain!, 'http://path.test:8080')).toBe('path.test');
  });
});
