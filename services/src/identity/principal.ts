import { roleName, type RoleName } from '@oj/contracts/users';

/*
 * The principal's shape, in a leaf that imports nothing of the server. Users, subscriptions and the
 * principal cache name it, and the gateway's request decoration (app/principal.ts) depends on the
 * principal cache: were the type defined there, identity would import the gateway back and the four
 * files would form a cycle. Types flow one way: identity defines the principal, the gateway uses it.
 */

export const roles = roleName.options;
export type Role = RoleName;

/**
 * Who is calling, from a verified access token. Every trade query and command is scoped by
 * `userId` taken from here, never from the request body or path.
 */
export interface Principal {
  userId: string;
  email: string;
  name: string;
  role: Role;
  /** Subscription status code (1 trial, 2 active, 3 expired, 4 canceled, 5 due, 6 pending, 7 unknown). */
  subsStatus: number;
  /** Whether the subscription currently grants access (trial or paid and not past its end; staff roles always). */
  subscriptionActive: boolean;
  verified: boolean;
}
