import { describe, expect, it } from 'vitest';
import { impitTransportError } from './impit-error.js';
import { handshakeRefused, transportErrorReason } from './transport-error.js';

/** An error as Node or undici throws it: `code` on it, or on its cause when wrapped. */
const nodeError = (code: string, message: string, wrapped = false) => {
  const error = Object.assign(new Error(message), { code });
  return wrapped ? new Error('fetch failed', { cause: error }) : error;
};

/** What Node 20 gave on this machine for each failure of a TLS connection. */
const ALERT = nodeError(
  'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE',
  '80CCE955477F0000:error:0A000410:SSL routines:ssl3_read_bytes:sslv3 alert handshake failure:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:1601:SSL alert number 40\n',
);
/** The same alert as Node 24 names it (OpenSSL 3.5 reworded the reason). */
const ALERT_NODE_24 = nodeError(
  'ERR_SSL_SSL/TLS_ALERT_HANDSHAKE_FAILURE',
  '403D4A2F207F0000:error:0A000410:SSL routines:ssl3_read_bytes:ssl/tls alert handshake failure:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:918:SSL alert number 40\n',
);
/** The same alert come while a write was under way: Node gives it code EPROTO, OpenSSL's words kept. */
const ALERT_UNDER_WRITE = nodeError(
  'EPROTO',
  'write EPROTO 40B7F8A1127F0000:error:0A000410:SSL routines:ssl3_read_bytes:sslv3 alert handshake failure:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:1605:SSL alert number 40\n',
);
const EPROTO = nodeError(
  'EPROTO',
  'write EPROTO 40B7F8A1127F0000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number',
);
const CLOSED_IN_HANDSHAKE = nodeError(
  'ECONNRESET',
  'Client network socket disconnected before secure TLS connection was established',
);
const RESET = nodeError('ECONNRESET', 'read ECONNRESET');
const CLOSED_UNDER_REQUEST = nodeError('UND_ERR_SOCKET', 'other side closed', true);
const REFUSED = nodeError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:443');
const DNS = nodeError('ENOTFOUND', 'getaddrinfo ENOTFOUND nowhere.test');
const TIMEOUT = nodeError('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error');
const CERTIFICATES = [
  nodeError('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"),
  nodeError('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'),
  nodeError('CERT_HAS_EXPIRED', 'certificate has expired'),
  nodeError('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate', true),
];

/** impit's texts for the same failures (impit-error.ts reads them as codes). */
const impit = (inner: string) =>
  impitTransportError(
    Object.assign(
      new Error(
        `Failed to connect to the server.\nReason: hyper_util::client::legacy::Error(\n    Connect,\n${inner}\n)`,
      ),
      { name: 'ConnectError' },
    ),
  );
const IMPIT_ALERT = impit(
  '    Custom {\n        kind: Other,\n        error: Custom {\n            kind: InvalidData,\n            error: AlertReceived(\n                HandshakeFailure,\n            ),\n        },\n    },',
);
const IMPIT_HANDSHAKE_EOF = impit(
  '    Custom {\n        kind: Other,\n        error: Custom {\n            kind: UnexpectedEof,\n            error: "tls handshake eof",\n        },\n    },',
);
const IMPIT_RESET = impit(
  '    Custom {\n        kind: Other,\n        error: Os {\n            code: 104,\n            kind: ConnectionReset,\n            message: "Connection reset by peer",\n        },\n    },',
);
const IMPIT_CERTIFICATE = impit(
  '    Custom {\n        kind: InvalidData,\n        error: InvalidCertificate(\n            UnknownIssuer,\n        ),\n    },',
);

describe('a TLS handshake the server refused', () => {
  it('is an alert the server sent, or the connection it closed before the handshake was done', () => {
    for (const error of [
      ALERT,
      nodeError('ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE', ALERT.message, true),
      ALERT_NODE_24,
      nodeError('ERR_SSL_SSL/TLS_ALERT_HANDSHAKE_FAILURE', ALERT_NODE_24.message, true),
      ALERT_UNDER_WRITE,
      nodeError('EPROTO', ALERT_UNDER_WRITE.message, true),
      CLOSED_IN_HANDSHAKE,
    ])
      expect(handshakeRefused(error), String(error)).toBe(true);
    for (const error of [IMPIT_ALERT, IMPIT_HANDSHAKE_EOF])
      expect(handshakeRefused(error), error.message).toBe(true);
  });

  it('is not a certificate we refused, nor a timeout, a DNS failure, a refused or reset connection', () => {
    for (const error of [
      ...CERTIFICATES,
      // A protocol error with no alert from the server (a plain-text answer on a TLS port).
      EPROTO,
      IMPIT_CERTIFICATE,
      TIMEOUT,
      DNS,
      REFUSED,
      RESET,
      CLOSED_UNDER_REQUEST,
      IMPIT_RESET,
    ])
      expect(handshakeRefused(error), String(error)).toBe(false);
    // A certificate refused is never read as a refusal, whatever else the chain says.
    const both = Object.assign(new Error(CLOSED_IN_HANDSHAKE.message, { cause: CERTIFICATES[0] }), {
      code: 'ECONNRESET',
    });
    expect(handshakeRefused(both)).toBe(false);
  });

  it('keeps its reason as a failure of the exchange: tls for an alert, connection for a close', () => {
    expect(transportErrorReason(ALERT)).toBe('tls');
    expect(transportErrorReason(IMPIT_ALERT)).toBe('tls');
    expect(transportErrorReason(CLOSED_IN_HANDSHAKE)).toBe('connection');
    expect(transportErrorReason(IMPIT_HANDSHAKE_EOF)).toBe('connection');
    for (const error of CERTIFICATES) expect(transportErrorReason(error)).toBe('tls');
  });
});
