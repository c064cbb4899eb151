import type { Component } from 'svelte';

/** Where the studio's pages live in the URL (the platform serves the shell at `/` and under this prefix). */
export const basePath = '/studio';

export interface Route {
  /** The page's path below basePath; `:name` segments become params. */
  pattern: string;
  /** The page's title (the document title, and what a screen reader announces on navigation). */
  title: string;
  load: () => Promise<{ default: Component<{ params: Record<string, string> }> }>;
  /** Reachable without signing in. */
  public?: boolean;
  /** Shown only when the role's schema has this operation (capabilities.can). */
  requires?: string;
}

/** The studio's pages. Each is loaded when first opened, so the first paint carries only the shell. */
export const routes: Route[] = [
  { pattern: '/sign-in', title: 'Sign in', load: () => import('../pages/SignIn.svelte'), public: true },
  { pattern: '/', title: 'Fleet overview', load: () => import('../pages/overview/Overview.svelte') },
  { pattern: '/things', title: 'Things', load: () => import('../pages/things/ThingList.svelte') },
  { pattern: '/things/:tuid', title: 'Thing', load: () => import('../pages/things/ThingPage.svelte') },
  { pattern: '/things/:tuid/commands', title: 'Commands', load: () => import('../pages/things/ThingCommands.svelte') },
  { pattern: '/groups', title: 'Groups', load: () => import('../pages/groups/GroupList.svelte') },
  { pattern: '/groups/:groupId', title: 'Group', load: () => import('../pages/groups/GroupPage.svelte') },
  { pattern: '/alerts', title: 'Alerts', load: () => import('../pages/alerts/Alerts.svelte') },
  { pattern: '/rules', title: 'Alert rules', load: () => import('../pages/rules/AlertRules.svelte') },
  {
    pattern: '/channels',
    title: 'Notification channels',
    load: () => import('../pages/channels/Channels.svelte'),
    requires: 'notificationChannels',
  },
  { pattern: '/gateways', title: 'Gateways', load: () => import('../pages/gateways/GatewayList.svelte') },
  { pattern: '/gateways/:tuid', title: 'Gateway', load: () => import('../pages/gateways/GatewayPage.svelte') },
  { pattern: '/account', title: 'Your account', load: () => import('../pages/account/Account.svelte') },
  { pattern: '/install', title: 'Installer', load: () => import('../pages/installer/Installer.svelte'), requires: 'setInstallationStatus' },
  { pattern: '/import', title: 'Import things', load: () => import('../pages/import/ImportThings.svelte'), requires: 'importThings' },
  { pattern: '/admin', title: 'Administration', load: () => import('../pages/admin/Admin.svelte'), requires: 'createUser' },
  { pattern: '/audit', title: 'Audit log', load: () => import('../pages/audit/AuditLog.svelte'), requires: 'auditLog' },
];

export const notFoundRoute: Route = { pattern: '*', title: 'Not found', load: () => import('../pages/NotFound.svelte') };

/** The studio path of a browser path: `/`, `/studio` and `/studio/` are all the home page. */
function studioPath(pathname: string): string {
  if (pathname === '/' || pathname === basePath) return '/';
  return pathname.startsWith(`${basePath}/`) ? pathname.slice(basePath.length) || '/' : pathname;
}

function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/').filter(Boolean);
  const have = path.split('/').filter(Boolean);
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (const [index, segment] of want.entries()) {
    const value = have[index]!;
    if (segment.startsWith(':')) params[segment.slice(1)] = decodeURIComponent(value);
    else if (segment !== value) return null;
  }
  return params;
}

/** The browser URL of a studio path (`/things?q=a` becomes `/studio/things?q=a`). */
export function href(path: string): string {
  return path === '/' ? `${basePath}/` : `${basePath}${path}`;
}

/**
 * The current page, from the History API: links and `navigate` change it without a reload, the back button works,
 * and a reload opens the same page (the platform serves the shell at every studio path).
 */
class Router {
  path = $state(studioPath(location.pathname));
  search = $state(location.search);

  constructor() {
    window.addEventListener('popstate', () => this.#read());
  }

  get query(): URLSearchParams {
    return new URLSearchParams(this.search);
  }

  /** The route and params of the current path (the not-found page when none matches). */
  get current(): { route: Route; params: Record<string, string> } {
    for (const route of routes) {
      const params = match(route.pattern, this.path);
      if (params) return { route, params };
    }
    return { route: notFoundRoute, params: {} };
  }

  /** The current page as a studio path with its query, to come back to after signing in. */
  get location(): string {
    return `${this.path}${this.search}`;
  }

  navigate(to: string, options: { replace?: boolean } = {}): void {
    const url = href(to);
    if (options.replace) history.replaceState(null, '', url);
    else history.pushState(null, '', url);
    this.#read();
  }

  /** Changes the query string of the current page (filters), without a new history entry per keystroke. */
  setQuery(values: Record<string, string | readonly string[] | null | undefined>): void {
    const params = this.query;
    for (const [key, value] of Object.entries(values)) {
      if (Array.isArray(value)) {
        // A repeated parameter (`label=a:1&label=b:2`).
        params.delete(key);
        for (const each of value) params.append(key, each);
      } else if (value === null || value === undefined || value === '') params.delete(key);
      else params.set(key, value as string);
    }
    const search = params.toString();
    this.navigate(`${this.path}${search ? `?${search}` : ''}`, { replace: true });
  }

  #read(): void {
    this.path = studioPath(location.pathname);
    this.search = location.search;
  }
}

export const router = new Router();
