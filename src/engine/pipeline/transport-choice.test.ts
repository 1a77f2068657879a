import { describe, expect, it } from 'vitest';
import { catalogueOf, entry } from '../../../test/support/catalogue.js';
import { checkOf } from '../../../test/support/check.js';
import type { Transport } from '../../catalogue/platform.js';
import { EscalationBudget } from '../escalation.js';
import type { Transports } from '../transport/transports.js';
import { TransportBook } from '../transport-book.js';
import type { AnsweredDecision } from '../verdict/outcome.js';
import type { Reply, Send, Sending } from './dispatch.js';
import { chooseTransport, escalate } from './transport-choice.js';

const [platform] = catalogueOf([entry('Alpha')]).platforms;

/** Transports of which `lacking` are not installed. */
function transportsLacking(...lacking: Transport[]): Transports {
  return {
    missing: (t) => (lacking.includes(t) ? `no ${t} here` : undefined),
    exchange: () => Promise.reject(new Error('not sent in these tests')),
    close: async () => {},
  };
}

/** A site whose defence stops the transports before `through`; `tried` records each request's transport. */
function defended(through: Transport) {
  const tried: Transport[] = [];
  const order: Transport[] = ['http', 'impersonate', 'browser'];
  const send: Send = async (check) => {
    tried.push(check.transport);
    const verdict: AnsweredDecision =
      order.indexOf(check.transport) < order.indexOf(through)
        ? { status: 'unknown', reason: 'waf', rule: 'shield: challenge' }
        : { status: 'miss', rule: 'missing: status 404' };
    const view = {
      status: 200,
      headers: {},
      url: check.profileUrl,
      redirected: false,
      body: '',
      complete: true,
    };
    const reply: Reply = {
      answered: true,
      transport: check.transport,
      exchange: { view, bytesRead: 0 },
      verdict,
      signals: undefined,
    };
    return reply;
  };
  return { send, tried };
}

function sending(escalations: number): Sending {
  const check = checkOf(platform!, 'alice', { escalations: new EscalationBudget(escalations) });
  return { ...check, deadline: { started: 0, at: 1_000, signal: new AbortController().signal } };
}

describe('escalation', () => {
  it('asks a bot defence again through the next transport, and remembers it for the site', async () => {
    const book = new TransportBook({ ttlMs: 60_000 });
    const { send, tried } = defended('impersonate');
    const check = sending(1);
    const reply = await escalate({ transports: transportsLacking(), book })(send)(check);
    expect(tried).toEqual(['http', 'impersonate']);
    expect(reply).toMatchObject({ answered: true, transport: 'impersonate', verdict: { status: 'miss' } });
    expect(book.needed(check.site, check.egress.name)).toBe('impersonate');
  });

  it("leaves the defence standing, saying why, once the search's escalations are spent", async () => {
    const { send, tried } = defended('impersonate');
    const reply = await escalate({ transports: transportsLacking() })(send)(sending(1));
    expect(reply.answered && reply.verdict.status).toBe('miss');
    const spent = await escalate({ transports: transportsLacking() })(send)({
      ...sending(1),
      escalations: new EscalationBudget(0),
    });
    expect(tried).toEqual(['http', 'impersonate', 'http']);
    // A search given no escalations is not told they are spent.
    expect(spent).toMatchObject({ verdict: { reason: 'waf', rule: 'shield: challenge' } });
    const budget = new EscalationBudget(1);
    budget.take();
    const later = await escalate({ transports: transportsLacking() })(send)({
      ...sending(1),
      escalations: budget,
    });
    expect(later).toMatchObject({
      verdict: {
        reason: 'waf',
        rule: "shield: challenge; not tried through impersonate: this search's escalations (USERSCOUT_ESCALATIONS) are spent",
      },
    });
  });

  it('reads needs_browser when only a browser this process lacks could get past the defence', async () => {
    const { send } = defended('browser');
    const reply = await escalate({ transports: transportsLacking('browser') })(send)(sending(3));
    expect(reply).toMatchObject({
      transport: 'impersonate',
      verdict: {
        reason: 'needs_browser',
        rule: 'shield: challenge; not tried through browser: no browser here',
      },
    });
  });
});

describe('the transport a check starts at', () => {
  it('is the one its site was found to need, and a check whose start is missing is not sent', async () => {
    const book = new TransportBook({ ttlMs: 60_000 });
    const check = checkOf(platform!);
    book.learned(check.site, check.egress.name, 'browser');
    let sent = 0;
    const { outcome } = await chooseTransport({ transports: transportsLacking('browser'), book })(
      async () => {
        sent++;
        throw new Error('not sent');
      },
    )(check);
    expect(sent).toBe(0);
    expect(outcome).toMatchObject({
      status: 'unknown',
      reason: 'needs_browser',
      evidence: { rule: 'not sent: no browser here (its site was found to need browser)' },
    });
    const started: Transport[] = [];
    await chooseTransport({ transports: transportsLacking(), book })(async (c) => {
      started.push(c.transport);
      return { outcome: outcome };
    })(check);
    expect(started).toEqual(['browser']);
  });
});
