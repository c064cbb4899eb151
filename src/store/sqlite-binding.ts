import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * The SQLite binding for the Node.js that runs us, the one place that loads one (lint refuses a value import of
 * `better-sqlite3` anywhere else).
 *
 * better-sqlite3 12 subclasses `node::ObjectWrap`, which since Node 24 registers an environment cleanup hook per
 * object and removes it in its destructor; a statement collected while no context is entered (a worker thread's
 * teardown, an idle-time collection) then aborts the process (`(env) != nullptr`). better-sqlite3 13 is built on
 * Node-API and has no such destructor, but its prebuilt binary crashes on Node 20's Node-API. So Node 22 and later
 * load 13 (the `better-sqlite3-napi` alias), Node 20 loads 12. Both have the same JavaScript API, described by
 * `@types/better-sqlite3` (docs/decisions.md, "One SQLite binding per Node.js line").
 */
const require = createRequire(import.meta.url);
const nodeMajor = Number(process.versions.node.split('.')[0]);

export const sqliteBindingPackage = nodeMajor >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3';

export const SqliteBinding = require(sqliteBindingPackage) as typeof BetterSqlite3;
