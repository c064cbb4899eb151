import type { BootstrapConfig } from '../config/config.js';
import { ConfigError } from '../config/config-error.js';
import { AppError } from '../domain/errors.js';
import {
  createApiClient,
  createMqttCredential,
  createOrganization,
  createUser,
  type IdentityDeps,
} from '../domain/identity/identity-service.js';
import {
  checkClientSecret,
  checkCredentialId,
  checkEmail,
  checkOrganizationName,
  checkPassword,
  collectProblems,
} from '../domain/identity/identity-rules.js';
import { generateSecret } from '../domain/identity/secrets.js';

/** What a first start created. Secrets appear only when they were generated (the operator knows the others). */
export interface BootstrapReport {
  organizationId: string;
  organizationName: string;
  email: string;
  password?: string;
  clientId: string;
  clientSecret?: string;
  mqttUsername: string;
  mqttPassword?: string;
}

const defaultOrganizationName = 'thingdesk';
const defaultEmail = 'admin@thingdesk.local';

/**
 * Checks the BOOTSTRAP_* values the operator set against the identity rules, before anything is created or any
 * port is bound: a value that breaks a rule stops start-up naming its variable, and the store stays empty (a
 * half-created organization would make the next start skip the bootstrap and its one-time secrets).
 */
export function checkBootstrapValues(values: BootstrapConfig): void {
  const [problem] = collectProblems(
    values.organizationName === undefined ? undefined : checkOrganizationName('BOOTSTRAP_ORG', values.organizationName),
    values.email === undefined ? undefined : checkEmail('BOOTSTRAP_EMAIL', values.email.trim()),
    values.password === undefined ? undefined : checkPassword('BOOTSTRAP_PASSWORD', values.password),
    values.clientId === undefined ? undefined : checkCredentialId('BOOTSTRAP_CLIENT_ID', values.clientId),
    values.clientSecret === undefined ? undefined : checkClientSecret('BOOTSTRAP_CLIENT_SECRET', values.clientSecret),
    values.mqttUsername === undefined ? undefined : checkCredentialId('BOOTSTRAP_MQTT_USERNAME', values.mqttUsername),
    values.mqttPassword === undefined ? undefined : checkPassword('BOOTSTRAP_MQTT_PASSWORD', values.mqttPassword),
  );
  if (problem) throw new ConfigError(problem.field, problem.message);
}

/**
 * On an empty store (no organization yet), creates the organization, a Manager, an API client and a gateway MQTT
 * credential from the BOOTSTRAP_* values, generating what is unset. Returns undefined when the store already has
 * an organization, so a second start creates nothing. When two instances race on one store, the loser's
 * organization insert fails with CONFLICT and it treats the store as bootstrapped.
 */
export async function bootstrapIfEmpty(deps: IdentityDeps, values: BootstrapConfig): Promise<BootstrapReport | undefined> {
  if ((await deps.store.organizations.count()) > 0) return undefined;
  const password = values.password ?? generateSecret(18);
  let organization;
  try {
    organization = await asConfigError('BOOTSTRAP_ORG', () =>
      createOrganization(deps, { name: values.organizationName ?? defaultOrganizationName }),
    );
  } catch (error) {
    if (error instanceof AppError && error.code === 'CONFLICT') return undefined;
    throw error;
  }
  const user = await asConfigError({ email: 'BOOTSTRAP_EMAIL', password: 'BOOTSTRAP_PASSWORD' }, () =>
    createUser(deps, { organizationId: organization.id, email: values.email ?? defaultEmail, password, role: 'Manager' }),
  );
  const client = await asConfigError({ clientId: 'BOOTSTRAP_CLIENT_ID', clientSecret: 'BOOTSTRAP_CLIENT_SECRET' }, () =>
    createApiClient(deps, {
      organizationId: organization.id,
      name: 'bootstrap client',
      clientId: values.clientId,
      clientSecret: values.clientSecret,
    }),
  );
  const mqtt = await asConfigError({ username: 'BOOTSTRAP_MQTT_USERNAME', password: 'BOOTSTRAP_MQTT_PASSWORD' }, () =>
    createMqttCredential(deps, {
      organizationId: organization.id,
      kind: 'gateway',
      username: values.mqttUsername,
      password: values.mqttPassword,
    }),
  );
  return {
    organizationId: organization.id,
    organizationName: organization.name,
    email: user.email,
    ...(values.password === undefined && { password }),
    clientId: client.client.clientId,
    ...(values.clientSecret === undefined && { clientSecret: client.clientSecret }),
    mqttUsername: mqtt.credential.username,
    ...(values.mqttPassword === undefined && { mqttPassword: mqtt.password }),
  };
}

/** The lines printed once at the first start: the only time generated secrets are shown. */
export function formatBootstrapReport(report: BootstrapReport, studioUrl: string): string {
  const secret = (value: string | undefined) => value ?? '(as set in the environment)';
  return [
    '',
    'thingdesk: first start, created the initial organization. Keep these values; secrets are not shown again.',
    `  organization    ${report.organizationName} (id ${report.organizationId})`,
    `  manager login   ${report.email} / ${secret(report.password)}`,
    `  API client      ${report.clientId} / ${secret(report.clientSecret)}`,
    `  MQTT gateway    ${report.mqttUsername} / ${secret(report.mqttPassword)}`,
    `  studio          ${studioUrl} (sign in with the manager login)`,
    '',
  ].join('\n');
}

/** Re-raises a validation failure of a bootstrap value as a start-up error naming the BOOTSTRAP_* variable. */
async function asConfigError<T>(variables: string | Record<string, string>, create: () => Promise<T>): Promise<T> {
  try {
    return await create();
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'VALIDATION_FAILED') throw error;
    const problem = error.errors[0];
    const variable = typeof variables === 'string' ? variables : (variables[problem?.field ?? ''] ?? Object.values(variables)[0]!);
    throw new ConfigError(variable, problem?.message ?? error.message);
  }
}
