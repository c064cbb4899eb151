/** Identity as the rest of the platform sees it (SPEC section 2). No secrets or hashes in these shapes. */

export const roles = ['Manager', 'Installer', 'Viewer'] as const;
export type Role = (typeof roles)[number];

export const mqttCredentialKinds = ['gateway', 'integration'] as const;
export type MqttCredentialKind = (typeof mqttCredentialKinds)[number];

export interface Organization {
  id: string;
  name: string;
  createdAt: number;
}

export interface User {
  id: string;
  organizationId: string;
  email: string;
  role: Role;
  createdAt: number;
}

export interface ApiClient {
  clientId: string;
  organizationId: string;
  name: string;
  createdAt: number;
  revokedAt: number | null;
}

export interface MqttCredential {
  username: string;
  organizationId: string;
  kind: MqttCredentialKind;
  createdAt: number;
  revokedAt: number | null;
}
