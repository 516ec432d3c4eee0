/**
 * The notifications plugin's service interfaces: what other plugins may call through its refs
 * (`api.ts`). The classes that implement them stay inside the plugin.
 */

/** What a notification is about: `Org` for an organization's announcements, `System` for Aerie's own notices. */
export type NotificationCategory = 'Org' | 'System';

/** A notification to create for some accounts. */
export interface NotifyInput {
  orgId: string | null;
  /** Account ids, or `'owners'`: the active Owners of `orgId`. */
  recipients: readonly string[] | 'owners';
  category: NotificationCategory;
  title: string;
  body: string;
  /** A path or URL the notification opens. */
  link?: string;
}

/** `notifications.notify`: puts a notification in accounts' inboxes (one statement, whatever their number). */
export interface NotifyService {
  /** @returns how many notifications were created. */
  notify(input: NotifyInput): Promise<number>;
}
