export { EgressClient, parseTarget, type EgressOptions } from './egress-client.ts';
export { EgressError, type Egress, type EgressFailureClass, type EgressFetch, type EgressPostOptions, type EgressResponse, type FetchOptions } from './egress.types.ts';
export { toFetch } from './egress-fetch.ts';
export { judgeAddress, type AddressVerdict, type BlockedReason } from './address-policy.ts';
export type { Resolver } from './guarded-connector.ts';
