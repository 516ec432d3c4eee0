import { reply, route, type RouteDef } from '../../../core/index.ts';
import { assertBoardOrg, type BoardService } from '../board.service.ts';
import { appointBody, boardRemoveBody, chairmanBody } from '../schemas/bodies.ts';
import { boardMemberParams, slugParams } from '../schemas/params.ts';
import { boardResponse } from '../schemas/responses.ts';

/** Seal purpose of board composition changes. @see docs/api/teams.md "The board" */
export const BOARD_SEAL_PURPOSE = 'board.member.change';

const PERSON_ONLY = "a board change is sealed with the caller's own passkey (board.member.change); a machine token has none";

/**
 * The board of directors (Corporation and Project organizations): `GET|POST /api/org/{slug}/board`,
 * appoint (`POST …/board/members`), remove (`POST …/board/members/{memberId}/remove`) and the chairman
 * (`PUT …/board/chairman`). The three changes need a fresh `board.member.change` seal on subject
 * `{slug}|{targetConnectedId}|{appoint|remove|chairman}` (an empty target clears the chairman); the
 * organization type is checked first (`guard`), so a Standard organization is refused before any seal.
 * @see docs/api/teams.md "The board"
 */
export function boardRoutes(board: BoardService): RouteDef[] {
  const common = { auth: 'session' as const, org: true as const, tags: ['teams'] };
  return [
    route({
      ...common, method: 'GET', path: '/api/org/{slug}/board', scope: 'org.board.read', params: slugParams, response: boardResponse,
      summary: 'The board and its roster',
      handler: ({ org }) => board.get(org.organization.id),
    }),
    route({
      ...common, method: 'POST', path: '/api/org/{slug}/board', scope: 'org.board.manage', params: slugParams, status: 201,
      response: { 201: boardResponse, 200: boardResponse }, summary: 'Create the (empty) board; 200 with the board when it exists',
      handler: async ({ org }) => {
        const { created, board: dto } = await board.create(org.organization);
        return reply(created ? 201 : 200, dto);
      },
    }),
    route({
      ...common, method: 'POST', path: '/api/org/{slug}/board/members', scope: 'org.board.manage', params: slugParams, body: appointBody, status: 201,
      personOnly: PERSON_ONLY, response: { 201: boardResponse }, summary: 'Appoint a director (sealed)',
      guard: ({ org }) => assertBoardOrg(org.organization),
      seal: { purpose: BOARD_SEAL_PURPOSE, subject: (i) => `${i.org.organization.slug}|${i.body.ConnectedIdId}|appoint`, assertionField: 'SealAssertionJson' },
      handler: async ({ org, body }) => reply(201, await board.appoint(org.organization, body.ConnectedIdId, body.SharePercent ?? null)),
    }),
    route({
      ...common, method: 'POST', path: '/api/org/{slug}/board/members/{memberId}/remove', scope: 'org.board.manage', params: boardMemberParams, body: boardRemoveBody,
      personOnly: PERSON_ONLY, response: boardResponse, summary: 'Remove a director (sealed)',
      guard: ({ org }) => assertBoardOrg(org.organization),
      seal: { purpose: BOARD_SEAL_PURPOSE, subject: (i) => `${i.org.organization.slug}|${i.params.memberId}|remove`, assertionField: 'SealAssertionJson' },
      handler: ({ org, params }) => board.remove(org.organization, params.memberId),
    }),
    route({
      ...common, method: 'PUT', path: '/api/org/{slug}/board/chairman', scope: 'org.board.manage', params: slugParams, body: chairmanBody,
      personOnly: PERSON_ONLY, response: boardResponse, summary: 'Set or clear the chairman (sealed)',
      guard: ({ org }) => assertBoardOrg(org.organization),
      seal: { purpose: BOARD_SEAL_PURPOSE, subject: (i) => `${i.org.organization.slug}|${i.body.LeadConnectedId ?? ''}|chairman`, assertionField: 'SealAssertionJson' },
      handler: ({ org, body }) => board.setChairman(org.organization, body.LeadConnectedId),
    }),
  ];
}
