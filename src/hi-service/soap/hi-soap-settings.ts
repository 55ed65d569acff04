// What the SOAP adapter is configured with (config reads the ERX_HI_* variables into this).
import type { NashCertificate } from './nash-certificate.ts';

export type HiSignatureAlgorithm = 'rsa-sha1' | 'rsa-sha256';
export type HiDigestAlgorithm = 'sha1' | 'sha256';

export interface SoapHiProduct {
  vendorQualifier: string;
  vendorId: string;
  productName: string;
  productVersion: string;
}

export interface SoapHiSettings {
  /** https URL of the HI Service (ERX_HI_ENDPOINT). */
  endpoint: string;
  /** ERX_HI_CERT + ERX_HI_CERT_PASSPHRASE. */
  certificate: NashCertificate;
  /** ERX_HI_CA: trusted for the endpoint's TLS and for signed answers; else the system store. */
  trustedCaPem?: string;
  /** ERX_HI_SIGNER_SPKI: the answer signer's key must be one of these (base64 SHA-256 of its SPKI); empty or absent: unpinned. */
  signerSpkiPins?: readonly string[];
  /** ERX_HI_VENDOR_QUALIFIER, ERX_HI_VENDOR_ID, ERX_HI_PRODUCT_NAME, ERX_HI_PRODUCT_VERSION. */
  product: SoapHiProduct;
  /** Qualifier of the user id in the `user` header (default DEFAULT_HI_USER_QUALIFIER). */
  userQualifier?: string;
  /** ERX_HI_TIMEOUT_MS (default 10000). */
  timeoutMs: number;
  /** ERX_HI_SIGNATURE_ALGORITHM. */
  signatureAlgorithm: HiSignatureAlgorithm;
  /** ERX_HI_DIGEST_ALGORITHM. */
  digestAlgorithm: HiDigestAlgorithm;
  /** Injected clock for the timestamp header. */
  now?: () => Date;
}

/**
 * The qualifier of erx's own user ids in the `user` header when none is configured: the HI
 * Service asks for "the local system's" user identifier qualified by a URI the vendor owns, so a
 * URI naming erx user accounts, in the form the clients document
 * (`http://<domain>/id/<system>/userid/1.0`).
 */
export const DEFAULT_HI_USER_QUALIFIER = 'http://ns.erx.example/id/erx/userid/1.0';
