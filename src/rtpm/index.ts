// The face of the rtpm feature: the real-time prescription monitoring port and its simulator,
// and the checks, acknowledgements and attestations the portal records before a monitored
// medicine is written.
export { createRtpmSimulator, RTPM_LEVELS, type RtpmAnswer, type RtpmCheckRequest, type RtpmLevel, type RtpmNotification, type RtpmPort } from './rtpm-port.ts';
export {
  acknowledgeRtpmCheck,
  attestRtpm,
  checkPatientRtpm,
  createRtpmContext,
  openRtpmNotification,
  readRtpmCheck,
  RTPM_CHECK_VALID_MS,
  RTPM_REASON_MAX_LENGTH,
  type RtpmCheckView,
  type RtpmContext,
  type RtpmSubject,
} from './rtpm-service.ts';
export { createRtpmRetentionStep, RTPM_CHECKS_KEPT_MS } from './rtpm-retention.ts';
