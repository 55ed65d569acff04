// Public surface of the HI Service module. The Vitest contract suite
// (test/hi-service/hi-service-contract.ts) lives with the tests: it imports Vitest.

export { HI_SEX_CODES, IHI_RECORD_STATUSES, IHI_SEARCH_PATHS, IHI_STATUSES, type HiCallContext, type HiDemographics, type HiServicePort, type HiSex, type IhiFound, type IhiRecordStatus, type IhiSearchIdentifiers, type IhiSearchPath, type IhiSearchResult, type IhiStatus } from './hi-service-port.ts';
export { HI_DEMO_PROVIDERS, loadHiSandboxFixtures } from './hi-demo-fixtures.ts';
export type { HiFixtures, HiPatientFixture } from './hi-fixture-schema.ts';
export { classifyHiFailure, type HiFailureOutcome } from './hi-service-failure.ts';
export { traceHiService } from './hi-service-tracing.ts';
export { createHiSandboxSimulator } from './hi-sandbox-simulator.ts';
export { measureHiService } from './hi-service-metrics.ts';
export type { NashCertificate, SoapHiSettings } from './soap/index.ts';

/**
 * The SOAP adapter (XML signing, the NASH certificate's PKCS#12: node-forge, xml-crypto, xmldom),
 * loaded only by a process configured for the national HI Service, not by every start.
 */
export async function loadSoapAdapter() {
  const { createSoapHiService, loadNashCertificate } = await import('./soap/index.ts');
  return { createSoapHiService, loadNashCertificate };
}
export { describeMissingSaccCode, saccCodeOf } from './sacc-countries.ts';
