// Reads the NASH certificate an operator is issued as a PKCS#12 file (ERX_HI_CERT) into the PEM
// key, certificate and chain the TLS client and the request signer use. Errors name what went
// wrong, never the passphrase or the file's content.
import forge from 'node-forge';

export interface NashCertificate {
  keyPem: string;
  certPem: string;
  chainPems: string[];
  notAfter: Date;
  subject: string;
}

const UNREADABLE = 'NASH certificate: the file is not a readable PKCS#12 (.p12/.pfx) file';
const WRONG_PASSPHRASE = 'NASH certificate: the passphrase does not open the PKCS#12 file';

function readPkcs12(pfx: Buffer, passphrase: string): forge.pkcs12.Pkcs12Pfx {
  let asn1: forge.asn1.Asn1;
  try {
    asn1 = forge.asn1.fromDer(forge.util.createBuffer(pfx.toString('binary')));
  } catch {
    throw new Error(UNREADABLE);
  }
  try {
    return forge.pkcs12.pkcs12FromAsn1(asn1, false, passphrase);
  } catch (error) {
    // forge reports a failed MAC check for a wrong passphrase; anything else is a broken file.
    const text = error instanceof Error ? error.message : '';
    throw new Error(/MAC|password|decrypt/i.test(text) ? WRONG_PASSPHRASE : UNREADABLE);
  }
}

function bagsOf(p12: forge.pkcs12.Pkcs12Pfx, type: string): forge.pkcs12.Bag[] {
  return p12.getBags({ bagType: type })[type] ?? [];
}

function findPrivateKey(p12: forge.pkcs12.Pkcs12Pfx): forge.pki.PrivateKey {
  const bag = [...bagsOf(p12, forge.pki.oids.pkcs8ShroudedKeyBag!), ...bagsOf(p12, forge.pki.oids.keyBag!)].find((b) => b.key);
  if (!bag?.key) throw new Error('NASH certificate: the PKCS#12 file holds no private key');
  return bag.key;
}

function publicKeyMatches(cert: forge.pki.Certificate, key: forge.pki.rsa.PrivateKey): boolean {
  const publicKey = cert.publicKey as forge.pki.rsa.PublicKey;
  return publicKey.n?.equals(key.n) === true && publicKey.e?.equals(key.e) === true;
}

function describeSubject(cert: forge.pki.Certificate): string {
  return cert.subject.attributes.map((a) => `${a.shortName ?? a.name}=${String(a.value)}`).join(', ');
}

/** Throws an Error with a clear message (never the passphrase) for an unreadable file or a wrong passphrase. */
export function loadNashCertificate(pfx: Buffer, passphrase: string): NashCertificate {
  const p12 = readPkcs12(pfx, passphrase);
  const key = findPrivateKey(p12) as forge.pki.rsa.PrivateKey;
  const certs = bagsOf(p12, forge.pki.oids.certBag!).flatMap((b) => (b.cert ? [b.cert] : []));
  const leaf = certs.find((c) => publicKeyMatches(c, key));
  if (!leaf) throw new Error('NASH certificate: the PKCS#12 file holds no certificate for its private key');
  return {
    keyPem: forge.pki.privateKeyToPem(key),
    certPem: forge.pki.certificateToPem(leaf),
    chainPems: certs.filter((c) => c !== leaf).map((c) => forge.pki.certificateToPem(c)),
    notAfter: leaf.validity.notAfter,
    subject: describeSubject(leaf),
  };
}
