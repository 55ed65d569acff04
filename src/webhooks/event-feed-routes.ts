// GET /v1/organizations/{organization_id}/events: the event feed (event-feed.ts). Bearer auth
// with read:patient_prescription and the organization checks of every organization route.
import { Type } from '@sinclair/typebox';
import { principalOf } from '../auth/index.ts';
import { schemaIssuesOf } from '../platform/http/body-validation.ts';
import { errorResponses, SuccessEnvelopeSchema } from '../platform/http/envelope.ts';
import type { RouteModule } from '../route-module.ts';
import { FEED_LIMITS, listOrganizationEvents } from './event-feed.ts';
import type { WebhooksContext } from './webhooks-service.ts';

const FeedParams = Type.Object({ organization_id: Type.String({ maxLength: 64 }) });
const FeedQuery = Type.Object({
  after: Type.Optional(Type.String({ description: 'The previous page\'s "next" (opaque); leave out to start from the oldest event.' })),
  limit: Type.Optional(Type.String({ description: `Events per page, 1 to ${FEED_LIMITS.max} (default ${FEED_LIMITS.default}).` })),
});
const FeedData = Type.Object({
  events: Type.Array(Type.Unknown({ description: 'An event envelope, exactly as its webhook delivered it.' })),
  next: Type.Union([Type.String(), Type.Null()], { description: 'Pass as "after" to continue (null: nothing listed yet).' }),
  has_more: Type.Boolean({ description: 'More events are listable now; otherwise poll later with "next".' }),
});

export const eventFeedRoutes: RouteModule<WebhooksContext> = (app, webhooks) => {
  app.route({
    method: 'GET',
    url: '/v1/organizations/:organization_id/events',
    config: { auth: { kind: 'bearer', scopes: ['read:patient_prescription'] } },
    // A bad limit or cursor is a 400 (the service says which).
    attachValidation: true,
    schema: {
      summary: "The calling partner's webhook events of the organization, in commit order, a page at a time (limit 1-100, default 50; after from the previous page's next)",
      tags: ['webhooks'],
      params: FeedParams,
      querystring: FeedQuery,
      response: { 200: SuccessEnvelopeSchema(FeedData), ...errorResponses(403, 404) },
    },
    handler: async (request, reply) => {
      const query = { value: request.query, issues: schemaIssuesOf(request) };
      const page = await listOrganizationEvents(webhooks, principalOf(request), query);
      return reply.success(200, 'Events retrieved successfully', page);
    },
  });
};
