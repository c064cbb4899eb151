import Fastify from 'fastify';
import type { Config } from '../config/config.js';
import type { RestDeps } from './rest/rest-deps.js';
import { registerRest } from './rest/rest-plugin.js';

/**
 * The path of every REST route (`/api/v1/things/:tuid`), read from the routes themselves: the REST plugin is
 * registered on a throwaway server that never listens (handlers only keep their deps; none runs). The composition
 * root needs the table before the MQTT side starts, so before the real server exists.
 */
export async function restRoutePaths(config: Config): Promise<string[]> {
  const app = Fastify({ logger: false });
  const paths = new Set<string>();
  app.addHook('onRoute', (route) => {
    paths.add(route.url);
  });
  app.setValidatorCompiler(() => () => true);
  registerRest(app, { config } as RestDeps);
  await app.ready();
  await app.close();
  return [...paths].sort();
}

/**
 * The fixed path segments that sit where another route takes a TUID: with `/things/:tuid` and `/things/alerts`,
 * a thing called `alerts` could never be read at `/things/alerts`. These are the TUIDs no new thing may take.
 */
export function reservedTuidsOf(paths: readonly string[], parameter = 'tuid'): Set<string> {
  const split = paths.map((path) => path.split('/'));
  const reserved = new Set<string>();
  for (const segments of split) {
    segments.forEach((segment, position) => {
      if (segment !== `:${parameter}`) return;
      const prefix = segments.slice(0, position).join('/');
      for (const other of split) {
        const fixed = other[position];
        if (
          fixed !== undefined &&
          fixed !== '' &&
          !fixed.startsWith(':') &&
          !fixed.startsWith('*') &&
          other.slice(0, position).join('/') === prefix
        )
          reserved.add(fixed);
      }
    });
  }
  return reserved;
}
