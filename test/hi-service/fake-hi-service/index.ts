// The fake HI Service's face for tests (and for a test that spawns `erx serve` against it).
export {
  startFakeHiService,
  type FakeHiService,
  type FakeHiServiceOptions,
  type ReceivedRequest,
} from './fake-hi-service.ts';
export type { InjectedFault } from './fault-injection.ts';
export { findXsdDir } from './validate-xsd.ts';
export { IDENTIFIER_QUALIFIERS, NS, OPERATIONS } from './hi-wire.ts';
