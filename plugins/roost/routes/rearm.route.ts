import { route, type AuditService, type Clock, type HandlerInput, type RouteDef, type SchemaType } from '../../../core/index.ts';
import { BOX_ID_PATTERN, issueTicket, NONCE_PATTERN } from '../../../appliance/api.ts';
import type { RearmKey } from '../rearm-key.ts';
import { roostErrors } from '../errors.ts';
import { rearmTicketBody } from '../schemas/rearm-ticket.body.ts';
import { rearmPublicKeyResponse, rearmTicketResponse } from '../schemas/responses.ts';

interface Deps {
  key: RearmKey | null;
  clock: Clock;
  audit: AuditService;
  db: import('../../../core/index.ts').Database;
}

/** Owner only; box and nonce rules (400 `INVALID_REARM_REQUEST`); 503 without a key — all before the seal. */
function guard({ body, org }: HandlerInput<SchemaType<typeof rearmTicketBody>>, key: RearmKey | null): void {
  if (org?.membership?.role !== 'Owner') throw roostErrors.ownerRequired();
  if (typeof body.box !== 'string' || !BOX_ID_PATTERN.test(body.box)) throw roostErrors.invalidRequest('box', 'must be 4 to 40 characters of A-Z, 0-9 and -');
  if (typeof body.nonce !== 'string' || !NONCE_PATTERN.test(body.nonce)) throw roostErrors.invalidRequest('nonce', 'must be 32 lowercase hex characters');
  if (!key) throw roostErrors.disabled();
}

/**
 * `POST /api/org/{slug}/roost/rearm-ticket {box, nonce, stepUpAssertion}` → `{ticket, box, nonce,
 * expiresAt, keyFingerprint}` (seal purpose `roost.rearm`, subject `{slug}|{box}|{nonce}`; audit
 * `roost.rearm.ticket_issued` with the seal proof); `GET /api/roost/rearm-public-key` (anonymous).
 * @see docs/api/roost.md
 */
export function rearmRoutes({ key, clock, audit, db }: Deps): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/org/{slug}/roost/rearm-ticket', auth: 'session', org: true, body: rearmTicketBody,
      personOnly: "an owner's decision, sealed with the Owner's passkey (purpose roost.rearm)",
      response: rearmTicketResponse,
      summary: 'Issue a signing-box re-arm ticket (Owner, sealed)', tags: ['roost'],
      guard: (input) => guard(input, key),
      seal: {
        purpose: 'roost.rearm',
        assertionField: 'stepUpAssertion',
        subject: ({ params, body }) => `${params.slug}|${String(body.box)}|${String(body.nonce)}`,
      },
      handler: async ({ body, org, principal, seal }) => {
        const iat = Math.floor(clock.now().getTime() / 1000);
        const issued = issueTicket({ box: String(body.box), nonce: String(body.nonce), org: org.organization.slug, by: principal.accountId, iat }, key!.secret);
        const expiresAt = new Date(issued.expiresAt * 1000).toISOString();
        const keyFingerprint = key!.publicDocument.fingerprint;
        await db.transaction((trx) =>
          audit.append(trx, {
            orgId: org.organization.id, eventType: 'roost.rearm.ticket_issued',
            businessData: { box: body.box, nonce: body.nonce, expiresAt, keyFingerprint, sealProof: seal?.proof },
          }),
        );
        return { ticket: issued.ticket, box: body.box, nonce: body.nonce, expiresAt, keyFingerprint };
      },
    }),
    route({
      method: 'GET', path: '/api/roost/rearm-public-key', auth: 'public', summary: 'The re-arm public key boxes pin', tags: ['roost'],
      response: rearmPublicKeyResponse,
      handler: () => {
        if (!key) throw roostErrors.disabled();
        return key.publicDocument;
      },
    }),
  ];
}
