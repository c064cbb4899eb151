import type { TestApp } from './test-app.js';
import { testBootstrap } from './test-app.js';

export interface GraphqlResponse {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test bodies are asserted field by field
  body: { data?: any; errors?: { message: string; path?: string[]; extensions?: Record<string, any> }[] };
}

/**
 * A GraphQL client for tests: real HTTP POST to GRAPHQL_PATH (GraphQL over HTTP, asking for
 * application/graphql-response+json), with an optional bearer token.
 */
export class GraphqlClient {
  accessToken: string | undefined;
  refreshToken: string | undefined;
  organizationId: string | undefined;

  constructor(private readonly server: TestApp) {}

  /** Signs in (defaults: the bootstrap Manager) and keeps the tokens for later calls. */
  async login(input: { email?: string; password?: string; organizationName?: string } = {}): Promise<GraphqlResponse> {
    const response = await this.request(
      'mutation Login($input: LoginInput!) { login(loginInput: $input) { accessToken expiresIn refreshExpiresIn refreshToken organizationId } }',
      {
        input: {
          email: input.email ?? testBootstrap.BOOTSTRAP_EMAIL,
          password: input.password ?? testBootstrap.BOOTSTRAP_PASSWORD,
          organizationName: input.organizationName ?? testBootstrap.BOOTSTRAP_ORG,
        },
      },
      { token: null },
    );
    const login = response.body.data?.login;
    if (login) {
      this.accessToken = login.accessToken;
      this.refreshToken = login.refreshToken;
      this.organizationId = login.organizationId;
    }
    return response;
  }

  /** Runs an operation; `token: null` sends no Authorization header, a string sends that token. */
  async request(
    query: string,
    variables?: Record<string, unknown>,
    options: { token?: string | null; accept?: string } = {},
  ): Promise<GraphqlResponse> {
    const token = options.token === undefined ? this.accessToken : options.token;
    const response = await fetch(this.server.url(this.server.config.graphqlPath), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: options.accept ?? 'application/graphql-response+json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as GraphqlResponse['body'] };
  }
}

/** The `extensions.code` of each error, for short assertions. */
export function errorCodes(response: GraphqlResponse): string[] {
  return (response.body.errors ?? []).map((error) => String(error.extensions?.code));
}
