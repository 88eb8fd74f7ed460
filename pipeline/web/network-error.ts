import { type ErrorCode, ObservatoryError } from '../core/index.ts';

// Node, libuv and undici name the same few failures in many ways; the crawler needs one code.
const BY_SYSTEM_CODE: Readonly<Record<string, ErrorCode>> = {
  ECONNREFUSED: 'refused',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  ECONNABORTED: 'reset',
  UND_ERR_SOCKET: 'reset',
  UND_ERR_CLOSED: 'reset',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'reset',
  HPE_INVALID_CONSTANT: 'network',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  EAI_NONAME: 'dns',
  EAI_NODATA: 'dns',
  ENODATA: 'dns',
  ETIMEDOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  Z_DATA_ERROR: 'bad_encoding',
  Z_BUF_ERROR: 'bad_encoding',
  ERR__ERROR_FORMAT_ERROR: 'bad_encoding',
  ERR_BROTLI_DECOMPRESSION_FAILED: 'bad_encoding',
};

// OpenSSL's verify results as Node reports them (X509_V_ERR_* without the prefix) and Node's own
// host name check; every other TLS failure is plain `tls`.
const BY_TLS_CODE: Readonly<Record<string, ErrorCode>> = {
  CERT_HAS_EXPIRED: 'tls_expired',
  CERT_NOT_YET_VALID: 'tls_expired',
  ERR_TLS_CERT_ALTNAME_INVALID: 'tls_hostname',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'tls_untrusted',
  SELF_SIGNED_CERT_IN_CHAIN: 'tls_untrusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'tls_untrusted',
  UNABLE_TO_GET_ISSUER_CERT: 'tls_untrusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'tls_untrusted',
  CERT_UNTRUSTED: 'tls_untrusted',
  CERT_SIGNATURE_FAILURE: 'tls_untrusted',
  INVALID_CA: 'tls_untrusted',
};

/**
 * Node's names of OpenSSL's certificate verify results that name no certificate: Node reports
 * every result it has no name for as UNSPECIFIED (a 1024-bit RSA key, OpenSSL's EE_KEY_TOO_SMALL,
 * among them), and Node versions that name more use these.
 */
const X509_VERIFY_CODES = new Set([
  'UNSPECIFIED',
  'EE_KEY_TOO_SMALL',
  'CA_KEY_TOO_SMALL',
  'CA_MD_TOO_WEAK',
  'UNABLE_TO_GET_CRL',
  'UNABLE_TO_DECRYPT_CRL_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CRL_SIGNATURE_FAILURE',
  'CRL_NOT_YET_VALID',
  'CRL_HAS_EXPIRED',
  'ERROR_IN_CRL_LAST_UPDATE_FIELD',
  'ERROR_IN_CRL_NEXT_UPDATE_FIELD',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'HOSTNAME_MISMATCH',
]);

function isTlsCode(code: string): boolean {
  return (
    code.startsWith('ERR_TLS') ||
    code.startsWith('ERR_SSL') ||
    code.includes('CERT') ||
    X509_VERIFY_CODES.has(code)
  );
}

/** The first ObservatoryError or system code along an error's cause chain. */
function codeOf(error: unknown): ErrorCode | null {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof ObservatoryError) return e.code;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (code in BY_SYSTEM_CODE) return BY_SYSTEM_CODE[code];
      if (code in BY_TLS_CODE) return BY_TLS_CODE[code];
      if (isTlsCode(code)) return 'tls';
      if (code.startsWith('Z_') || code.includes('ZSTD')) return 'bad_encoding';
    }
  }
  return null;
}

/** Turns whatever a socket, undici or zlib threw into an ObservatoryError with a stable code. */
export function toObservatoryError(error: unknown): ObservatoryError {
  if (error instanceof ObservatoryError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ObservatoryError(codeOf(error) ?? 'network', message, { cause: error });
}
