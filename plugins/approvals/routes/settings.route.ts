import { route, type RouteDef } from '../../../core/index.ts';
import { approvalsErrors } from '../errors.ts';
import type { SecondDeviceSettingsService } from '../second-device-settings.service.ts';
import { settingsBody } from '../schemas/bodies.ts';
import { slugParams } from '../schemas/params.ts';
import { settingsResponse } from '../schemas/responses.ts';

const PERSON_ONLY = "second-device confirmation is an Owner's decision about the organization's members; a machine token is no member";

/**
 * Approval settings: `GET|PUT /api/org/{slug}/approvals/settings` — rule 7's switch
 * `secondDeviceConfirmation` (on by default) and the global `secondDevicePhase`. Any member reads
 * it; only the Owner turns it off, the Owner or an Admin turns it on (403 `PERMISSION_DENIED`).
 * @see spec 02 "Approvals" rule 7; docs/api/approvals.md "Settings"
 */
export function settingsRoutes(settings: SecondDeviceSettingsService): RouteDef[] {
  const common = { auth: 'session' as const, org: true as const, personOnly: PERSON_ONLY, tags: ['approvals'] };
  return [
    route({
      ...common, method: 'GET', path: '/api/org/{slug}/approvals/settings', params: slugParams, response: settingsResponse,
      summary: "The organization's approval settings (second-device confirmation)",
      handler: ({ org }) => settings.get(org.organization.id),
    }),
    route({
      ...common, method: 'PUT', path: '/api/org/{slug}/approvals/settings', params: slugParams, body: settingsBody, response: settingsResponse,
      summary: 'Turn second-device confirmation on (Owner or Admin) or off (Owner only)',
      guard: ({ org, body }) => {
        const role = org.membership?.role;
        if (role === 'Owner') return;
        if (!body.secondDeviceConfirmation && role === 'Admin') throw approvalsErrors.ownerOnlyTurnsOff();
        if (role !== 'Admin') throw approvalsErrors.settingsOwnerOrAdmin();
      },
      handler: ({ org, principal, body }) => settings.set(org.organization.id, { accountId: principal.accountId, role: org.membership.role }, body.secondDeviceConfirmation),
    }),
  ];
}
