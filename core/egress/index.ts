export { EgressClient, parseTarget, type EgressOptions } from './egress-client.ts';
export { EgressError, type Egress, type EgressFailureClass, type EgressPostOptions, type EgressResponse } from './egress.types.ts';
export { judgeAddress, type AddressVerdict, type BlockedReason } from './address-policy.ts';
export type { Resolver } from './guarded-connector.ts';
