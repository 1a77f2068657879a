import { describe, expect, it } from 'vitest';
import { catalogueOf, entry } from '../../../test/support/catalogue.js';
import { checkOf } from '../../../test/support/check.js';
import type { Transport } from '../../catalogue/platform.js';
import { EscalationBudget, refusedHandshake } from '../escalation.js';
import type { Transports } from '../transport/transports.js';
import { TransportBook } from '../transport-book.js';
import type { AnsweredDecision } from '../verdict/outcome.js';
import type { Reply, Send, Sending } from './dispatch.js';
import { chooseTransport, escalate } from './transport-choice.js';

const [platform] = catalogueOf([entry('Alpha')]).platforms;

/** Transports of which `lacking` are not installed; every browser slot asked for is free, `held` counts those held. */
function transportsLacking(...lacking: Transport[]): Transports & { held: number } {
  const set = {
    held: 0,
    missing: (t: Exclude<Transport, 'http'>) => (lacking.includes(t) ? `no ${t} here` : undefined),
    exchange: () => Promise.reject(new Error('not sent in these tests')),
    admitBrowser: async () => {
      set.held++;
      return { release: () => set.held-- };
    },
    close: async () => {},
  };
  return set;
}

/** Browser slots that never come free: a wait ends only when its signal aborts. */
function browserSlotsTaken(): Transports & { asked: AbortSignal[] } {
  const asked: AbortSignal[] = [];
  return {
    ...transportsLacking(),
    asked,
    admitBrowser: (signal) => {
      asked.push(signal);
      return new Promise((resolve) =>
        signal.addEventListener('abort', () => resolve({ heldBack: 'not sent: no browser slot came free' }), {
          once: true,
        }),
      );
    },
  };
}

/** Browser slots whose one slot comes free just as the check's search is cancelled. */
function slotAsCancelled(cancel: { cancel?: ((reason: unknown) => void) | undefined }) {
  const set = transportsLacking();
  return Object.assign(set, {
    admitBrowser: async () => {
      cancel.cancel?.(new Error('search cancelled'));
      set.held++;
      return { release: () => set.held-- };
    },
  });
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

/** The alert Node reads when a server refuses its ClientHello, and a reset after the handshake. */
const ALERT = Object.assign(new Error('sslv3 alert handshake failure'), {
  code: 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE',
});
const RESET = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
const CERTIFICATE = Object.assign(new Error('self-signed certificate'), {
  code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
});

/**
 * A site whose transports before `through` fail with `error` (no answer), as the core reads
 * it: a refused handshake carries its defence; `through` and later answer a miss.
 */
function failing(through: Transport, error: Error) {
  const { send: answer, tried } = defended('http');
  const order: Transport[] = ['http', 'impersonate', 'browser'];
  const send: Send = async (check) => {
    if (order.indexOf(check.transport) >= order.indexOf(through)) return answer(check);
    tried.push(check.transport);
    const defence = refusedHandshake(error);
    const reply: Reply = { answered: false, transport: check.transport, error, timedOut: false };
    return defence ? { ...reply, defence } : reply;
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

  it('asks a refused handshake again through the next transport, as a block page, and remembers it', async () => {
    const book = new TransportBook({ ttlMs: 60_000 });
    const { send, tried } = failing('impersonate', ALERT);
    const check = sending(1);
    const reply = await escalate({ transports: transportsLacking(), book })(send)(check);
    expect(tried).toEqual(['http', 'impersonate']);
    expect(reply).toMatchObject({ answered: true, transport: 'impersonate', verdict: { status: 'miss' } });
    expect(book.needed(check.site, check.egress.name)).toBe('impersonate');
  });

  it('leaves a refused handshake standing, named, once escalations are spent or only a lacking browser is left', async () => {
    const budget = new EscalationBudget(1);
    budget.take();
    const spent = await escalate({ transports: transportsLacking() })(failing('impersonate', ALERT).send)({
      ...sending(1),
      escalations: budget,
    });
    expect(spent).toMatchObject({
      answered: false,
      transport: 'http',
      defence: { status: 'unknown', reason: 'waf' },
    });
    expect(!spent.answered && spent.defence?.rule).toMatch(
      /^shield: tls-handshake-refused \(ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE: .*\); not tried through impersonate: this search's escalations \(USERSCOUT_ESCALATIONS\) are spent$/,
    );
    // Refused through impersonate too, and the browser missing: needs_browser, the refusal named.
    const lacking = await escalate({ transports: transportsLacking('browser') })(
      failing('browser', ALERT).send,
    )(sending(3));
    expect(lacking).toMatchObject({
      answered: false,
      transport: 'impersonate',
      defence: { reason: 'needs_browser' },
    });
    expect(!lacking.answered && lacking.defence?.rule).toMatch(
      /^shield: tls-handshake-refused .*; not tried through browser: no browser here$/,
    );
  });

  it('does not escalate a reset or a refused certificate: no defence there, and no transport should skip a check', async () => {
    const book = new TransportBook({ ttlMs: 60_000 });
    for (const error of [RESET, CERTIFICATE]) {
      const { send, tried } = failing('impersonate', error);
      const check = sending(2);
      const reply = await escalate({ transports: transportsLacking(), book })(send)(check);
      expect(tried, error.message).toEqual(['http']);
      expect(reply, error.message).toMatchObject({ answered: false, transport: 'http', error });
      expect(check.escalations?.left).toBe(2);
      expect(book.needed(check.site, check.egress.name)).toBeUndefined();
    }
  });

  it('leaves the defence standing, saying why, when its escalation gets no answer', async () => {
    const { send: answer } = defended('browser');
    const send: Send = async (check) =>
      check.transport === 'http'
        ? answer(check)
        : { answered: false, transport: check.transport, error: CERTIFICATE, timedOut: false };
    const reply = await escalate({ transports: transportsLacking() })(send)(sending(2));
    expect(reply).toMatchObject({
      answered: true,
      transport: 'http',
      verdict: {
        status: 'unknown',
        reason: 'waf',
        rule: 'shield: challenge; tried through impersonate, no answer: tls',
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
    const { outcome } = await chooseTransport({
      transports: transportsLacking('browser'),
      book,
      timeoutMs: 1_000,
    })(async () => {
      sent++;
      throw new Error('not sent');
    })(check);
    expect(sent).toBe(0);
    expect(outcome).toMatchObject({
      status: 'unknown',
      reason: 'needs_browser',
      evidence: { rule: 'not sent: no browser here (its site was found to need browser)' },
    });
    const started: Transport[] = [];
    await chooseTransport({ transports: transportsLacking(), book, timeoutMs: 1_000 })(async (c) => {
      started.push(c.transport);
      return { outcome: outcome };
    })(check);
    expect(started).toEqual(['browser']);
  });
});

describe('a check that starts at the browser', () => {
  const browserPlatform = catalogueOf([entry('Walled', { transport: 'browser' })]).platforms[0]!;
  const answered = { outcome: { status: 'miss' } } as Awaited<
    ReturnType<Parameters<ReturnType<typeof chooseTransport>>[0]>
  >;

  it('holds a browser slot from before its deadline starts until it ends, and says so to the transport', async () => {
    const transports = transportsLacking();
    let heldWhileSent = -1;
    let admitted: boolean | undefined;
    await chooseTransport({ transports, timeoutMs: 1_000 })(async (c) => {
      heldWhileSent = transports.held;
      admitted = c.admitted;
      return answered;
    })(checkOf(browserPlatform));
    expect(heldWhileSent).toBe(1);
    expect(admitted).toBe(true);
    expect(transports.held).toBe(0);
  });

  it('is not sent, unknown and budget_exhausted, when no slot comes within the wait', async () => {
    const transports = browserSlotsTaken();
    let sent = 0;
    const { outcome } = await chooseTransport({ transports, timeoutMs: 50 })(async () => {
      sent++;
      return answered;
    })(checkOf(browserPlatform));
    expect(sent).toBe(0);
    expect(outcome).toMatchObject({ status: 'unknown', reason: 'budget_exhausted' });
    expect(outcome.evidence.rule).toMatch(/^not sent: no browser slot/);
  });

  it('ends its wait when its search is cancelled, sending nothing', async () => {
    const transports = browserSlotsTaken();
    const cancel: { cancel?: ((reason: unknown) => void) | undefined } = {};
    const waiting = chooseTransport({ transports, timeoutMs: 60_000 })(async () => answered)(
      checkOf(browserPlatform, 'alice', { cancel }),
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    cancel.cancel?.(new Error('search cancelled'));
    await expect(waiting).rejects.toThrow('search cancelled');
    expect(cancel.cancel).toBeUndefined();
  });

  it('gives back a slot that came as its search was cancelled', async () => {
    const cancel: { cancel?: ((reason: unknown) => void) | undefined } = {};
    const transports = slotAsCancelled(cancel);
    let sent = 0;
    const checking = chooseTransport({ transports, timeoutMs: 1_000 })(async () => {
      sent++;
      return answered;
    })(checkOf(browserPlatform, 'alice', { cancel }));
    await expect(checking).rejects.toThrow('search cancelled');
    expect(sent).toBe(0);
    expect(transports.held).toBe(0);
  });

  it('takes no slot for a check that starts at another transport', async () => {
    const transports = browserSlotsTaken();
    let admitted: boolean | undefined;
    await chooseTransport({ transports, timeoutMs: 1_000 })(async (c) => {
      admitted = c.admitted;
      return answered;
    })(checkOf(platform!));
    expect(transports.asked).toHaveLength(0);
    expect(admitted).toBe(false);
  });
});
