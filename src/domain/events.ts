import { EventEmitter } from 'node:events';
import type { CommandAnswered } from './commands/command-types.js';
import type { AlertType, RulePeriodFacts } from './alerts/alert-types.js';
import type { StoredMessage } from './messages/message-types.js';
import type { ThingChanges } from './things/thing-types.js';

/**
 * The typed domain events. Side effects (data feed, subscriptions, command history, alerts) listen here instead
 * of reaching into the code that causes them.
 */
export interface DomainEvents {
  /** A batch of uplink messages was committed to the store (emitted once per batch, after commit). */
  messagesStored: { messages: readonly StoredMessage[] };
  /** A thing answered a command (its history entry is updated): the command, its new status and the answer. */
  commandAnswered: CommandAnswered;
  /** An alert period opened or closed (the alert engine). Times in milliseconds. */
  alertChanged: AlertChanged;
  /**
   * A thing's installation status, group, name or labels changed (a single call or an import; committed), on whose
   * behalf, and each changed field `{from, to}` (things/thing-changes.ts). What webhooks' `thing.changed` carries.
   */
  thingChanged: { organizationId: string; tuid: string; changes: ThingChanges; responsible: string };
  /** An API client was revoked on this instance: its tokens must stop working here at once. */
  apiClientRevoked: { clientId: string };
  /** An MQTT credential was created on this instance (a managed broker provisions it at once). Never relayed. */
  mqttCredentialCreated: { username: string };
  /** An MQTT credential was revoked on this instance: its live connections must close at once. */
  mqttCredentialRevoked: { username: string };
  /** Sign-in sessions ended on this instance (logout, refresh token reuse, user deleted or role changed): their live streams end at once. */
  sessionsEnded: { sessionIds: readonly string[]; reason: SessionEndReason };
  /**
   * A link that carries other instances' events here went down (`up: false`: from now until it is back, their
   * events are missed) or came back. Local only: each instance reports its own links.
   */
  relayLinkChanged: { link: RelayLink; up: boolean };
  /** A webhook endpoint of the organization was created, changed or deleted (the endpoint views reload). */
  webhooksChanged: { organizationId: string };
  /** An alert rule of the organization was created, changed or deleted (the rule indexes reload). */
  alertRulesChanged: { organizationId: string };
  /**
   * A (rule, thing) began waiting out the rule's `for_s` (`pendingSince`), or stopped (null): relayed, so every
   * instance's engine knows what the store holds without asking it per message.
   */
  alertRulePendingChanged: { organizationId: string; ruleId: string; tuid: string; pendingSince: number | null };
}

/** The links that bring other instances' events: the store's NOTIFY channel, the broker's relay topic. */
export type RelayLink = 'store' | 'broker';

/** Why a sign-in session ended, as stored with it. */
export type SessionEndReason =
  'logout' | 'refresh token reused' | 'user deleted' | 'role changed' | 'provider logout' | 'password changed' | 'password reset';

export type DomainEventName = keyof DomainEvents;
export type DomainListener<K extends DomainEventName> = (event: DomainEvents[K]) => void | Promise<void>;

/**
 * A small typed event bus. A listener's failure is reported to `onListenerError` and never reaches the emitter:
 * a broken feed must not fail an ingest that has already committed.
 *
 * Two kinds of listener, because several instances may share one store. `on` hears what happened on this
 * instance: side effects that must happen once in the deployment (the data and alert feeds, answer matching)
 * listen so, and each instance does its own share. `onAnyInstance` also hears what other instances relayed
 * (`emitRelayed`, src/integration/cluster-events.ts): what this instance holds on behalf of its clients (live
 * streams, caches of sessions and tokens) must follow the whole deployment.
 */
export class DomainEventBus {
  private readonly emitter = new EventEmitter();
  private readonly stages = new Map<DomainEventName, AnyInstanceStage<DomainEventName>>();

  constructor(private readonly onListenerError: (error: unknown, event: DomainEventName) => void) {
    this.emitter.setMaxListeners(0);
  }

  /** Events of this instance only. */
  on<K extends DomainEventName>(name: K, listener: DomainListener<K>): () => void {
    return this.listen(`local:${name}`, name, listener);
  }

  /** Events of this instance and those relayed from the deployment's other instances. */
  onAnyInstance<K extends DomainEventName>(name: K, listener: DomainListener<K>): () => void {
    return this.listen(`any:${name}`, name, listener);
  }

  emit<K extends DomainEventName>(name: K, event: DomainEvents[K]): void {
    this.emitter.emit(`local:${name}`, event);
    this.toAnyInstance(name, event);
  }

  /** Whether anything here would hear a relayed `name` (a relay may skip decoding what nobody would hear). */
  hasRelayListeners(name: DomainEventName): boolean {
    return this.emitter.listenerCount(`any:${name}`) > 0;
  }

  /** An event another instance emitted (never emitted again to `on` listeners: its side effects happened there). */
  emitRelayed<K extends DomainEventName>(name: K, event: DomainEvents[K]): void {
    this.toAnyInstance(name, event);
  }

  /**
   * Routes `name`'s events, this instance's and relayed ones alike, through `stage.pass` before its `onAnyInstance`
   * listeners hear them; the stage passes them on, when and as it sees fit, with `deliver`, and is told when the
   * number of those listeners changes. The message relay puts its order buffer here (where local and relayed
   * uplinks meet); without a stage, events go straight through.
   */
  stageAnyInstance<K extends DomainEventName>(
    name: K,
    stage: AnyInstanceStage<K>,
  ): { deliver: (event: DomainEvents[K]) => void; remove: () => void } {
    this.stages.set(name, stage as unknown as AnyInstanceStage<DomainEventName>);
    return {
      deliver: (event) => this.emitter.emit(`any:${name}`, event),
      remove: () => {
        if (this.stages.get(name) === (stage as unknown)) this.stages.delete(name);
      },
    };
  }

  private toAnyInstance<K extends DomainEventName>(name: K, event: DomainEvents[K]): void {
    const stage = this.stages.get(name);
    if (!stage) {
      this.emitter.emit(`any:${name}`, event);
      return;
    }
    try {
      stage.pass(event);
    } catch (error) {
      this.onListenerError(error, name);
    }
  }

  private listen<K extends DomainEventName>(channel: string, name: K, listener: DomainListener<K>): () => void {
    const wrapped = (event: DomainEvents[K]) => {
      try {
        const result = listener(event);
        if (result instanceof Promise) result.catch((error: unknown) => this.onListenerError(error, name));
      } catch (error) {
        this.onListenerError(error, name);
      }
    };
    this.emitter.on(channel, wrapped);
    const any = channel.startsWith('any:');
    if (any) this.stages.get(name)?.listenersChanged(this.emitter.listenerCount(channel));
    return () => {
      this.emitter.off(channel, wrapped);
      if (any) this.stages.get(name)?.listenersChanged(this.emitter.listenerCount(channel));
    };
  }
}

/** What sits between an event and its `onAnyInstance` listeners (`DomainEventBus.stageAnyInstance`). */
export interface AnyInstanceStage<K extends DomainEventName> {
  pass(event: DomainEvents[K]): void;
  /** The number of `onAnyInstance` listeners of the event changed to `count`. */
  listenersChanged(count: number): void;
}

export interface AlertChanged {
  organizationId: string;
  tuid: string;
  /** A built-in type, or a rule's name. */
  alertType: AlertType | string;
  state: 'opened' | 'closed';
  openedAt: number;
  closedAt: number | null;
  /** For `gateway connection lost`: the gateway that fell silent. */
  gatewayTuid?: string | null;
  /** Rule periods (SPEC section 13): the rule, its severity and the value that opened the period. */
  rule?: RulePeriodFacts;
}
