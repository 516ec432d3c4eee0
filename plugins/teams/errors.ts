import { aerieError, defineErrorCodes, notFound, validationFailed } from '../../core/index.ts';
import { memberErrors } from '../rbac/api.ts';

/**
 * The teams plugin's own error codes (documented in docs/api/teams.md). `MEMBER_NOT_FOUND` and
 * `MEMBER_NOT_ACTIVE` are rbac's (members, which this plugin requires, requires rbac).
 */
export const teamsErrorCodes = defineErrorCodes('teams', {
  TEAM_NOT_FOUND: { status: 404, description: "unknown team, another organization's team, or the board where a team is meant (`field` when the body named it)" },
  TEAM_PARENT_CYCLE: { status: 409, description: 'the new parent is the team itself or one of its sub-teams (`path`)' },
  TEAM_MEMBER_EXISTS: { status: 409, description: 'the person is already a member of the team' },
  REPORTING_CYCLE: { status: 409, description: 'the reporting edge would close a cycle; `path` lists the connected ids around it' },
  RELATIONSHIP_EXISTS: { status: 409, description: 'the same manual edge (source, target, type) exists' },
  RELATIONSHIP_DERIVED: { status: 409, description: 'only an automatic edge joins the pair; it follows team membership and leads (`teamIds`)' },
  BOARD_ORG_TYPE: { status: 400, description: 'a board outside Corporation and Project organizations (`orgType`)' },
  BOARD_MEMBER_EXISTS: { status: 409, description: 'the person already sits on the board' },
  BOARD_MEMBER_REQUIRED: { status: 409, description: 'the chairman must be a director seated on the board' },
});

type TeamsErrorCodes = typeof teamsErrorCodes;
declare module '../../core/index.ts' {
  interface ErrorCodeRegistry extends TeamsErrorCodes {}
}

/** Errors of the teams plugin. */
export const teamsErrors = {
  ...memberErrors,
  teamNotFound: (field?: string) => aerieError('TEAM_NOT_FOUND', 'Team not found.', field ? { field } : {}),
  parentCycle: (path: string[]) =>
    aerieError('TEAM_PARENT_CYCLE', 'A team cannot be nested under itself or one of its sub-teams.', { field: 'ParentTeamId', path }),
  teamMemberExists: () => aerieError('TEAM_MEMBER_EXISTS', 'This person is already a member of the team.', { field: 'ConnectedIdId' }),
  reportingCycle: (path: string[]) =>
    aerieError('REPORTING_CYCLE', `This reporting line would close a cycle: ${path.join(' → ')}.`, { path }),
  relationshipExists: () => aerieError('RELATIONSHIP_EXISTS', 'This relationship exists already.'),
  relationshipNotFound: () => notFound('No such relationship.'),
  relationshipDerived: (teamIds: string[]) =>
    aerieError('RELATIONSHIP_DERIVED', 'This reporting line comes from team membership; remove the member from the team or change its lead.', { teamIds }),
  selfRelationship: () => validationFailed('A person cannot be related to themselves.', 'TargetConnectedId'),
  teamMemberNotFound: () => notFound('This person is not a member of the team.'),
  boardOrgType: (orgType: string) =>
    aerieError('BOARD_ORG_TYPE', 'A board of directors exists only in Corporation and Project organizations.', { orgType }),
  boardMemberExists: () => aerieError('BOARD_MEMBER_EXISTS', 'This person already sits on the board.', { field: 'ConnectedIdId' }),
  boardMemberRequired: () => aerieError('BOARD_MEMBER_REQUIRED', 'The chairman must be a director seated on the board.', { field: 'LeadConnectedId' }),
  directorNotFound: () => notFound('This person does not sit on the board.'),
};
