// Public surface of the HI Service module. The Vitest contract suite
// (test/hi-service/hi-service-contract.ts) lives with the tests: it imports Vitest.

export {
  HI_SEX_CODES,
  HI_WIRE_NAME_LENGTH,
  HiServiceRejectedError,
  HiServiceUnreachableError,
  IHI_RECORD_STATUSES,
  IHI_SEARCH_PATHS,
  IHI_STATUSES,
  type AustralianStreetAddress,
  type HiCallContext,
  type HiDemographics,
  type HiServicePort,
  type HiSex,
  type IhiFound,
  type IhiRecordStatus,
  type IhiSearchIdentifiers,
  type IhiSearchPath,
  type IhiSearchRequest,
  type IhiSearchResult,
  type IhiStatus,
  type InternationalAddress,
  type ProviderVerification,
  type ProviderVerificationRequest,
  wireName,
} from './hi-service-port.ts';
export {
  HI_FIXTURE_DEFAULT_REJECTION,
  HI_FIXTURE_PATIENT_FAULTS,
  HI_FIXTURE_PROVIDER_FAULTS,
  HI_FIXTURE_REJECTION_SEVERITIES,
  HPII_STATUSES,
  HiFixtureFile,
  HiPatientFixture,
  HiProviderFixture,
  loadHiFixtureFile,
  mergeHiFixtures,
  parseHiFixtures,
  type HiFixtures,
} from './hi-fixture-file.ts';
export { HI_DEMO_FIXTURES, HI_DEMO_PATIENTS, HI_DEMO_PROVIDERS, loadHiSandboxFixtures } from './hi-demo-fixtures.ts';
export { classifyHiFailure, type HiFailure, type HiFailureOutcome } from './hi-service-failure.ts';
export { HI_SPAN_ATTRIBUTES, traceHiService } from './hi-service-tracing.ts';
export {
  createHiSandboxSimulator,
  type HiSandboxSimulatorOptions,
} from './hi-sandbox-simulator.ts';
export { measureHiService } from './hi-service-metrics.ts';
export {
  DEFAULT_HI_USER_QUALIFIER,
  createSoapHiService,
  loadNashCertificate,
  type HiDigestAlgorithm,
  type HiSignatureAlgorithm,
  type NashCertificate,
  type SoapHiProduct,
  type SoapHiSettings,
} from './soap/index.ts';
export { COUNTRIES_WITHOUT_SACC_CODE, SACC_COUNTRY_CODES, describeMissingSaccCode, saccCodeOf } from './sacc-countries.ts';
