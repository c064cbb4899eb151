import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { TestApp } from './test-app.js';

/**
 * The REST contract: every response a test receives from a documented operation must have a status the
 * document lists for that operation and a body matching the schema documented for that status. The document is
 * the server's own `/openapi.json`; paths are relative to its one server (REST_BASE_PATH).
 */
export interface OpenApiDocument {
  servers: { url: string }[];
  paths: Record<
    string,
    Record<string, { operationId: string; responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
  >;
  components: { schemas: Record<string, unknown> };
}

export interface ContractCheck {
  /** The operation answering `method path`, or undefined for a path or method the document does not have. */
  operationOf(method: string, path: string): string | undefined;
  /**
   * Problems of one response, empty when it matches the document (or is outside it). A response in a documented
   * media type other than JSON (an export's CSV) is checked for its status and media type only.
   */
  problemsOf(method: string, path: string, status: number, body: unknown, contentType?: string | null): string[];
}

const contracts = new WeakMap<TestApp, Promise<ContractCheck>>();

/** The contract of a running server, fetched and compiled once per server. */
export function contractOf(server: TestApp): Promise<ContractCheck> {
  let contract = contracts.get(server);
  if (!contract) {
    contract = fetch(server.url('/openapi.json')).then(async (response) => compileContract((await response.json()) as OpenApiDocument));
    contracts.set(server, contract);
  }
  return contract;
}

export function compileContract(document: OpenApiDocument): ContractCheck {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'openapi.json', components: document.components }, 'openapi.json');
  const operations = Object.entries(document.paths).map(([template, methods]) => ({
    // `{tuid}` matches one path segment; fixed segments are preferred, as the router prefers them.
    pattern: new RegExp(`^${template.replace(/[.+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
    fixedSegments: template.split('/').filter((segment) => segment !== '' && !segment.startsWith('{')).length,
    template,
    methods,
  }));
  const compiled = new Map<string, ValidateFunction>();
  const find = (method: string, path: string) => {
    const bare = path.split('?')[0]!;
    const matches = operations.filter((operation) => operation.pattern.test(bare) && operation.methods[method.toLowerCase()]);
    matches.sort((a, b) => b.fixedSegments - a.fixedSegments);
    const match = matches[0];
    return match ? { template: match.template, operation: match.methods[method.toLowerCase()]! } : undefined;
  };
  return {
    operationOf: (method, path) => find(method, path)?.operation.operationId,
    problemsOf(method, path, status, body, contentType) {
      const found = find(method, path);
      if (!found) return [];
      const response = found.operation.responses[String(status)];
      if (!response) return [`${method} ${found.template}: status ${status} is not documented`];
      const media = contentType?.split(';')[0]!.trim();
      if (media && media !== 'application/json' && response.content?.[media]) return [];
      const schema = response.content?.['application/json']?.schema;
      if (!schema) return [`${method} ${found.template} ${status}: no JSON schema documented`];
      const key = `${method} ${found.template} ${status}`;
      let validate = compiled.get(key);
      if (!validate) {
        // Refs in the document point at #/components/...; resolve them against the schema registered above.
        validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/')));
        compiled.set(key, validate);
      }
      return validate(body) ? [] : (validate.errors ?? []).map((error) => `${key}: ${error.instancePath || '(body)'} ${error.message}`);
    },
  };
}
