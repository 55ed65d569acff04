// Public surface of the HI Service module. The Vitest contract suite
// (test/hi-service/hi-service-contract.ts) lives with the tests: it imports Vitest.

export {
  HI_SEX_CODES,
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
} from './hi-service-port.ts';
export {
  HiFixtureFile,
  HiPatientFixture,
  HiProviderFixture,
  loadHiFixtureFile,
  mergeHiFixtures,
  parseHiFixtures,
  type HiFixtures,
} from './hi-fixture-file.ts';
export { HI_DEMO_FIXTURES, HI_DEMO_PATIENTS, HI_DEMO_PROVIDERS, loadHiSandboxFixtures } from './hi-demo-fixtures.ts';
export { HI_SPAN_ATTRIBUTES, traceHiService } from './hi-service-tracing.ts';
export {
  createHiSandboxSimulator,
  type HiSandboxSimulatorOptions,
} from './hi-sandbox-simulator.ts';
export { measureHiService } from './hi-service-metrics.ts';
