import { coreRefs, inject, injectable, type Clock, type Database } from '../../core/index.ts';
import { orgsRefs, type MembershipsService } from '../orgs/api.ts';
import { accountsQuery, fanOut } from './fan-out.ts';
import type { NotifyInput, NotifyService } from './service-interfaces.ts';

/**
 * `notifications.notify`: notifications for given accounts or for an organization's active Owners,
 * inserted in one statement.
 * @see docs/api/notifications.md "For plugins"
 */
@injectable()
export class NotifierService implements NotifyService {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(orgsRefs.memberships.id) private readonly memberships: MembershipsService,
  ) {}

  async notify(input: NotifyInput): Promise<number> {
    const knex = this.db.knex;
    let recipients;
    if (input.recipients === 'owners') {
      if (!input.orgId) throw new Error("notify: recipients 'owners' needs an orgId");
      recipients = this.memberships.activeAccountsQuery(input.orgId, { roles: ['Owner'] });
    } else {
      if (input.recipients.length === 0) return 0;
      recipients = accountsQuery(knex, input.recipients);
    }
    return fanOut(knex, recipients, {
      orgId: input.orgId, category: input.category, title: input.title, body: input.body, link: input.link ?? null, announcementId: null, createdAt: this.clock.now(),
    });
  }
}
