/**
 * The thing page maps the thing's location with Leaflet, drawing the tiles from the server MAP_TILE_URL names, and
 * links it to the map service MAP_LINK_URL names (thing-charts.test.ts checks there is no link when it is unset).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { browserSkipReason, saveScreenshot, seriousAccessibilityViolations, signInThroughForm } from '../helpers/browser.js';
import { closeMqttClients, publishUplinks } from '../helpers/uplinks.js';
import { useStudio } from './studio-test-helpers.js';

after(closeMqttClients);

const nowS = Math.floor(Date.now() / 1000);

describe('studio: the thing page maps its location with MAP_TILE_URL', { skip: browserSkipReason }, () => {
  let tiles: Server;
  const tileRequests: string[] = [];
  // A 1 x 1 PNG: the tile server is local, as a deployment's own would be; nothing is fetched from the internet.
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

  const studio = useStudio({
    env: async () => {
      tiles = createServer((request, response) => {
        tileRequests.push(request.url ?? '');
        response.writeHead(200, { 'content-type': 'image/png' }).end(png);
      });
      await new Promise<void>((resolve) => tiles.listen(0, '127.0.0.1', resolve));
      const { port } = tiles.address() as AddressInfo;
      return {
        MAP_TILE_URL: `http://127.0.0.1:${port}/{z}/{x}/{y}.png`,
        MAP_LINK_URL: 'https://www.openstreetmap.org/?mlat={lat}&mlon={lon}#map=17/{lat}/{lon}',
      };
    },
  });
  before(async () => {
    await publishUplinks(studio.server, [{ tsmId: 1210, tsmEv: 10, tsmTs: nowS, tsmTuid: 'MAP-1', lat: 60.1699, lon: 24.9384, lacr: 10 }]);
  });
  after(async () => {
    await new Promise((resolve) => tiles?.close(resolve));
  });

  it('loads Leaflet with the page, draws the tiles of the position and names the coordinates', async () => {
    const { context, page, pageErrors } = await studio.open({ path: '/studio/things/MAP-1' });
    await signInThroughForm(page);
    const map = page.getByRole('region', { name: "Map of the thing's location" });
    await map.locator('img.leaflet-tile-loaded').first().waitFor();
    assert.ok(
      tileRequests.some((path) => path.startsWith('/15/')),
      tileRequests.join(', '),
    );
    const location = page.getByRole('region', { name: 'Location', exact: true });
    assert.match((await location.textContent()) ?? '', /60[.,]1699.*24[.,]9384/);
    const link = location.getByRole('link', { name: /Open on the map/ });
    assert.equal(await link.getAttribute('href'), 'https://www.openstreetmap.org/?mlat=60.1699&mlon=24.9384#map=17/60.1699/24.9384');
    assert.equal(await link.getAttribute('target'), '_blank');
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await saveScreenshot(page, 'thing-page-map');
    assert.deepEqual(pageErrors, []);
    await context.close();
  });
});
