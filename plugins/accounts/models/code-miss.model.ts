import { Model } from 'objection';

/**
 * Row of `accounts.code_misses`: one wrong email code, for the guessing budget of its address
 * (counted over a rolling hour, everyone together and per requester).
 * @see docs/api/accounts.md "Limits"
 */
export class CodeMissModel extends Model {
  static override tableName = 'accounts.code_misses';
  id!: string;
  /** Lowercased address the code was for. */
  email!: string;
  /** SHA-256 of the guessing requester's network (IPv4 address, IPv6 /64). */
  requester!: string;
  createdAt!: Date;
}
