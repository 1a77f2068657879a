import { describe, expect, it } from 'vitest';
import { impitErrorCode, impitTransportError } from './impit-error.js';
import { BLOCKED_DESTINATION_CODE, HANDSHAKE_CLOSED_CODE, transportErrorReason } from './transport-error.js';

/** Texts impit 0.14 gave on this machine for each failure, as its error classes carry them. */
class ConnectError extends Error {
  override name = 'ConnectError';
}
class HTTPError extends Error {
  override name = 'HTTPError';
}
class ConnectTimeout extends Error {
  override name = 'ConnectTimeout';
}
class ProxyTunnelError extends Error {
  override name = 'ProxyTunnelError';
  readonly status = 403;
}
const connectFailure = (inner: string) =>
  new ConnectError(
    `Failed to connect to the server.\nReason: hyper_util::client::legacy::Error(\n    Connect,\n${inner}\n)`,
  );

const CLOSED_AFTER_REQUEST = new HTTPError(
  'The internal HTTP library has thrown an error:\nreqwest::Error {\n    kind: Request,\n    url: "https://localhost:45677/",\n    source: hyper_util::client::legacy::Error(\n        SendRequest,\n        hyper::Error(\n            Io,\n            Custom {\n                kind: UnexpectedEof,\n                error: "peer closed connection without sending TLS close_notify: https://docs.rs/rustls/latest/rustls/manual/_03_howto/index.html#unexpected-eof",\n            },\n        ),\n    ),\n}',
);
const HANDSHAKE_EOF = connectFailure(
  '    Custom {\n        kind: UnexpectedEof,\n        error: "tls handshake eof",\n    },',
);
const RESET = connectFailure(
  '    Custom {\n        kind: Other,\n        error: Os {\n            code: 104,\n            kind: ConnectionReset,\n            message: "Connection reset by peer",\n        },\n    },',
);
const REFUSED = connectFailure(
  '    ConnectError(\n        "tcp connect error",\n        127.0.0.1:1,\n        Os {\n            code: 111,\n            kind: ConnectionRefused,\n            message: "Connection refused",\n        },\n    ),',
);
const BAD_CERTIFICATE = connectFailure(
  '    Custom {\n        kind: InvalidData,\n        error: InvalidCertificate(\n            Other(\n                OtherError(\n                    CaUsedAsEndEntity,\n                ),\n            ),\n        ),\n    },',
);

describe('impit failures as error codes', () => {
  it('reads a connection that broke before an answer as a reset, whatever TLS words its text holds', () => {
    for (const error of [CLOSED_AFTER_REQUEST, RESET]) {
      expect(impitErrorCode(error)).toBe('ECONNRESET');
      expect(transportErrorReason(impitTransportError(error))).toBe('connection');
    }
    // Closed before the handshake was done: a refusal of the handshake, its own code.
    expect(impitErrorCode(HANDSHAKE_EOF)).toBe(HANDSHAKE_CLOSED_CODE);
    expect(transportErrorReason(impitTransportError(HANDSHAKE_EOF))).toBe('connection');
  });

  it('reads a refused certificate as a TLS failure, and a refused connection as one', () => {
    expect(transportErrorReason(impitTransportError(BAD_CERTIFICATE))).toBe('tls');
    expect(impitErrorCode(REFUSED)).toBe('ECONNREFUSED');
  });

  it('reads timeouts and the gateway refusing a destination', () => {
    expect(transportErrorReason(impitTransportError(new ConnectTimeout('connect timed out')))).toBe(
      'timeout',
    );
    const refused = new ProxyTunnelError('Proxy tunnel failed with status code 403');
    expect(impitErrorCode(refused)).toBe(BLOCKED_DESTINATION_CODE);
  });

  it("keeps the whole text on one line for the evidence, and impit's error as the cause", () => {
    const error = impitTransportError(CLOSED_AFTER_REQUEST);
    expect(error.message).toMatch(
      /^impersonate: The internal HTTP library has thrown an error: reqwest::Error \{ kind: Request/,
    );
    expect(error.message).not.toContain('\n');
    expect(error.message.length).toBeLessThanOrEqual(254);
    expect(error.cause).toBe(CLOSED_AFTER_REQUEST);
  });
});
