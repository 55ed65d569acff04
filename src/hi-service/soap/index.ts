// The SOAP adapter of the HI Service (ConsumerSearchIHI 3.0, ProviderSearchForProviderIndividual
// 5.0.0) over mutual TLS with the organization's NASH certificate. Everything else in this folder
// is private to it.
export { loadNashCertificate, type NashCertificate } from './nash-certificate.ts';
export {
  DEFAULT_HI_USER_QUALIFIER,
  type HiDigestAlgorithm,
  type HiSignatureAlgorithm,
  type SoapHiProduct,
  type SoapHiSettings,
} from './hi-soap-settings.ts';
export { createSoapHiService } from './hi-soap-adapter.ts';
