import { createServiceRef, definePlugin } from '../../core/index.ts';
import { membersExtensions } from '../members/api.ts';
import { teamsRefs } from './api.ts';
import { BoardService } from './board.service.ts';
import { ReportingService } from './reporting.service.ts';
import { TeamMembersService } from './team-members.service.ts';
import { TeamsService } from './teams.service.ts';
import { boardRoutes } from './routes/board.route.ts';
import { reportingRoutes } from './routes/reporting.route.ts';
import { teamRoutes } from './routes/teams.route.ts';
import './errors.ts';

/** Internal to this plugin (not in api.ts): the full services behind the routes. */
const teamsServiceRef = createServiceRef<TeamsService>('teams.teams');
const teamMembersRef = createServiceRef<TeamMembersService>('teams.teamMembers');
const reportingServiceRef = createServiceRef<ReportingService>('teams.reportingService');
const boardServiceRef = createServiceRef<BoardService>('teams.boardService');

export default definePlugin({
  id: 'teams',
  deps: { teams: teamsServiceRef, members: teamMembersRef, reporting: reportingServiceRef, board: boardServiceRef },
  register(reg) {
    reg.service(teamsServiceRef, TeamsService);
    reg.service(teamMembersRef, TeamMembersService);
    reg.service(reportingServiceRef, ReportingService);
    reg.service(boardServiceRef, BoardService);
    reg.service(teamsRefs.reporting, ReportingService);
    reg.service(teamsRefs.board, BoardService);
  },
  init({ teams, members, reporting, board }, ctx) {
    ctx.routes(...teamRoutes(teams, members), ...reportingRoutes(reporting), ...boardRoutes(board));
    // A director invitation seats its invitee on the board, inside the acceptance transaction.
    ctx.extend(membersExtensions.directorAccepted, (event, trx) => board.seatDirector(event, trx));
    // A reporting manager set on a member (invitation or member edit) is a manual reporting edge.
    ctx.extend(membersExtensions.managerChanged, (event, trx) => reporting.followManager(event, trx));
  },
});
