/**
 * A typed service reference: an id string (`'<pluginId>.<name>'`) that carries the service's type.
 *
 * Used as the tsyringe token (`@inject(ref.id)`) and in `definePlugin({ deps })`.
 */
export interface ServiceRef<T> {
  readonly id: string;
  /** Phantom field: never set; it only carries `T` for the type checker. */
  readonly __type?: T;
}

/** Creates a typed service reference. @example const clock = createServiceRef<Clock>('core.clock'); */
export function createServiceRef<T>(id: string): ServiceRef<T> {
  if (!/^[a-z][a-z0-9-]*\.[a-zA-Z][a-zA-Z0-9.]*$/.test(id)) {
    throw new Error(`service ref id "${id}" must look like "<pluginId>.<name>"`);
  }
  return { id };
}

/** A typed extension point: plugins contribute values of type `T`; its owner reads them all. */
export interface ExtensionPointRef<T> {
  readonly id: string;
  readonly __type?: T;
}

/** Creates a typed extension point reference. */
export function createExtensionPoint<T>(id: string): ExtensionPointRef<T> {
  return { id };
}
