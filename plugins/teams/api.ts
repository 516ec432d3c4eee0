/**
 * The teams plugin's public API: service refs and types other plugins may import (approvals
 * resolves "nearest holder of a role up the requester's reporting tree" through `reporting`;
 * meetings read the board roster through `board`).
 */
import type { Knex } from 'knex';
import { createServiceRef } from '../../core/index.ts';

/** One manager above a person: their membership id and how many reporting steps up they are. */
export interface ManagerInChain {
  connectedIdId: string;
  /** 1 for a direct manager, 2 for a manager's manager, … */
  depth: number;
}

/** Reporting lines as other plugins read them. @see docs/api/teams.md "Reporting lines for other plugins" */
export interface ReportingLines {
  /**
   * Everyone above `connectedId` in the organization's reporting graph (manual and automatic
   * `reporting` edges), nearest first: ordered by depth (the fewest steps by which they are
   * reached), then by id; each person once. Only active members are listed, but the walk goes on
   * through suspended ones and people who left. Approvals take the first entry holding a role.
   * @param trx - read inside the caller's transaction
   */
  managersChain(orgId: string, connectedId: string, trx?: Knex.Transaction): Promise<ManagerInChain[]>;
}

/** A director on the board. @see docs/api/teams.md "The board" */
export interface BoardMemberDto {
  ConnectedIdId: string;
  Name: string;
  Email: string;
  SharePercent: number | null;
  IsChairman: boolean;
  SeatedAt: string;
}

/** `GET /api/org/{slug}/board`. */
export interface BoardDto {
  exists: boolean;
  boardId: string | null;
  chairmanConnectedId: string | null;
  members: BoardMemberDto[];
}

/** The board roster as other plugins read it. */
export interface BoardRoster {
  /** The organization's board (`exists: false` and no members when there is none). */
  get(orgId: string): Promise<BoardDto>;
}

export const teamsRefs = {
  reporting: createServiceRef<ReportingLines>('teams.reporting'),
  board: createServiceRef<BoardRoster>('teams.board'),
};
