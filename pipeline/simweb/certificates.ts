/**
 * The simulated Web's test certificate authority, generated in memory at start (ECDSA P-256:
 * a key pair takes about a millisecond, where RSA would take hundreds). One leaf key serves every
 * host certificate: a test CA has no key compromise to contain, and signing a certificate is then
 * the only per-host cost.
 */
import { webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
// @peculiar/x509 resolves its algorithms through tsyringe, which needs this polyfill loaded first
import 'reflect-metadata';
import {
  BasicConstraintsExtension,
  ExtendedKeyUsage,
  ExtendedKeyUsageExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectAlternativeNameExtension,
  X509CertificateGenerator,
} from '@peculiar/x509';

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 86_400_000;

/** A certificate and its private key, both PEM, as tls.createSecureContext takes them. */
export interface KeyAndCertificate {
  readonly key: string;
  readonly cert: string;
}

/** What a host certificate says: the names it is valid for and when. */
export interface CertificateRequest {
  readonly names: readonly string[];
  readonly notBefore: Date;
  readonly notAfter: Date;
}

export interface CertificateAuthority {
  /** The CA certificate, PEM: what a client adds to its trusted roots. */
  readonly certPem: string;
  /** A certificate for `request` signed by this CA. */
  issue(request: CertificateRequest): Promise<KeyAndCertificate>;
  /** A certificate for `request` signed by its own key (no CA vouches for it). */
  selfSigned(request: CertificateRequest): Promise<KeyAndCertificate>;
  /** A certificate for `request` signed by this CA for a 1024-bit RSA key, too small for OpenSSL's default level. */
  weakKey(request: CertificateRequest): Promise<KeyAndCertificate>;
}

const WEAK_RSA = {
  name: 'RSASSA-PKCS1-v1_5',
  modulusLength: 1024,
  publicExponent: new Uint8Array([1, 0, 1]),
  hash: 'SHA-256',
} as const;

async function keyPair(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
}

async function privatePem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/.{64}/g, '$&\n')}\n-----END PRIVATE KEY-----\n`;
}

const serial = () =>
  `01${webcrypto.getRandomValues(new Uint8Array(15)).reduce((s, b) => s + b.toString(16).padStart(2, '0'), '')}`;

function leafExtensions(names: readonly string[]) {
  return [
    new BasicConstraintsExtension(false, undefined, true),
    new KeyUsagesExtension(KeyUsageFlags.digitalSignature, true),
    new ExtendedKeyUsageExtension([ExtendedKeyUsage.serverAuth]),
    new SubjectAlternativeNameExtension(
      names.map((n) => ({ type: isIP(n) ? ('ip' as const) : ('dns' as const), value: n })),
    ),
  ];
}

/** A new CA valid from a day ago for ten years (`now` is real time: TLS clients check against it). */
export async function createCertificateAuthority(now = Date.now()): Promise<CertificateAuthority> {
  const caKeys = await keyPair();
  const leafKeys = await keyPair();
  const name = 'CN=Linked Data Observatory simulated Web test CA';
  const ca = await X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name,
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 3650 * DAY),
    keys: caKeys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new BasicConstraintsExtension(true, 0, true),
      new KeyUsagesExtension(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign, true),
    ],
  });
  const leafKey = await privatePem(leafKeys.privateKey);
  const subject = (names: readonly string[]) => `CN=${names[0]}`;
  return {
    certPem: ca.toString('pem'),
    issue: async ({ names, notBefore, notAfter }) => {
      const cert = await X509CertificateGenerator.create({
        serialNumber: serial(),
        subject: subject(names),
        issuer: ca.subject,
        notBefore,
        notAfter,
        publicKey: leafKeys.publicKey,
        signingKey: caKeys.privateKey,
        signingAlgorithm: ALGORITHM,
        extensions: leafExtensions(names),
      });
      return { key: leafKey, cert: cert.toString('pem') };
    },
    weakKey: async ({ names, notBefore, notAfter }) => {
      const weak = (await webcrypto.subtle.generateKey(WEAK_RSA, true, ['sign', 'verify'])) as CryptoKeyPair;
      const cert = await X509CertificateGenerator.create({
        serialNumber: serial(),
        subject: subject(names),
        issuer: ca.subject,
        notBefore,
        notAfter,
        publicKey: weak.publicKey,
        signingKey: caKeys.privateKey,
        signingAlgorithm: ALGORITHM,
        extensions: leafExtensions(names),
      });
      return { key: await privatePem(weak.privateKey), cert: cert.toString('pem') };
    },
    selfSigned: async ({ names, notBefore, notAfter }) => {
      const cert = await X509CertificateGenerator.createSelfSigned({
        serialNumber: serial(),
        name: subject(names),
        notBefore,
        notAfter,
        keys: leafKeys,
        signingAlgorithm: ALGORITHM,
        extensions: leafExtensions(names),
      });
      return { key: leafKey, cert: cert.toString('pem') };
    },
  };
}
