/**
 * A search's PDF report and graph files through the service, on the simulated
 * web of the recursive-search tests: Alpha's profile of alice links to Bravo's
 * profile of bob and Charlie's of rabbit, who are followed up; Bravo's profile
 * of bob links on to Charlie's of carol.
 * Drives the API by inject (test/support/in-memory-api.ts): no socket of the test's own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/cli/keys.js';
import { followUpsCatalogue as catalogue, followUpsSim } from '../support/follow-ups-fixture.js';
import { send } from '../support/in-memory-api.js';
import { readPdf } from '../support/pdf-text.js';
import { csvObjects, readGraphMl } from '../support/read-graph.js';
import { injectService, json, pollUntilDone, postSearch, type RunningService } from '../support/service.js';
import { CHROMIUM } from '../web/support.js';

describe('report and graph files of a search', () => {
  const sim = followUpsSim();
  let running: RunningService;
  let noChromium: RunningService;
  let id: string;

  beforeAll(async () => {
    await sim.start();
    running = await injectService(sim, catalogue, { freeLimit: 10, browserPath: CHROMIUM });
    noChromium = await injectService(sim, catalogue, { browserPath: '/nonexistent/chromium' });
    const started = await postSearch(running.url, { username: 'alice', recursive: true });
    id = started.body.queryId;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const done = await pollUntilDone(running.url, id);
      if (!done.body.followUpsPending) {
        for (const f of done.body.followUps) await pollUntilDone(running.url, f.queryId);
        break;
      }
      if (Date.now() > deadline) throw new Error('follow-ups still pending after 30 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, 60_000);
  afterAll(async () => {
    await running?.service.close();
    await noChromium?.service.close();
    await sim.stop();
  });

  it('prints the report as a PDF whose pages name the hits and the follow-ups', async () => {
    const response = await send(`${running.url}/api/search/${id}/report.pdf`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-disposition')).toBe('inline; filename="userscout-alice.pdf"');
    const { pages, text } = readPdf(new Uint8Array(await response.arrayBuffer()));
    expect(pages).toBeGreaterThanOrEqual(1);
    expect(text).toContain('userscout report: alice');
    expect(text).toMatch(/Hits \(1\)/);
    expect(text).toContain('https://alpha.test/');
    expect(text).toMatch(/Follow-up searches \(2\)/);
    expect(text).toContain('rabbit');
  }, 60_000);

  it('answers 503 pdf_unavailable, saying how to install it, where Chromium is missing', async () => {
    const started = await postSearch(noChromium.url, { username: 'alice' });
    await pollUntilDone(noChromium.url, started.body.queryId);
    const r = await json(`${noChromium.url}/api/search/${started.body.queryId}/report.pdf`);
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({
      code: 'pdf_unavailable',
      error: expect.stringContaining('apt-get install chromium'),
    });
    // The HTML report does not need it.
    expect((await send(`${noChromium.url}/api/search/${started.body.queryId}/report.html`)).status).toBe(200);
  });

  it('gives the graph as GraphML: the name, its accounts, their links and the follow-ups with their hits', async () => {
    const response = await send(`${running.url}/api/search/${id}/graph.graphml`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/graphml+xml; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe(
      'attachment; filename="userscout-alice-graph.graphml"',
    );
    const graph = readGraphMl(await response.text());
    const kinds = Object.fromEntries(graph.nodes.map((n) => [n.id, n.data.kind]));
    expect(kinds).toMatchObject({
      'name:alice': 'username',
      'account:alpha:alice': 'account',
      'account:bravo:bob': 'account',
      'account:charlie:rabbit': 'account',
      'name:bob': 'username',
      'name:rabbit': 'username',
      // Bob's profile links on to carol, whom nobody searched.
      'account:charlie:carol': 'account',
    });
    const node = (nodeId: string) => graph.nodes.find((n) => n.id === nodeId)!.data;
    expect(node('account:alpha:alice')).toMatchObject({
      platform: 'Alpha',
      status: 'hit',
      fullName: 'Alice',
    });
    expect(node('account:charlie:carol')).toMatchObject({ platform: 'Charlie', status: 'not_checked' });
    // Found by bob's follow-up search: a hit.
    expect(node('account:bravo:bob').status).toBe('hit');
    const edges = graph.edges.map((e) => `${e.source} ${e.data.label} ${e.target}`);
    expect(edges).toEqual(
      expect.arrayContaining([
        'name:alice has_account account:alpha:alice',
        'account:alpha:alice links_to account:bravo:bob',
        'account:alpha:alice links_to account:charlie:rabbit',
        'name:alice followed_up name:bob',
        'name:alice followed_up name:rabbit',
        'name:bob has_account account:bravo:bob',
        'account:bravo:bob links_to account:charlie:carol',
        'name:rabbit has_account account:charlie:rabbit',
      ]),
    );
    expect(graph.edges.find((e) => e.target === 'name:bob')!.data.via).toBe('alpha');
  });

  it('gives the same graph as node and edge CSV files', async () => {
    const [nodesFile, edgesFile, graphml] = await Promise.all(
      ['graph-nodes.csv', 'graph-edges.csv', 'graph.graphml'].map((f) =>
        send(`${running.url}/api/search/${id}/${f}`),
      ),
    );
    expect(nodesFile!.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    const nodes = csvObjects(await nodesFile!.text());
    const edges = csvObjects(await edgesFile!.text());
    const graph = readGraphMl(await graphml!.text());
    expect(nodes.map((n) => n.id)).toEqual(graph.nodes.map((n) => n.id));
    expect(edges.map((e) => `${e.source} ${e.relationship} ${e.target}`)).toEqual(
      graph.edges.map((e) => `${e.source} ${e.data.label} ${e.target}`),
    );
  });

  it("keeps a private search's files to its key, as GET /api/search does", async () => {
    const owner = await createKey(running.service.store, 'owner', 'professional');
    const started = await postSearch(
      running.url,
      { username: 'bob', private: true },
      { 'x-api-key': owner.key },
    );
    const privateId = started.body.queryId as string;
    await pollUntilDone(running.url, privateId, '', 100, 30_000, { 'x-api-key': owner.key });
    for (const file of ['graph.graphml', 'graph-nodes.csv', 'graph-edges.csv', 'report.pdf']) {
      const stranger = await json(`${running.url}/api/search/${privateId}/${file}`);
      expect([file, stranger.status, stranger.body.code]).toEqual([file, 404, 'search_not_found']);
    }
    const own = await send(`${running.url}/api/search/${privateId}/graph.graphml`, {
      headers: { 'x-api-key': owner.key },
    });
    expect(own.status).toBe(200);
    expect(readGraphMl(await own.text()).nodes.map((n) => n.id)).toContain('account:bravo:bob');
  });

  it('answers 404 for a search it does not know, as GET /api/search does', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const file of ['report.pdf', 'graph.graphml', 'graph-nodes.csv', 'graph-edges.csv']) {
      const r = await json(`${running.url}/api/search/${unknown}/${file}`);
      expect([file, r.status, r.body.code]).toEqual([file, 404, 'search_not_found']);
    }
  });
});
