import { describe, expect, it } from 'vitest';
import { LinearRegex } from '../../catalogue/linear-regex.js';
import { SNIPPET_CONTEXT, signalSnippet, snippetAt } from './evidence-snippet.js';

describe('evidence snippets', () => {
  const before = 'x'.repeat(100);
  const after = 'y'.repeat(100);
  const body = `${before}<h1>Profile of alice</h1>${after}`;

  it('shows a text marker in brackets with 60 characters on each side, cut with ellipses', () => {
    const snippet = signalSnippet({ kind: 'text', text: 'Profile of alice' }, body)!;
    expect(snippet).toBe(`…${'x'.repeat(56)}<h1>[Profile of alice]</h1>${'y'.repeat(55)}…`);
    expect(SNIPPET_CONTEXT).toBe(60);
  });

  it('shows what a regex matched', () => {
    expect(
      signalSnippet({ kind: 'regex', re: new LinearRegex('Profile of \\w+') }, 'a <b>Profile of bob</b> c'),
    ).toBe('a <b>[Profile of bob]</b> c');
  });

  it('shows the name a signal naming the account found, and nothing without the name checked', () => {
    const named = { kind: 'name', text: '/u/{username}"', parts: ['/u/', '"'] } as const;
    expect(signalSnippet(named, 'see <a href="/u/bob">', 'bob')).toBe('see <a href="[/u/bob"]>');
    expect(signalSnippet(named, 'see <a href="/u/bob">', 'alice')).toBeUndefined();
    expect(signalSnippet(named, 'see <a href="/u/{username}">')).toBeUndefined();
  });

  it('gives nothing for a marker not in the body, or a signal that is not text', () => {
    expect(signalSnippet({ kind: 'text', text: 'absent' }, body)).toBeUndefined();
    expect(signalSnippet({ kind: 'status', codes: [200] }, body)).toBeUndefined();
  });

  it('keeps to one line and never cuts a surrogate pair in half', () => {
    const text = `${'😀'.repeat(40)}\n\tmarker\r\n${'😀'.repeat(40)}`;
    const snippet = snippetAt(text, text.indexOf('marker'), 6);
    expect(snippet).not.toMatch(/[\n\t\r]/);
    expect(snippet).toContain(' [marker] ');
    expect([...snippet].every((ch) => ch.length === 2 || /[^\ud800-\udfff]/.test(ch))).toBe(true);
  });

  it('shortens a very long match in its middle', () => {
    const long = 'a'.repeat(1000);
    const snippet = snippetAt(long, 0, 1000);
    expect(snippet.length).toBeLessThan(260);
    expect(snippet).toContain('…');
  });
});
