// Token delivery's face: the outbox sink and record kind a change that issues a token uses,
// the runner `erx serve` and `erx worker` start, and the list `erx deliveries list` shows.
export { createTokenMessageOutbox, tokenMessages, type TokenMessageOutbox } from './token-message-outbox.ts';
export { composeTokenMessage, maskDestination, prescriberNameOf, type TokenMessageRequest } from './token-message-text.ts';
export {
  createTokenDeliveryContext,
  latestTokenMessageOf,
  listTokenMessages,
  TOKEN_MESSAGE_STATUSES,
  TokenDeliveryError,
  type TokenDeliveryContext,
  type TokenMessageView,
} from './token-delivery-service.ts';
export { openTokenMessageSenders, type TokenMessageSenders } from './token-message-senders.ts';
export { sendDueTokenMessages, startTokenMessageRunner, type RunningTokenRunner } from './token-message-runner.ts';
export { createTokenMessageRetentionStep } from './token-message-retention.ts';
