import { query } from './graphql-client';

export interface Me {
  id: string;
  email: string;
  role: 'MANAGER' | 'INSTALLER' | 'VIEWER';
  organizationId: string;
}

const capabilitiesQuery = /* GraphQL */ `
  query StudioCapabilities {
    me {
      id
      email
      role
      organizationId
    }
    organization {
      id
      name
    }
    __schema {
      queryType {
        fields {
          name
        }
      }
      mutationType {
        fields {
          name
        }
      }
      subscriptionType {
        fields {
          name
        }
      }
    }
  }
`;

interface CapabilitiesResult {
  me: Me;
  organization: { id: string; name: string };
  __schema: {
    queryType: { fields: { name: string }[] };
    mutationType: { fields: { name: string }[] } | null;
    subscriptionType: { fields: { name: string }[] } | null;
  };
}

/**
 * What the signed-in user may do, read from the schema the platform gives their role (each role gets its own,
 * cut from the full schema): a control is shown only when its operation is in the schema. No list of roles and
 * rights lives in the studio.
 */
class Capabilities {
  me = $state<Me | null>(null);
  organizationName = $state('');
  #operations = $state<Set<string>>(new Set());
  #subscriptions = $state<Set<string>>(new Set());

  async load(): Promise<void> {
    const result = await query<CapabilitiesResult>(capabilitiesQuery);
    this.me = result.me;
    this.organizationName = result.organization.name;
    const names = [...result.__schema.queryType.fields, ...(result.__schema.mutationType?.fields ?? [])].map((field) => field.name);
    this.#operations = new Set(names);
    this.#subscriptions = new Set((result.__schema.subscriptionType?.fields ?? []).map((field) => field.name));
  }

  clear(): void {
    this.me = null;
    this.organizationName = '';
    this.#operations = new Set();
    this.#subscriptions = new Set();
  }

  /** Whether the role's schema has this query or mutation field. */
  can(operation: string): boolean {
    return this.#operations.has(operation);
  }

  /** Whether the role's schema has this subscription field (`alerts` is both a query and a subscription). */
  canSubscribe(subscription: string): boolean {
    return this.#subscriptions.has(subscription);
  }
}

export const capabilities = new Capabilities();
