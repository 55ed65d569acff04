// The HI Service of every integration test: the sandbox simulator over the demo identities
// (plus ERX_HI_FIXTURES and two more verifiable providers), recording every search and provider
// lookup it answers. A test can make lookups fail unexpectedly, stage a racing request while a
// lookup is in flight, or hold searches until several have arrived.
import { createHiSandboxSimulator, type HiCallContext, type HiServicePort } from '../src/hi-service/index.ts';
import { mergeHiFixtures, type HiFixtures, type HiProviderFixture } from '../src/hi-service/hi-fixture-file.ts';
import { type IhiSearchRequest, type ProviderVerificationRequest } from '../src/hi-service/hi-service-port.ts';

/** Two more verified providers (valid HPI-Is from the public HI test data), for HPI-I changes. */
export const TEST_PROVIDERS = {
  fred: { hpii_number: '8003610000010401', family_name: 'Citizen', given_name: 'Fred', date_of_birth: '1980-01-01', sex: 'M' },
  priya: { hpii_number: '8003610001647326', family_name: 'Jones', given_name: 'Priya', date_of_birth: '1982-03-04', sex: 'F' },
} satisfies Record<string, HiProviderFixture>;

export interface RecordingHiService extends HiServicePort {
  searches: IhiSearchRequest[];
  providerLookups: ProviderVerificationRequest[];
  /** Who asked, call by call (searches and lookups in the order they came), without the signal. */
  contexts: Array<{ call: 'searchIhi' | 'verifyProvider'; hpio: string; userId: string; hasSignal: boolean }>;
  /** When set, provider lookups throw it (an unexpected fault, not "unreachable"). */
  fault: Error | undefined;
  /** When set, runs while a provider lookup is in flight (to stage a racing request). */
  duringLookup: (() => Promise<void>) | undefined;
  /** From now on searches wait until `size` of them are waiting, then all answer at once. */
  gateSearches(size: number): void;
  /** Forgets what was recorded and staged. */
  reset(): void;
}

export function createRecordingHiService(fixtures: HiFixtures): RecordingHiService {
  const simulator = createHiSandboxSimulator({
    fixtures: mergeHiFixtures({ patients: [], providers: Object.values(TEST_PROVIDERS) }, fixtures),
  });
  let gate: { size: number; waiting: Array<() => void> } | undefined;
  const passGate = () =>
    new Promise<void>((release) => {
      if (!gate) return release();
      gate.waiting.push(release);
      if (gate.waiting.length >= gate.size) for (const go of gate.waiting.splice(0)) go();
    });
  const noteContext = (call: 'searchIhi' | 'verifyProvider', context: HiCallContext) =>
    hi.contexts.push({ call, hpio: context.hpio, userId: context.userId, hasSignal: context.signal !== undefined });
  const hi: RecordingHiService = {
    searches: [],
    providerLookups: [],
    contexts: [],
    fault: undefined,
    duringLookup: undefined,
    async searchIhi(request, context) {
      hi.searches.push(request);
      noteContext('searchIhi', context);
      await passGate();
      return simulator.searchIhi(request, context);
    },
    async verifyProvider(request, context) {
      hi.providerLookups.push(request);
      noteContext('verifyProvider', context);
      if (hi.fault) throw hi.fault;
      await hi.duringLookup?.();
      return simulator.verifyProvider(request, context);
    },
    gateSearches(size) {
      gate = { size, waiting: [] };
    },
    reset() {
      hi.searches.length = 0;
      hi.providerLookups.length = 0;
      hi.contexts.length = 0;
      hi.fault = undefined;
      hi.duringLookup = undefined;
      gate = undefined;
    },
  };
  return hi;
}
