/** What the OpenAPI document tests share: a started platform and the document it serves at /openapi.json. */
import type { OpenApiDocument } from '../../helpers/openapi-contract.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/** The served document, with the parts of its operations the tests read. */
export type ServedDocument = OpenApiDocument & {
  paths: Record<string, Record<string, { operationId: string; requestBody?: unknown; security?: unknown[] }>>;
};

export async function startWithDocument(): Promise<{ server: TestApp; document: ServedDocument }> {
  const server = await startTestApp();
  const document = (await (await fetch(server.url('/openapi.json'))).json()) as ServedDocument;
  return { server, document };
}
