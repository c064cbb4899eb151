import { contractOf } from './openapi-contract.js';
import { testBootstrap, type TestApp } from './test-app.js';

export interface RestResponse<T = unknown> {
  status: number;
  headers: Headers;
  /** Parsed JSON body (undefined when the body is empty or not JSON). */
  body: T;
  text: string;
}

/**
 * A small REST client for tests: real HTTP against the test app, paths relative to REST_BASE_PATH, the bootstrap
 * API client's token fetched once and sent as `Authorization: Bearer`. Every response of a documented operation
 * is checked against the server's OpenAPI document (openapi-contract.ts): an undocumented status or a body that
 * does not match its schema fails the test that received it.
 */
export class RestClient {
  private token: string | undefined;

  constructor(
    private readonly server: TestApp,
    private readonly credentials: { client_id: string; client_secret: string } = {
      client_id: testBootstrap.BOOTSTRAP_CLIENT_ID,
      client_secret: testBootstrap.BOOTSTRAP_CLIENT_SECRET,
    },
  ) {}

  async accessToken(): Promise<string> {
    if (!this.token) {
      const response = await this.request<{ data: { token: string } }>('POST', '/auth/client-token', {
        body: this.credentials,
        auth: false,
      });
      if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${response.text}`);
      this.token = response.body.data.token;
    }
    return this.token;
  }

  // Test bodies are asserted field by field; `any` keeps those assertions short.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
  get<T = any>(path: string, options: RequestOptions = {}) {
    return this.request<T>('GET', path, options);
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see get
  post<T = any>(path: string, body: unknown, options: RequestOptions = {}) {
    return this.request<T>('POST', path, { ...options, body });
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see get
  delete<T = any>(path: string, options: RequestOptions = {}) {
    return this.request<T>('DELETE', path, options);
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see get
  async request<T = any>(method: string, path: string, options: RequestOptions & { body?: unknown } = {}): Promise<RestResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.auth !== false && headers.authorization === undefined) headers.authorization = `Bearer ${await this.accessToken()}`;
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(this.server.url(`${this.server.config.restBasePath}${path}`), { method, headers, body });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const problems = (await contractOf(this.server)).problemsOf(
      method,
      path,
      response.status,
      parsed,
      response.headers.get('content-type'),
    );
    if (problems.length > 0)
      throw new Error(
        `${method} ${path} answered ${response.status} outside openapi.json: ${problems.join('; ')}; body ${text.slice(0, 300)}`,
      );
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** false: send no Authorization header. */
  auth?: boolean;
  /** Sent as is (with the given content-type header), for malformed bodies. */
  rawBody?: string;
}
