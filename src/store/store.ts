import { alertsStore } from './alerts-store.js';
import { alertRulesStore } from './alert-rules-store.js';
import { rulePreviewStore } from './rule-preview-store.js';
import { channelsStore } from './channels-store.js';
import { ruleEvaluationStore } from './rule-evaluation-store.js';
import { auditStore } from './audit-store.js';
import { ambientTransactions } from './store-transaction.js';
import { alertEvaluationStore } from './alert-evaluation-store.js';
import { gatewaysStore } from './gateways-store.js';
import { clusterSecretsStore } from './cluster-secrets-store.js';
import { ssoOneTimeStore } from './sso-one-time-store.js';
import { instancesStore } from './instances-store.js';
import { rateCountsStore } from './rate-counts-store.js';
import { leasesStore } from './leases-store.js';
import { loginAttemptsStore } from './login-attempts-store.js';
import { sessionsStore } from './sessions-store.js';
import { apiClientsStore } from './api-clients-store.js';
import { commandsStore } from './commands-store.js';
import { deadLettersStore } from './dead-letters-store.js';
import { fleetHealthStore } from './fleet-health-store.js';
import { groupsStore } from './groups-store.js';
import { installationsStore } from './installations-store.js';
import { messagesStore } from './messages-store.js';
import { postgresMessageExport } from './postgres-message-export.js';
import { rollupsStore } from './rollups-store.js';
import { thingsStore } from './things-store.js';
import { thingImportStore } from './thing-import-store.js';
import type { Database } from './database.js';
import { mqttClientIdsStore } from './mqtt-client-ids-store.js';
import { mqttCredentialsStore } from './mqtt-credentials-store.js';
import { organizationsStore } from './organizations-store.js';
import { retentionSettingsStore } from './retention-settings-store.js';
import { signingKeysStore } from './signing-keys-store.js';
import { SqliteDirectReads } from './sqlite-direct-reads.js';
import { usersStore } from './users-store.js';
import { webhooksStore } from './webhooks-store.js';
import type { WebhookOutboxHolder } from './webhook-outbox-writer.js';

/** Every entity module over one open database: what the domain receives as its `store`. */
export type Store = ReturnType<typeof createStore>;

export interface StoreOptions {
  /** PostgreSQL: most exports streaming at once, each on a connection of its own outside the pool (default 4). */
  exportConnections?: number;
  /** The webhook endpoints the store's writes match their events against (filled once the view is loaded). */
  webhookOutbox?: WebhookOutboxHolder;
}

export function createStore(database: Database, options: StoreOptions = {}) {
  const { driver } = database;
  // Every module runs its queries in the transaction of Store.transaction when called inside one.
  const { ambientDb: db, transaction, atCommit } = ambientTransactions(database.db, database.dialect);
  const outbox = options.webhookOutbox ?? {};
  const directReads = driver.dialect === 'sqlite' ? new SqliteDirectReads(driver.connection) : undefined;
  // SQLite's heavy reads (series, long message pages, exports, the fleet overview) run on reader threads.
  const readers = driver.dialect === 'sqlite' ? driver.readers : undefined;
  const exportOnPostgres =
    driver.dialect === 'postgres' ? postgresMessageExport(driver.dedicatedClient, options.exportConnections ?? 4) : undefined;
  return {
    dialect: database.dialect,
    ping: () => database.ping(),
    /** Runs `work` in one transaction: every store call inside it (in its async context) commits or rolls back together. */
    transaction,
    audit: auditStore(
      db,
      database.dialect,
      driver.dialect === 'sqlite' ? { connection: driver.connection, directReads: directReads! } : undefined,
      atCommit,
    ),
    organizations: organizationsStore(db),
    retention: retentionSettingsStore(db, directReads),
    users: usersStore(db),
    apiClients: apiClientsStore(db),
    mqttCredentials: mqttCredentialsStore(db),
    mqttClientIds: mqttClientIdsStore(db),
    signingKeys: signingKeysStore(db),
    things: thingsStore(db, database.dialect, directReads, outbox),
    messages: messagesStore(db, directReads, exportOnPostgres, readers),
    rollups: rollupsStore(db, database.dialect, directReads, readers),
    deadLetters: deadLettersStore(db),
    groups: groupsStore(db, database.dialect, outbox),
    thingImport: thingImportStore(db, database.dialect, outbox),
    installations: installationsStore(db, outbox),
    commands: commandsStore(db, outbox),
    alerts: alertsStore(db, database.dialect),
    alertEvaluation: alertEvaluationStore(db, database.dialect, outbox),
    gateways: gatewaysStore(db, database.dialect),
    fleetHealth: fleetHealthStore(db, database.dialect, readers),
    leases: leasesStore(db),
    instances: instancesStore(db),
    clusterSecrets: clusterSecretsStore(db),
    rateCounts: rateCountsStore(db),
    sessions: sessionsStore(db),
    loginAttempts: loginAttemptsStore(db),
    ssoOneTime: ssoOneTimeStore(db),
    webhooks: webhooksStore(db, database.dialect),
    alertRules: alertRulesStore(db),
    rulePreview: rulePreviewStore(db),
    channels: channelsStore(db),
    ruleEvaluation: ruleEvaluationStore(db, database.dialect, outbox),
  };
}
