// The face of the rtpm feature: the real-time prescription monitoring port and its simulator,
// and the checks, acknowledgements and attestations the portal records before a monitored
// medicine is written.
export { acknowledgeRtpmCheck, attestRtpm, checkPatientRtpm, createRtpmContext, openRtpmNotification, readRtpmCheck, RTPM_REASON_MAX_LENGTH, type RtpmCheckView, type RtpmContext, type RtpmSubject } from './rtpm-service.ts';
export { createRtpmRetentionStep } from './rtpm-retention.ts';
