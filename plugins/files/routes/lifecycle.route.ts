import { route, type RouteDef } from '../../../core/index.ts';
import type { LifecycleService } from '../lifecycle.service.ts';
import { ruleBody, ruleIdParams, ruleUpdateBody } from '../schemas/requests.ts';
import { lifecycleRule, lifecycleRules } from '../schemas/responses.ts';
import { keyOrg } from './org-key.ts';

/**
 * Lifecycle rules on the public API (`X-Api-Key`, organization-wide keys): list, create, change
 * (`{enabled:false}` pauses on any plan), delete. @see docs/api/files.md "Lifecycle rules"
 */
export function lifecycleRoutes(lifecycle: LifecycleService): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/public/v1/storage/lifecycle/rules', auth: 'apiKey', response: lifecycleRules,
      summary: "The organization's lifecycle rules and what its plan allows", tags: ['files'],
      handler: ({ principal }) => lifecycle.list(keyOrg(principal)),
    }),
    route({
      method: 'POST', path: '/api/public/v1/storage/lifecycle/rules', auth: 'apiKey', body: ruleBody, status: 201, response: lifecycleRule,
      summary: 'Create a lifecycle rule (at most 10; plan-gated)', tags: ['files'],
      handler: ({ principal, body }) => lifecycle.create(keyOrg(principal), body),
    }),
    route({
      method: 'PUT', path: '/api/public/v1/storage/lifecycle/rules/{id}', auth: 'apiKey', params: ruleIdParams, body: ruleUpdateBody, response: lifecycleRule,
      summary: 'Change a lifecycle rule (only {enabled:false} pauses on any plan)', tags: ['files'],
      handler: ({ principal, params, body }) => lifecycle.update(keyOrg(principal), params.id, body),
    }),
    route({
      method: 'DELETE', path: '/api/public/v1/storage/lifecycle/rules/{id}', auth: 'apiKey', params: ruleIdParams, response: { 204: null },
      summary: 'Delete a lifecycle rule (any plan)', tags: ['files'],
      handler: async ({ principal, params }) => {
        await lifecycle.remove(keyOrg(principal), params.id);
      },
    }),
  ];
}
