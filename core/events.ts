import { Subject, filter, type Observable } from 'rxjs';

/** A domain event on the in-process bus: `type` is a dotted name, `orgId` when organization-scoped. */
export interface DomainEvent<P = Record<string, unknown>> {
  type: string;
  orgId?: string;
  payload: P;
}

/** In-process domain event bus (rxjs) feeding caches, webhooks and notifications. */
export class EventBus {
  private readonly subject = new Subject<DomainEvent>();

  /** Publishes an event to current subscribers (synchronously). */
  emit<P extends Record<string, unknown>>(event: DomainEvent<P>): void {
    this.subject.next(event as DomainEvent);
  }

  /** Events whose type equals `type`, or starts with it when it ends in `.*`. */
  on(type: string): Observable<DomainEvent> {
    const prefix = type.endsWith('.*') ? type.slice(0, -1) : null;
    return this.subject.pipe(filter((e) => (prefix ? e.type.startsWith(prefix) : e.type === type)));
  }

  /** Ends the stream (on shutdown). */
  complete(): void {
    this.subject.complete();
  }
}
