import { randomUUID } from 'node:crypto';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { DomainEventBus } from '../events.js';
import { DuplicateKeyError, conflict, notFound, validationFailed } from '../errors.js';
import {
  checkClientSecret,
  checkCredentialId,
  checkEmail,
  checkMqttCredentialKind,
  checkOrganizationId,
  checkOrganizationName,
  checkPassword,
  checkRole,
  collectProblems,
  parseMqttCredentialKind,
  parseRole,
  slugFromName,
} from './identity-rules.js';
import { generateIdSuffix, generateSecret, hashPassword, hashSecret, verifyPassword } from './secrets.js';
import type { ApiClient, MqttCredential, Organization, User } from './types.js';

export interface IdentityDeps {
  store: Store;
  clock: Clock;
  /** Present in a running platform; the CLI has none (other instances notice a revocation within a second). */
  events?: DomainEventBus;
  /** Set when the platform provisions a broker that needs MQTT passwords in plain text (MQTT_AUTH_SEALING_KEY). */
  sealMqttPassword?: (password: string) => string;
}

/** Creates an organization; its id is derived from the name unless given. CONFLICT when the name or id is taken. */
export async function createOrganization(deps: IdentityDeps, input: { name: string; id?: string }): Promise<Organization> {
  const name = input.name.trim();
  const id = input.id ?? (slugFromName(name) || `org-${generateIdSuffix(4)}`);
  const problems = collectProblems(checkOrganizationName('name', input.name), checkOrganizationId('id', id));
  if (problems.length > 0) throw validationFailed(problems);
  return rethrowDuplicate(`An organization named "${name}" or with id "${id}" already exists.`, () =>
    deps.store.organizations.create({ id, name, createdAt: deps.clock.now() }),
  );
}

/** Creates a user with an argon2id password hash. CONFLICT when the e-mail is taken in the organization. */
export async function createUser(
  deps: IdentityDeps,
  input: { organizationId: string; email: string; password: string; role: string },
): Promise<User> {
  const email = input.email.trim();
  const problems = collectProblems(checkEmail('email', email), checkPassword('password', input.password), checkRole('role', input.role));
  if (problems.length > 0) throw validationFailed(problems);
  await requireOrganization(deps, input.organizationId);
  const user: User = {
    id: randomUUID(),
    organizationId: input.organizationId,
    email,
    role: parseRole(input.role)!,
    createdAt: deps.clock.now(),
  };
  const passwordHash = await hashPassword(input.password);
  return rethrowDuplicate(`A user with e-mail ${email} already exists in this organization.`, () =>
    deps.store.users.create(user, passwordHash),
  );
}

/** Creates an API client; the secret is returned here once and stored only as a hash. */
export async function createApiClient(
  deps: IdentityDeps,
  input: { organizationId: string; name: string; clientId?: string; clientSecret?: string },
): Promise<{ client: ApiClient; clientSecret: string }> {
  const clientId = input.clientId ?? `client-${generateIdSuffix()}`;
  const clientSecret = input.clientSecret ?? generateSecret();
  const problems = collectProblems(
    checkOrganizationName('name', input.name),
    checkCredentialId('clientId', clientId),
    checkClientSecret('clientSecret', clientSecret),
  );
  if (problems.length > 0) throw validationFailed(problems);
  await requireOrganization(deps, input.organizationId);
  const client: ApiClient = {
    clientId,
    organizationId: input.organizationId,
    name: input.name.trim(),
    createdAt: deps.clock.now(),
    revokedAt: null,
  };
  await rethrowDuplicate(`An API client with id ${clientId} already exists.`, () =>
    deps.store.apiClients.create(client, hashSecret(clientSecret)),
  );
  return { client, clientSecret };
}

/** Revokes an API client (its tokens stop working). NOT_FOUND when unknown, already revoked, or of another organization. */
export async function revokeApiClient(deps: IdentityDeps, input: { clientId: string; organizationId?: string }): Promise<void> {
  const revoked = await deps.store.apiClients.revoke(input.clientId, deps.clock.now(), input.organizationId);
  if (!revoked) throw notFound(`No active API client with id ${input.clientId}.`);
  deps.events?.emit('apiClientRevoked', { clientId: input.clientId });
}

/**
 * Creates an MQTT credential; the password is returned once and stored as an argon2id hash (and sealed besides,
 * when a managed broker needs it again: `sealMqttPassword`).
 */
export async function createMqttCredential(
  deps: IdentityDeps,
  input: { organizationId: string; kind: string; username?: string; password?: string },
): Promise<{ credential: MqttCredential; password: string }> {
  const kind = parseMqttCredentialKind(input.kind);
  const username = input.username ?? `${kind ?? 'mqtt'}-${generateIdSuffix()}`;
  const password = input.password ?? generateSecret();
  const problems = collectProblems(
    checkMqttCredentialKind('kind', input.kind),
    checkCredentialId('username', username),
    checkPassword('password', password),
  );
  if (problems.length > 0) throw validationFailed(problems);
  await requireOrganization(deps, input.organizationId);
  const credential: MqttCredential = {
    username,
    organizationId: input.organizationId,
    kind: kind!,
    createdAt: deps.clock.now(),
    revokedAt: null,
  };
  const passwordHash = await hashPassword(password);
  // Brokers authenticate by username alone, so usernames are unique across organizations. The refusal is the same
  // whichever organization holds the name, and says nothing about it (docs/security.md).
  const sealed = deps.sealMqttPassword?.(password);
  await rethrowDuplicate(mqttUsernameTaken(username), () => deps.store.mqttCredentials.create(credential, passwordHash, sealed));
  deps.events?.emit('mqttCredentialCreated', { username });
  return { credential, password };
}

export async function revokeMqttCredential(deps: IdentityDeps, input: { username: string; organizationId?: string }): Promise<void> {
  const revoked = await deps.store.mqttCredentials.revoke(input.username, deps.clock.now(), input.organizationId);
  if (!revoked) throw notFound(`No active MQTT credential named ${input.username}.`);
  deps.events?.emit('mqttCredentialRevoked', { username: input.username });
}

/** The MQTT credential of that name while it is active (not revoked); undefined otherwise. */
export async function activeMqttCredential(deps: IdentityDeps, username: string): Promise<MqttCredential | undefined> {
  const stored = await deps.store.mqttCredentials.getWithPasswordHash(username);
  if (!stored || stored.revokedAt !== null) return undefined;
  const { passwordHash: _hash, ...credential } = stored;
  return credential;
}

/** True while the MQTT credential exists and is not revoked (a connected client's periodic recheck). */
export async function isMqttCredentialActive(deps: IdentityDeps, username: string): Promise<boolean> {
  const stored = await deps.store.mqttCredentials.getWithPasswordHash(username);
  return stored !== undefined && stored.revokedAt === null;
}

export function mqttUsernameTaken(username: string): string {
  return `The MQTT username ${username} is not available: usernames are unique across the platform. Choose another, or leave it out to get a generated one.`;
}

async function requireOrganization(deps: IdentityDeps, organizationId: string): Promise<Organization> {
  const organization = await deps.store.organizations.get(organizationId);
  if (!organization) throw notFound(`No organization with id ${organizationId}.`);
  return organization;
}

async function rethrowDuplicate<T>(message: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof DuplicateKeyError) throw conflict(message);
    throw error;
  }
}

/**
 * Checks an MQTT username and password (broker CONNECT). Undefined when unknown, revoked or wrong; the caller
 * answers all three alike. The argon2id verify runs even for unknown names, so timing does not reveal which.
 */
export async function authenticateMqttCredential(
  deps: IdentityDeps,
  username: string,
  password: string,
): Promise<MqttCredential | undefined> {
  const stored = await deps.store.mqttCredentials.getWithPasswordHash(username);
  const matches = await verifyPassword(stored?.passwordHash ?? (await dummyPasswordHash()), password);
  if (!stored || !matches || stored.revokedAt !== null) return undefined;
  const { passwordHash: _hash, ...credential } = stored;
  return credential;
}

let dummyHash: Promise<string> | undefined;
/** A real argon2id hash of a random secret, made once, to spend the same time on unknown users as on known ones. */
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(generateSecret());
  return dummyHash;
}
