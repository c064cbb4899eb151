import { connectAsync, type MqttClient } from 'mqtt';
import type { DomainEventBus } from '../domain/events.js';
import type { MqttCredential, MqttCredentialKind } from '../domain/identity/types.js';
import { brokerAclOf, platformAcl, type BrokerAcl } from '../mqtt/access-rules.js';
import { DynsecClient, type DynsecAnswer, type DynsecCommand } from '../mqtt/dynsec-client.js';
import type { Logger } from '../observability/logger.js';

/** Marks the broker clients the platform made, so it never touches the operator's own (the admin, a bridge...). */
export const managedMarker = 'thingdesk';
const platformRole = 'thingdesk-platform';

export interface DynsecCredentialsDeps {
  /** MQTT_URL: its user is a dynamic security administrator (`mosquitto_ctrl dynsec init`). */
  url: string;
  instanceId: string;
  feedTemplate: string;
  /** Every active credential with its sealed password, from the store. */
  activeCredentials: () => Promise<(MqttCredential & { sealedPassword: string | null })[]>;
  unseal: (sealed: string) => string;
  events: DomainEventBus;
  logger: Logger;
  /** How often the broker is compared with the store (drift, credentials made by the CLI or another instance). */
  reconcileMs: number;
}

/**
 * MQTT_AUTH=mosquitto-dynsec: keeps Mosquitto's dynamic security in step with the platform's MQTT credentials, so
 * the access rules of SPEC section 6 hold on the external broker as on the embedded one. Each credential is a
 * broker client with one role per organization and kind, whose ACLs are `brokerAclOf` (the embedded broker's rules
 * written as patterns), bound to one client id, its username (`clientIdOf`); the platform's own user gets
 * `platformAcl` and nothing else beyond its admin role.
 *
 * A credential made or revoked on this instance is applied at once (deleting a client makes the broker disconnect
 * it); a comparison with the store at start and every `reconcileMs` repairs the rest: a credential made by the CLI
 * or while the broker was down, a client deleted by hand, a broker that lost its state. Passwords come from their
 * sealed copies (the broker takes them only in plain text); a credential without one (made before
 * MQTT_AUTH_SEALING_KEY was set) cannot be provisioned and is logged, to be replaced.
 */
export class DynsecCredentials {
  private client: MqttClient | undefined;
  private dynsec: DynsecClient | undefined;
  private timer: NodeJS.Timeout | undefined;
  private queue: Promise<void> = Promise.resolve();
  private readonly unprovisionable = new Set<string>();
  private readonly stopListening: (() => void)[] = [];

  constructor(private readonly deps: DynsecCredentialsDeps) {}

  async start(): Promise<void> {
    const client = await connectAsync(this.deps.url, {
      clientId: `${this.deps.instanceId}-dynsec`,
      protocolVersion: 5,
      clean: true,
      reconnectPeriod: 1000,
      connectTimeout: 10_000,
    });
    this.client = client;
    this.dynsec = new DynsecClient(client);
    client.on('error', (error) => this.deps.logger.warn({ err: error.message }, 'dynamic security: broker error'));
    await this.dynsec.listen();
    await this.reconcile();
    // A broker that restarted may have lost its state: listen again and compare at once.
    client.on(
      'connect',
      () =>
        void this.dynsec?.listen().then(
          () => this.reconcileSoon(),
          () => undefined,
        ),
    );
    this.stopListening.push(
      this.deps.events.on('mqttCredentialCreated', () => this.reconcileSoon()),
      this.deps.events.onAnyInstance('mqttCredentialRevoked', () => this.reconcileSoon()),
    );
    this.timer = setInterval(() => this.reconcileSoon(), this.deps.reconcileMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    for (const stop of this.stopListening.splice(0)) stop();
    await this.queue;
    const client = this.client;
    this.client = undefined;
    await client?.endAsync(false);
  }

  /** Compares the broker with the store now, and resolves when done (after a change the caller must see applied). */
  async syncNow(): Promise<void> {
    this.reconcileSoon();
    await this.queue;
  }

  /** Runs a comparison after the one in progress (several requests while one runs make one more, not many). */
  private reconcileSoon(): void {
    this.queue = this.queue
      .then(() => this.reconcile())
      .catch((error: unknown) =>
        this.deps.logger.warn({ err: (error as Error).message }, 'dynamic security: reconciliation failed; retried'),
      );
  }

  private async reconcile(): Promise<void> {
    const dynsec = this.dynsec;
    if (!dynsec || !this.client?.connected) return;
    const [credentials, [clientList], [roleList]] = await Promise.all([
      this.deps.activeCredentials(),
      dynsec.run([{ command: 'listClients', verbose: true }]),
      dynsec.run([{ command: 'listRoles', verbose: false }]),
    ]);
    const clients = listed<BrokerClient>(clientList);
    const roles = new Set(listed<string>(roleList));
    const known = new Map(clients.map((client) => [client.username, client]));
    const wanted = new Map(credentials.map((credential) => [credential.username, credential]));
    const adminUsername = decodeURIComponent(new URL(this.deps.url).username);

    await this.grantPlatformRole(dynsec, roles, known.get(adminUsername), adminUsername);
    const commands: DynsecCommand[] = [];
    // Roles before clients (the commands of one message run in order): one per organization and kind.
    for (const credential of wanted.values()) {
      const role = roleName(credential.organizationId, credential.kind);
      if (!roles.has(role)) {
        roles.add(role);
        commands.push(...roleCommands(role, brokerAclOf(credential.kind, credential.organizationId, this.deps.feedTemplate)));
      }
      const existing = known.get(credential.username);
      if (existing && existing.textname !== managedMarker) {
        this.warnOnce(credential.username, 'a broker client of that name was not made by the platform; left as it is');
      } else if (existing && existing.clientid !== clientIdOf(credential.username)) {
        // Made before client ids were bound (or changed by hand): bound now; Mosquitto disconnects its clients.
        commands.push({ command: 'setClientId', username: credential.username, clientid: clientIdOf(credential.username) });
      } else if (!existing) {
        if (credential.sealedPassword === null) {
          this.warnOnce(credential.username, 'made before MQTT_AUTH_SEALING_KEY was set: its password cannot be provisioned; replace it');
          continue;
        }
        commands.push({
          command: 'createClient',
          username: credential.username,
          password: this.deps.unseal(credential.sealedPassword),
          clientid: clientIdOf(credential.username),
          textname: managedMarker,
          textdescription: `${credential.kind} of ${credential.organizationId}`,
          roles: [{ rolename: role }],
        });
      }
    }
    // Revoked or deleted in the store: the broker forgets the client and disconnects it.
    for (const client of clients) {
      if (client.textname === managedMarker && !wanted.has(client.username))
        commands.push({ command: 'deleteClient', username: client.username });
    }
    const answers = await dynsec.run(commands);
    answers.forEach((answer, i) => {
      if (answer.error && !harmless.test(answer.error))
        this.deps.logger.warn({ command: commands[i]!.command, error: answer.error }, 'dynamic security refused a command');
    });
  }

  /**
   * The platform's own user gets its topics through a role of its own. Mosquitto disconnects a client whose roles
   * change, this connection included, so the grant is sent without waiting for an answer and the reconnection is
   * awaited instead. It happens once per broker state, before the consumers and publisher connect.
   */
  private async grantPlatformRole(
    dynsec: DynsecClient,
    roles: Set<string>,
    admin: BrokerClient | undefined,
    adminUsername: string,
  ): Promise<void> {
    if (!roles.has(platformRole)) {
      await dynsec.run(roleCommands(platformRole, platformAcl(this.deps.feedTemplate)));
      roles.add(platformRole);
    }
    if (!admin) {
      this.warnOnce(adminUsername, 'the MQTT_URL user is not a dynamic security client: it cannot be given the platform role');
      return;
    }
    if (admin.roles?.some((role) => role.rolename === platformRole)) return;
    const client = this.client!;
    const reconnected = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('not reconnected after taking the platform role')), 15_000);
      client.once('connect', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    await dynsec.send([{ command: 'addClientRole', username: adminUsername, rolename: platformRole }]);
    await reconnected;
    await dynsec.listen();
    this.deps.logger.info({ username: adminUsername, role: platformRole }, 'dynamic security: the platform user took its role');
  }

  private warnOnce(username: string, why: string): void {
    if (this.unprovisionable.has(username)) return;
    this.unprovisionable.add(username);
    this.deps.logger.warn({ username }, `dynamic security: credential not provisioned: ${why}`);
  }
}

interface BrokerClient {
  username: string;
  clientid?: string;
  textname?: string;
  roles?: { rolename: string }[];
}

// What a repeated command answers when another instance got there first.
const harmless = /already exists|not found/i;

/**
 * The one client id a credential's broker client may connect with: its username. Dynamic security checks a client's
 * `clientid` at CONNECT, before Mosquitto lets a connection take over the session of that id, and has no prefix
 * rule; so a credential is one connection, and no other credential can reach its session (issue 32 finding 4;
 * the rule of every broker path is src/domain/identity/client-id-ownership.ts).
 */
export function clientIdOf(username: string): string {
  return username;
}

function roleName(organizationId: string, kind: MqttCredentialKind): string {
  return `thingdesk-${organizationId}-${kind}`;
}

function roleCommands(rolename: string, acl: BrokerAcl): DynsecCommand[] {
  const acls = [
    ...acl.publish.map((topic) => ({ acltype: 'publishClientSend', topic, allow: true })),
    ...acl.subscribe.flatMap((topic) => [
      { acltype: 'subscribePattern', topic, allow: true },
      { acltype: 'publishClientReceive', topic, allow: true },
    ]),
  ];
  return [{ command: 'createRole', rolename, textname: managedMarker, acls }];
}

function listed<T>(answer: DynsecAnswer | undefined): T[] {
  if (answer?.error) throw new Error(`dynamic security: ${answer.command}: ${answer.error}`);
  const data = answer?.data as { clients?: T[]; roles?: T[] } | undefined;
  return data?.clients ?? data?.roles ?? [];
}
