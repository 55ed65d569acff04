// Token delivery's face: the outbox sink and record kind a change that issues a token uses,
// the runner `erx serve` and `erx worker` start, and the list `erx deliveries list` shows.
export { createTokenMessageOutbox, tokenMessages } from './token-message-outbox.ts';
export { prescriberNameOf } from './token-message-text.ts';
export {
  createTokenDeliveryContext,
  latestTokenMessageOf,
  listTokenMessages,
  TOKEN_MESSAGE_STATUSES,
  TokenDeliveryError,
  type TokenDeliveryContext,
  type TokenMessageView,
} from './token-delivery-service.ts';
export { startTokenMessageRunner } from './token-message-runner.ts';
export { createTokenMessageRetentionStep } from './token-message-retention.ts';
