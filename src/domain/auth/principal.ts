import type { Role } from '../identity/types.js';

/** Who is calling, as established from a verified token. Every domain function that reads or writes takes one. */
export type Principal = ClientPrincipal | UserPrincipal;

/** A REST API client (SPEC section 2): full access to its organization's things. */
export interface ClientPrincipal {
  kind: 'client';
  organizationId: string;
  clientId: string;
  /** What command and installation histories record as `responsible`. */
  responsible: string;
}

/** A signed-in user (GraphQL): access depends on the role. */
export interface UserPrincipal {
  kind: 'user';
  organizationId: string;
  userId: string;
  email: string;
  role: Role;
  sessionId: string;
  responsible: string;
}
