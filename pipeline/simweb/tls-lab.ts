/**
 * The broken-TLS hosts of the simulated Web (`tls-lab.org`): which certificate trouble each one
 * shows on the TLS port. Every other host name gets a valid certificate from the test CA.
 */

/**
 * `stall`: the handshake never progresses (the TCP connection is accepted, then nothing);
 * `weak-key`: a certificate from the test CA for a 1024-bit RSA key, which OpenSSL refuses.
 */
export type TlsTrouble = 'expired' | 'wrong-host' | 'self-signed' | 'weak-key' | 'stall';

export const TLS_LAB = 'tls-lab.org';

/** Host name -> the trouble it shows. */
export const TLS_TROUBLE_HOSTS: ReadonlyMap<string, TlsTrouble> = new Map(
  (['expired', 'wrong-host', 'self-signed', 'weak-key', 'stall'] as const).map((t) => [`${t}.${TLS_LAB}`, t]),
);

/** A host with a valid certificate (the control case). */
export const TLS_OK_HOST = `ok.${TLS_LAB}`;

/** A host whose `http://` URLs answer 301 to the same `https://` URL, whatever PLD it is. */
export const TLS_UPGRADE_HOST = `upgrade.${TLS_LAB}`;

/** The one name the `wrong-host` certificate is valid for. */
export const WRONG_HOST_NAME = `elsewhere.${TLS_LAB}`;
