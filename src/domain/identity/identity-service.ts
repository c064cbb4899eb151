import type { Principal } from '../auth/principal.js';
import { randomUUID } from 'node:crypto';
import { audited } from '../audit/audit-recorder.js';
import { auditFields } from '../audit/audit-types.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { DomainEventBus } from '../events.js';
import { DuplicateKeyError, conflict, notFound, validationFailed, type FieldProblem } from '../errors.js';
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
import { ungatedPasswordHasher, type PasswordHasher } from './password-hashing.js';
import { generateIdSuffix, generateSecret, hashPassword, hashSecret } from './secrets.js';
import type { ApiClient, MqttCredential, Organization, User } from './types.js';

export interface IdentityDeps {
  store: Store;
  clock: Clock;
  /** Present in a running platform; the CLI has none (other instances notice a revocation within a second). */
  events?: DomainEventBus;
  /** Set when the platform provisions a broker that needs MQTT passwords in plain text (MQTT_AUTH_SEALING_KEY). */
  sealMqttPassword?: (password: string) => string;
  /** Where argon2 work runs: the process's capped turns in a running platform; unset (the CLI): argon2 as it is. */
  passwords?: PasswordHasher;
}

function passwordsOf(deps: IdentityDeps): PasswordHasher {
  return deps.passwords ?? ungatedPasswordHasher;
}

/** Creates an organization; its id is derived from the name unless given. CONFLICT when the name or id is taken. */
export async function createOrganization(deps: IdentityDeps, input: { name: string; id?: string; by?: Principal }): Promise<Organization> {
  const name = input.name.trim();
  const id = input.id ?? (slugFromName(name) || `org-${generateIdSuffix(4)}`);
  const problems = collectProblems(checkOrganizationName('name', input.name), checkOrganizationId('id', id));
  if (problems.length > 0) throw validationFailed(problems);
  return rethrowDuplicate(`An organization named "${name}" or with id "${id}" already exists.`, () =>
    audited(deps, input.by, { organizationId: id, action: 'organization.create', target: { type: 'organization', id } }, async () => ({
      result: await deps.store.organizations.create({ id, name, createdAt: deps.clock.now() }),
      after: auditFields({ id, name }),
    })),
  );
}

/** Creates a user with an argon2id password hash. CONFLICT when the e-mail is taken in the organization. */
export async function createUser(
  deps: IdentityDeps,
  input: { organizationId: string; email: string; password: string; role: string; by?: Principal },
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
  const passwordHash = await passwordsOf(deps).hash(input.password);
  return rethrowDuplicate(`A user with e-mail ${email} already exists in this organization.`, () =>
    audited(
      deps,
      input.by,
      { organizationId: user.organizationId, action: 'user.create', target: { type: 'user', id: user.id } },
      async () => ({
        result: await deps.store.users.create(user, passwordHash),
        after: auditFields({ email: user.email, role: user.role }),
      }),
    ),
  );
}

/** Creates an API client; the secret is returned here once and stored only as a hash. */
export async function createApiClient(
  deps: IdentityDeps,
  input: { organizationId: string; name: string; clientId?: string; clientSecret?: string; by?: Principal },
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
    audited(
      deps,
      input.by,
      { organizationId: client.organizationId, action: 'api_client.create', target: { type: 'api_client', id: clientId } },
      async () => ({
        result: await deps.store.apiClients.create(client, hashSecret(clientSecret)),
        after: auditFields({ clientId, name: client.name }),
      }),
    ),
  );
  return { client, clientSecret };
}

/** Revokes an API client (its tokens stop working). NOT_FOUND when unknown, already revoked, or of another organization. */
export async function revokeApiClient(
  deps: IdentityDeps,
  input: { clientId: string; organizationId?: string; by?: Principal },
): Promise<void> {
  const client = await deps.store.apiClients.get(input.clientId);
  const organizationId = input.organizationId ?? client?.organizationId;
  if (!client || client.revokedAt !== null || organizationId !== client.organizationId)
    throw notFound(`No active API client with id ${input.clientId}.`);
  await audited(
    deps,
    input.by,
    { organizationId, action: 'api_client.revoke', target: { type: 'api_client', id: input.clientId } },
    async () => {
      const revoked = await deps.store.apiClients.revoke(input.clientId, deps.clock.now(), input.organizationId);
      if (!revoked) throw notFound(`No active API client with id ${input.clientId}.`);
      return { result: undefined, before: auditFields({ revoked: false }), after: auditFields({ revoked: true }) };
    },
  );
  deps.events?.emit('apiClientRevoked', { clientId: input.clientId });
}

/**
 * Creates an MQTT credential; the password is returned once and stored as an argon2id hash (and sealed besides,
 * when a managed broker needs it again: `sealMqttPassword`).
 */
export async function createMqttCredential(
  deps: IdentityDeps,
  input: { organizationId: string; kind: string; username?: string; password?: string; by?: Principal },
): Promise<{ credential: MqttCredential; password: string }> {
  const checked = checkMqttCredentialInput(input);
  if (checked.problems.length > 0) throw validationFailed(checked.problems);
  await requireOrganization(deps, input.organizationId);
  const prepared = await prepareMqttCredential(deps, input.organizationId, checked);
  // Brokers authenticate by username alone, so usernames are unique across organizations. The refusal is the same
  // whichever organization holds the name, and says nothing about it (docs/security.md).
  const { credential } = prepared;
  await rethrowDuplicate(mqttUsernameTaken(credential.username), () =>
    audited(
      deps,
      input.by,
      {
        organizationId: credential.organizationId,
        action: 'mqtt_credential.create',
        target: { type: 'mqtt_credential', id: credential.username },
      },
      async () => ({
        result: await deps.store.mqttCredentials.create(credential, prepared.passwordHash, prepared.sealedPassword),
        after: auditFields({ username: credential.username, kind: credential.kind }),
      }),
    ),
  );
  announceMqttCredential(deps, prepared.credential.username);
  return { credential: prepared.credential, password: prepared.password };
}

/** A credential's input checked by the rules (kind, username, password), its generated parts filled in. */
export interface CheckedMqttCredential {
  kind: MqttCredential['kind'];
  username: string;
  password: string;
  /** Whether the password was generated here (an import returns only those). */
  generated: boolean;
  problems: FieldProblem[];
}

/**
 * The one statement of a credential's rules, for a single creation and an import alike: `kind` gateway or
 * integration; `username` (generated when absent) and `password` (generated when absent) by the identity rules.
 * An import names its problems by the same columns.
 */
export function checkMqttCredentialInput(input: { kind: string; username?: string; password?: string }): CheckedMqttCredential {
  const kind = parseMqttCredentialKind(input.kind);
  const username = input.username ?? `${kind ?? 'mqtt'}-${generateIdSuffix()}`;
  const password = input.password ?? generateSecret();
  const problems = collectProblems(
    checkMqttCredentialKind('kind', input.kind),
    checkCredentialId('username', username),
    checkPassword('password', password),
  );
  return { kind: kind!, username, password, generated: input.password === undefined, problems };
}

/** What is stored of a checked credential: the record, the password's hash and, for a managed broker, its sealed form. */
export async function prepareMqttCredential(deps: IdentityDeps, organizationId: string, checked: CheckedMqttCredential) {
  const credential: MqttCredential = {
    username: checked.username,
    organizationId,
    kind: checked.kind,
    createdAt: deps.clock.now(),
    revokedAt: null,
  };
  const passwordHash = await passwordsOf(deps).hash(checked.password);
  return { credential, password: checked.password, passwordHash, sealedPassword: deps.sealMqttPassword?.(checked.password) };
}

/** After the credential is committed: a managed broker (MQTT_AUTH=mosquitto-dynsec) provisions it on this event. */
export function announceMqttCredential(deps: IdentityDeps, username: string): void {
  deps.events?.emit('mqttCredentialCreated', { username });
}

export async function revokeMqttCredential(
  deps: IdentityDeps,
  input: { username: string; organizationId?: string; by?: Principal },
): Promise<void> {
  const credential = await deps.store.mqttCredentials.getWithPasswordHash(input.username);
  const organizationId = input.organizationId ?? credential?.organizationId;
  if (!credential || credential.revokedAt !== null || organizationId !== credential.organizationId)
    throw notFound(`No active MQTT credential named ${input.username}.`);
  await audited(
    deps,
    input.by,
    { organizationId, action: 'mqtt_credential.revoke', target: { type: 'mqtt_credential', id: input.username } },
    async () => {
      const revoked = await deps.store.mqttCredentials.revoke(input.username, deps.clock.now(), input.organizationId);
      if (!revoked) throw notFound(`No active MQTT credential named ${input.username}.`);
      return { result: undefined, before: auditFields({ revoked: false }), after: auditFields({ revoked: true }) };
    },
  );
  deps.events?.emit('mqttCredentialRevoked', { username: input.username });
  // Its client ids are free again (MQTT_AUTH=http's owners; a gateway rotating its credential keeps its id). Were
  // this to fail, the next credential would still take them over: a revoked owner holds nothing.
  await deps.store.mqttClientIds.deleteOwnedBy(input.username);
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
  verify: PasswordVerifier = gatedVerifier(deps),
): Promise<MqttCredential | undefined> {
  const stored = await deps.store.mqttCredentials.getWithPasswordHash(username);
  const matches = await verify(stored?.passwordHash ?? (await dummyPasswordHash()), password);
  if (!stored || !matches || stored.revokedAt !== null) return undefined;
  const { passwordHash: _hash, ...credential } = stored;
  return credential;
}

/** Checks a password against an argon2id hash (the capped `verifyPassword` of the deps; a test passes a spy). */
export type PasswordVerifier = (storedHash: string, password: string) => Promise<boolean>;

function gatedVerifier(deps: IdentityDeps): PasswordVerifier {
  return (storedHash, password) => passwordsOf(deps).verify(storedHash, password);
}

/** The platform's own broker user (MQTT_URL's), its password hashed with argon2id once at start. */
export interface PlatformBrokerUser {
  username: string;
  passwordHash: Promise<string>;
}

/**
 * MQTT_AUTH=http: who a broker's client is, the platform's own user or a credential of the store. Both take the
 * same path at the same cost (one store read, one argon2id verification), so the platform's username cannot be
 * told from the others by the time of a wrong answer; the platform's user wins over a credential of its name.
 */
export async function authenticateBrokerUser(
  deps: IdentityDeps,
  username: string,
  password: string,
  platform: PlatformBrokerUser,
  verify: PasswordVerifier = gatedVerifier(deps),
): Promise<MqttCredential | 'platform' | undefined> {
  // An MQTT_URL without a user names no platform user: an empty username is nobody's (no credential has one).
  if (platform.username === '' || username !== platform.username) return authenticateMqttCredential(deps, username, password, verify);
  await deps.store.mqttCredentials.getWithPasswordHash(username);
  return (await verify(await platform.passwordHash, password)) ? 'platform' : undefined;
}

let dummyHash: Promise<string> | undefined;
/** A real argon2id hash of a random secret, made once, to spend the same time on unknown users as on known ones. */
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(generateSecret());
  return dummyHash;
}
