import type { FieldProblem } from '../errors.js';
import { mqttCredentialKinds, roles, type MqttCredentialKind, type Role } from './types.js';

/**
 * The input rules of identity, one function per value. Each returns a problem naming `field`, or undefined.
 * Shared by the CLI, bootstrap and GraphQL, so a rule is written once.
 */

const organizationIdPattern = /^[a-z0-9-]{1,40}$/;
// Identifiers that become MQTT usernames or token subjects: printable, no spaces, no MQTT wildcards.
const credentialIdPattern = /^[A-Za-z0-9._:@-]{1,128}$/;
// Deliberately loose: one @, something on each side, no spaces. The only real check of an address is mail.
const emailPattern = /^[^\s@]{1,64}@[^\s@]{1,255}$/;
/** The longest e-mail address `emailPattern` admits (64 + 1 + 255): sign-in refuses longer ones unread. */
export const maximumEmailLength = 320;

export const minimumPasswordLength = 8;
export const minimumClientSecretLength = 16;

/**
 * Organization ids an organization may not take: an id is a topic segment (`thingdesk/{org}/up/...`, and where
 * INTEGRATION_TOPIC puts it), and these name the platform's own topic roots (`thingdesk/`, `thingdesk-cluster/`).
 * The one list, checked wherever an organization is created (CLI, bootstrap, the domain's createOrganization).
 */
export const reservedOrganizationIds: ReadonlySet<string> = new Set(['thingdesk', 'thingdesk-cluster']);

export function checkOrganizationId(field: string, value: string): FieldProblem | undefined {
  if (!organizationIdPattern.test(value)) return { field, message: `${field} must be 1-40 characters of a-z, 0-9 and -` };
  if (reservedOrganizationIds.has(value))
    return { field, message: `${field} "${value}" is reserved: it names the platform's own MQTT topics` };
  return undefined;
}

export function checkOrganizationName(field: string, value: string): FieldProblem | undefined {
  const trimmed = value.trim();
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this rejects
  if (trimmed.length === 0 || trimmed.length > 200 || /[\u0000-\u001f\u007f]/.test(trimmed)) {
    return { field, message: `${field} must be 1-200 printable characters` };
  }
  return undefined;
}

export function checkEmail(field: string, value: string): FieldProblem | undefined {
  return emailPattern.test(value) ? undefined : { field, message: `${field} must be an e-mail address like name@example.com` };
}

/**
 * Sign-in's input, checked only for length (an account holds a valid e-mail and name, so a longer one cannot match):
 * what no account can have is refused before it is counted, stored or hashed.
 */
export function checkLoginInputLengths(input: { email: string; password: string; organizationName: string }): FieldProblem[] {
  return collectProblems(
    input.email.trim().length > maximumEmailLength
      ? { field: 'email', message: `email must be at most ${maximumEmailLength} characters` }
      : undefined,
    input.organizationName.trim().length > 200
      ? { field: 'organizationName', message: 'organizationName must be at most 200 characters' }
      : undefined,
    input.password.length > 1024 ? { field: 'password', message: 'password must be at most 1024 characters' } : undefined,
  );
}

export function checkPassword(field: string, value: string): FieldProblem | undefined {
  return value.length >= minimumPasswordLength && value.length <= 1024
    ? undefined
    : { field, message: `${field} must be ${minimumPasswordLength} to 1024 characters` };
}

export function checkCredentialId(field: string, value: string): FieldProblem | undefined {
  return credentialIdPattern.test(value)
    ? undefined
    : { field, message: `${field} must be 1-128 characters of letters, digits and . _ : @ -` };
}

export function checkClientSecret(field: string, value: string): FieldProblem | undefined {
  // Secrets are stored with a fast hash (see secrets.ts), which is only safe when they are long and random.
  return value.length >= minimumClientSecretLength && value.length <= 1024
    ? undefined
    : { field, message: `${field} must be ${minimumClientSecretLength} to 1024 characters` };
}

export function checkRole(field: string, value: string): FieldProblem | undefined {
  return parseRole(value) ? undefined : { field, message: `${field} must be one of ${roles.join(', ')}` };
}

export function checkMqttCredentialKind(field: string, value: string): FieldProblem | undefined {
  return (mqttCredentialKinds as readonly string[]).includes(value.toLowerCase())
    ? undefined
    : { field, message: `${field} must be one of ${mqttCredentialKinds.join(', ')}` };
}

/** Accepts a role in any letter case (`MANAGER` from GraphQL's enum, `manager` from the CLI). */
export function parseRole(value: string): Role | undefined {
  return roles.find((role) => role.toLowerCase() === value.toLowerCase());
}

export function parseMqttCredentialKind(value: string): MqttCredentialKind | undefined {
  return mqttCredentialKinds.find((kind) => kind === value.toLowerCase());
}

/**
 * A slug for an organization id from its name: `Acme Water Oy` becomes `acme-water-oy`. A reserved slug gets `-org`
 * (`thingdesk` becomes `thingdesk-org`): the name was chosen, the id only follows it.
 */
export function slugFromName(name: string): string {
  const slug = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/g, '');
  return reservedOrganizationIds.has(slug) ? `${slug}-org` : slug;
}

/** Collects the problems of several checks; throws nothing. */
export function collectProblems(...problems: (FieldProblem | undefined)[]): FieldProblem[] {
  return problems.filter((p): p is FieldProblem => p !== undefined);
}
