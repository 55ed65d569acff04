// The delivery toolkit: what every durable job after a commit is built from (webhook
// deliveries, token messages, PDS submissions). A job is a sink of the unit of work (its
// outbox) plus a runner on these parts: leases and fencing (delivery-lease.ts), the retry
// table with channel-neutral outcome classes (delivery-outcomes.ts), the wake-up after commit
// (delivery-wakeups.ts), the runner's loop (delivery-runner.ts), and the one start and stop of
// every background loop (background-loops.ts). docs/developers/delivery-toolkit.md shows how.
export { newRunnerId, startBackgroundLoops, type BackgroundLoop, type RunningLoop, type RunningLoops } from './background-loops.ts';
export {
  claimDueJobs,
  hasLeaseForAttempt,
  LEASE_MARGIN_MS,
  leaseDurationMs,
  recordJobOutcomeIfFenced,
  releaseJobLeases,
  type JobClaim,
  type LeasedJobColumns,
  type LeasedJobTable,
} from './delivery-lease.ts';
export {
  classifyHttpStatus,
  DELIVERY_OUTCOME_CLASSES,
  HTTP_OUTCOME_CLASSES,
  nextStepOf,
  type DeliveryOutcomeClass,
  type HttpAnswerClass,
  type HttpOutcomeClass,
  type NextStep,
  type OutcomeEffect,
  type RetryTable,
} from './delivery-outcomes.ts';
export { RETRY_TIMER_SLACK_MS, startPolledRunner, type PolledRunnerOptions, type RunnerPass } from './delivery-runner.ts';
export {
  createDeliveryWakeups,
  decodeWakePayload,
  DeliveryWakeups,
  encodeWakePayload,
  MAX_KEYS_PER_NOTIFY,
  WAKE_ALL,
  wakeChannelOf,
  type WakeBroadcast,
  type WakeChannel,
  type WakeListener,
} from './delivery-wakeups.ts';
