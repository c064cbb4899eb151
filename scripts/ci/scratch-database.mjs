// Creates or drops a throw-away PostgreSQL database for one CI run: node scratch-database.mjs create|drop ADMIN_URL NAME
import pg from 'pg';

const [action, adminUrl, name] = process.argv.slice(2);
if (!['create', 'drop'].includes(action) || !adminUrl || !/^[a-z0-9_]+$/.test(name ?? '')) {
  console.error('usage: scratch-database.mjs create|drop ADMIN_URL NAME');
  process.exit(2);
}
const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
try {
  await client.connect();
  await client.query(action === 'create' ? `create database ${name}` : `drop database if exists ${name} with (force)`);
  console.log(`${action === 'create' ? 'created' : 'dropped'} scratch database ${name}`);
} catch (error) {
  console.error(`could not ${action} database ${name}: ${error.message}`);
  process.exitCode = 1;
} finally {
  await client.end().catch(() => {});
}
