import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { coreRefs, inject, injectable, type AuditService, type Clock, type Database } from '../../core/index.ts';
import type { DirectorAccepted } from '../members/api.ts';
import { DIRECTOR_ORG_TYPES } from '../rbac/api.ts';
import type { BoardDto, BoardRoster } from './api.ts';
import { teamsErrors } from './errors.ts';
import { insertEdge } from './graph-writes.ts';
import { lockOrgGraph } from './org-lock.ts';
import { peopleOf } from './people.ts';
import type { EdgeRow, TeamRow } from './records.ts';
import { activeMember } from './team-records.ts';

/** The organization as board rules need it. */
export interface BoardOrg {
  id: string;
  type: string;
}

/**
 * `teams.board`: the board of directors — one group of kind `Board` per Corporation or Project
 * organization; its `member_of` edges are the director roster (with `SharePercent`), its lead the
 * chairman. It is no team: team lists, team routes and automatic reporting lines leave it out.
 * Routes that change the roster need a `board.member.change` seal (checked by the kernel before
 * these methods run); a director invitation seats its invitee on acceptance ({@link seatDirector}).
 * @see docs/api/teams.md "The board"
 */
@injectable()
export class BoardService implements BoardRoster {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
  ) {}

  /** {@inheritDoc BoardRoster.get} */
  async get(orgId: string, trx?: Knex.Transaction): Promise<BoardDto> {
    const db = trx ?? this.db.knex;
    const board = (await db('teams.teams').where({ orgId, groupKind: 'Board' }).first()) as TeamRow | undefined;
    if (!board) return { exists: false, boardId: null, chairmanConnectedId: null, members: [] };
    const seats = (await db('teams.edges').where({ orgId, type: 'member_of', targetId: board.id }).orderBy([{ column: 'createdAt' }, { column: 'id' }])) as EdgeRow[];
    const people = await peopleOf(db, orgId, seats.map((s) => s.sourceId));
    const chairman = board.leadConnectedId && people.has(board.leadConnectedId) ? board.leadConnectedId : null;
    return {
      exists: true, boardId: board.id, chairmanConnectedId: chairman,
      members: seats.filter((s) => people.has(s.sourceId)).map((s) => {
        const p = people.get(s.sourceId)!;
        return {
          ConnectedIdId: s.sourceId, Name: p.Name, Email: p.Email, SharePercent: s.sharePercent === null ? null : Number(s.sharePercent),
          IsChairman: s.sourceId === chairman, SeatedAt: new Date(s.createdAt).toISOString(),
        };
      }),
    };
  }

  /**
   * Creates the board when there is none. @returns the board and whether it was created
   * @throws 400 `BOARD_ORG_TYPE`
   */
  async create(org: BoardOrg): Promise<{ created: boolean; board: BoardDto }> {
    assertBoardOrg(org);
    return this.db.transaction(async (trx) => {
      await lockOrgGraph(trx, org.id);
      const { created } = await this.ensure(trx, org.id);
      return { created, board: await this.get(org.id, trx) };
    });
  }

  /**
   * Appoints an active member as a director (creating the board when needed).
   * @throws 400 `BOARD_ORG_TYPE`, 404 `MEMBER_NOT_FOUND` / 409 `MEMBER_NOT_ACTIVE`, 409 `BOARD_MEMBER_EXISTS`
   */
  async appoint(org: BoardOrg, connectedIdId: string, sharePercent: number | null): Promise<BoardDto> {
    assertBoardOrg(org);
    return this.db.transaction(async (trx) => {
      await lockOrgGraph(trx, org.id);
      await activeMember(trx, org.id, connectedIdId, 'ConnectedIdId');
      const { board } = await this.ensure(trx, org.id);
      if (await this.seat(trx, org.id, board.id, connectedIdId)) throw teamsErrors.boardMemberExists();
      await insertEdge(trx, this.clock.now(), { orgId: org.id, sourceId: connectedIdId, targetId: board.id, type: 'member_of', sharePercent });
      await this.audit.append(trx, {
        orgId: org.id, eventType: 'org.board.member_appointed', businessData: { boardId: board.id, connectedIdId, sharePercent, via: 'appointment' },
      });
      return this.get(org.id, trx);
    });
  }

  /**
   * Removes a director; removing the chairman leaves the chair empty.
   * @throws 400 `BOARD_ORG_TYPE`, 404 `NOT_FOUND` (not on the board)
   */
  async remove(org: BoardOrg, connectedIdId: string): Promise<BoardDto> {
    assertBoardOrg(org);
    return this.db.transaction(async (trx) => {
      await lockOrgGraph(trx, org.id);
      const board = (await trx('teams.teams').where({ orgId: org.id, groupKind: 'Board' }).first()) as TeamRow | undefined;
      const seat = board ? await this.seat(trx, org.id, board.id, connectedIdId) : undefined;
      if (!board || !seat) throw teamsErrors.directorNotFound();
      await trx('teams.edges').where({ orgId: org.id, id: seat.id }).delete();
      const wasChairman = board.leadConnectedId === connectedIdId;
      if (wasChairman) await trx('teams.teams').where({ orgId: org.id, id: board.id }).update({ leadConnectedId: null, updatedAt: this.clock.now() });
      await this.audit.append(trx, { orgId: org.id, eventType: 'org.board.member_removed', businessData: { boardId: board.id, connectedIdId, wasChairman } });
      return this.get(org.id, trx);
    });
  }

  /**
   * Sets (or, with `null`, clears) the chairman, who must sit on the board.
   * @throws 400 `BOARD_ORG_TYPE`, 409 `BOARD_MEMBER_REQUIRED`
   */
  async setChairman(org: BoardOrg, leadConnectedId: string | null): Promise<BoardDto> {
    assertBoardOrg(org);
    return this.db.transaction(async (trx) => {
      await lockOrgGraph(trx, org.id);
      const board = (await trx('teams.teams').where({ orgId: org.id, groupKind: 'Board' }).first()) as TeamRow | undefined;
      if (leadConnectedId !== null) {
        const seated = board ? await this.seat(trx, org.id, board.id, leadConnectedId) : undefined;
        if (!board || !seated || !(await peopleOf(trx, org.id, [leadConnectedId])).has(leadConnectedId)) throw teamsErrors.boardMemberRequired();
      }
      if (board && board.leadConnectedId !== leadConnectedId) await this.chair(trx, org.id, board, leadConnectedId, 'appointment');
      return this.get(org.id, trx);
    });
  }

  /**
   * Seats an accepted director (the members plugin's `directorAccepted` hook), inside the
   * acceptance transaction and with no second seal: creates the board when needed, seats the
   * director with `SharePercent` (or updates the share of a returning director) and makes them
   * chairman when the invitation said so. A throw aborts the acceptance.
   * @see docs/api/members.md "Director invitations"
   */
  async seatDirector(event: DirectorAccepted, trx: Knex.Transaction): Promise<void> {
    await lockOrgGraph(trx, event.orgId);
    const { board } = await this.ensure(trx, event.orgId);
    const seat = await this.seat(trx, event.orgId, board.id, event.connectedIdId);
    if (seat) {
      await trx('teams.edges').where({ orgId: event.orgId, id: seat.id }).update({ sharePercent: event.boardSharePercent });
    } else {
      await insertEdge(trx, this.clock.now(), { orgId: event.orgId, sourceId: event.connectedIdId, targetId: board.id, type: 'member_of', sharePercent: event.boardSharePercent });
    }
    await this.audit.append(trx, {
      orgId: event.orgId, eventType: 'org.board.member_appointed', actor: { type: 'account', id: event.accountId },
      businessData: { boardId: board.id, connectedIdId: event.connectedIdId, sharePercent: event.boardSharePercent, via: 'invitation', invitationId: event.invitationId },
    });
    if (event.boardChairman && board.leadConnectedId !== event.connectedIdId) await this.chair(trx, event.orgId, board, event.connectedIdId, 'invitation');
  }

  private async chair(trx: Knex.Transaction, orgId: string, board: TeamRow, leadConnectedId: string | null, via: string): Promise<void> {
    await trx('teams.teams').where({ orgId, id: board.id }).update({ leadConnectedId, updatedAt: this.clock.now() });
    await this.audit.append(trx, {
      orgId, eventType: 'org.board.chairman_changed',
      businessData: { boardId: board.id, previousChairmanConnectedId: board.leadConnectedId, chairmanConnectedId: leadConnectedId, via },
    });
  }

  private async seat(trx: Knex.Transaction, orgId: string, boardId: string, connectedIdId: string): Promise<EdgeRow | undefined> {
    return (await trx('teams.edges').where({ orgId, type: 'member_of', sourceId: connectedIdId, targetId: boardId }).first()) as EdgeRow | undefined;
  }

  /** The board, created (with `org.board.created`) when missing. The caller holds the graph lock. */
  private async ensure(trx: Knex.Transaction, orgId: string): Promise<{ board: TeamRow; created: boolean }> {
    const found = (await trx('teams.teams').where({ orgId, groupKind: 'Board' }).first()) as TeamRow | undefined;
    if (found) return { board: found, created: false };
    const now = this.clock.now();
    const [board] = (await trx('teams.teams').insert({
      id: randomUUID(), orgId, groupKind: 'Board', name: 'Board of directors', kind: null, leadConnectedId: null, parentTeamId: null, createdAt: now, updatedAt: now,
    }).returning('*')) as TeamRow[];
    await this.audit.append(trx, { orgId, eventType: 'org.board.created', businessData: { boardId: board.id } });
    return { board, created: true };
  }
}

/** @throws 400 `BOARD_ORG_TYPE` outside Corporation and Project organizations */
export function assertBoardOrg(org: BoardOrg): void {
  if (!DIRECTOR_ORG_TYPES.has(org.type)) throw teamsErrors.boardOrgType(org.type);
}
