/**
 * The REST requests of the read benchmarks (also the REST side of bench:graphql): `GET /things/{tuid}`,
 * `GET /things/{tuid}/messages?limit=100` and `POST /auth/client-token`, each TUID drawn at random from the 10,000
 * seeded things per request, so the server's caches see a realistic spread instead of one hot key.
 */
import { pick, postJson, type LoadTarget } from '../lib/http-load.js';
import { restBasePath } from '../lib/read-bench.js';
import { seedCredentials } from '../lib/seed-store.js';

export const messagesLimit = 100;

export async function fetchClientToken(baseUrl: string): Promise<string> {
  const answer = (await postJson(`${baseUrl}${restBasePath}/auth/client-token`, {
    client_id: seedCredentials.clientId,
    client_secret: seedCredentials.clientSecret,
  })) as { data?: { token?: string } };
  if (typeof answer.data?.token !== 'string') throw new Error(`no token in the client-token answer: ${JSON.stringify(answer)}`);
  return answer.data.token;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export function restThingTarget(token: string, tuids: readonly string[]): LoadTarget {
  return {
    name: 'GET /things/{tuid}',
    varies: true,
    next: () => ({ method: 'GET', path: `${restBasePath}/things/${encodeURIComponent(pick(tuids))}`, headers: bearer(token) }),
    verifyBody: (body) => body.startsWith('{"data":{') && body.includes('"tuid"'),
  };
}

export function restMessagesTarget(token: string, tuids: readonly string[]): LoadTarget {
  return {
    name: `GET /things/{tuid}/messages?limit=${messagesLimit}`,
    varies: true,
    next: () => ({
      method: 'GET',
      path: `${restBasePath}/things/${encodeURIComponent(pick(tuids))}/messages?limit=${messagesLimit}`,
      headers: bearer(token),
    }),
    verifyBody: (body) => body.startsWith('{"data":[{'),
  };
}

export function clientTokenTarget(): LoadTarget {
  const body = JSON.stringify({ client_id: seedCredentials.clientId, client_secret: seedCredentials.clientSecret });
  return {
    name: 'POST /auth/client-token',
    varies: false,
    next: () => ({ method: 'POST', path: `${restBasePath}/auth/client-token`, body }),
    verifyBody: (answer) => answer.includes('"token"'),
  };
}

/**
 * The ceiling: the constant server's route, sent the same way (a random TUID in the path, the same Authorization
 * header), so the load generator does the same work per request as for the platform's routes.
 */
export function constantTarget(token: string, tuids: readonly string[]): LoadTarget {
  return {
    name: 'constant fastify route (ceiling)',
    varies: true,
    next: () => ({ method: 'GET', path: `/constant/${encodeURIComponent(pick(tuids))}`, headers: bearer(token) }),
    verifyBody: (body) => body.includes('"answer"'),
  };
}

/** One request of each kind before any load: a wrong answer must fail the run, not hide in a throughput figure. */
export async function checkRestAnswers(baseUrl: string, token: string, tuid: string): Promise<void> {
  const thing = (await (await fetchOk(`${baseUrl}${restBasePath}/things/${tuid}`, token)).json()) as { data?: { tuid?: string } };
  if (thing.data?.tuid !== tuid) throw new Error(`GET /things/${tuid} answered ${JSON.stringify(thing).slice(0, 300)}`);
  const messages = (await (await fetchOk(`${baseUrl}${restBasePath}/things/${tuid}/messages?limit=${messagesLimit}`, token)).json()) as {
    data?: unknown[];
  };
  if (messages.data?.length !== messagesLimit)
    throw new Error(`GET /things/${tuid}/messages?limit=${messagesLimit} answered ${messages.data?.length} messages`);
}

async function fetchOk(url: string, token: string): Promise<Response> {
  const response = await fetch(url, { headers: bearer(token) });
  if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${(await response.text()).slice(0, 300)}`);
  return response;
}
