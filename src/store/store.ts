import { alertsStore } from './alerts-store.js';
import { alertEvaluationStore } from './alert-evaluation-store.js';
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
import type { Database } from './database.js';
import { mqttCredentialsStore } from './mqtt-credentials-store.js';
import { organizationsStore } from './organizations-store.js';
import { retentionSettingsStore } from './retention-settings-store.js';
import { signingKeysStore } from './signing-keys-store.js';
import { SqliteDirectReads } from './sqlite-direct-reads.js';
import { usersStore } from './users-store.js';

/** Every entity module over one open database: what the domain receives as its `store`. */
export type Store = ReturnType<typeof createStore>;

export interface StoreOptions {
  /** PostgreSQL: most exports streaming at once, each on a connection of its own outside the pool (default 4). */
  exportConnections?: number;
}

export function createStore(database: Database, options: StoreOptions = {}) {
  const { db, driver } = database;
  const directReads = driver.dialect === 'sqlite' ? new SqliteDirectReads(driver.connection) : undefined;
  const exportOnPostgres =
    driver.dialect === 'postgres' ? postgresMessageExport(driver.dedicatedClient, options.exportConnections ?? 4) : undefined;
  return {
    dialect: database.dialect,
    ping: () => database.ping(),
    organizations: organizationsStore(db),
    retention: retentionSettingsStore(db, directReads),
    users: usersStore(db),
    apiClients: apiClientsStore(db),
    mqttCredentials: mqttCredentialsStore(db),
    signingKeys: signingKeysStore(db),
    things: thingsStore(db, directReads),
    messages: messagesStore(db, directReads, exportOnPostgres),
    rollups: rollupsStore(db, database.dialect, directReads),
    deadLetters: deadLettersStore(db),
    groups: groupsStore(db, database.dialect),
    installations: installationsStore(db),
    commands: commandsStore(db),
    alerts: alertsStore(db),
    alertEvaluation: alertEvaluationStore(db, database.dialect),
    fleetHealth: fleetHealthStore(db, database.dialect),
    leases: leasesStore(db),
    instances: instancesStore(db),
    rateCounts: rateCountsStore(db),
    sessions: sessionsStore(db),
    loginAttempts: loginAttemptsStore(db),
  };
}
