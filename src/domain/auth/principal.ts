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
  /**
   * Set for an identity provider's access token used on REST (OIDC_ACCEPT_ACCESS_TOKENS): the role the map gave it,
   * which limits what it may change. Undefined for an API client (full access, SPEC section 2).
   */
  role?: Role;
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

/** The session id of a principal from an identity provider's access token: no platform session, nothing to end. */
export const providerTokenSessionId = 'provider-access-token';
