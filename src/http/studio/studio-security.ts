/**
 * The studio's Content-Security-Policy. Scripts, requests and WebSockets go to this server only ('self' covers ws:
 * and wss: of the same host in current browsers); the QR decoder's WebAssembly needs 'wasm-unsafe-eval' (it allows
 * compiling WebAssembly, not eval of JavaScript). Styles allow inline attributes because the component and chart
 * libraries set element styles. Map tiles, when MAP_TILE_URL names a server, are the one outside origin, for images.
 */
export function studioContentSecurityPolicy(mapTileUrl: string | undefined): string {
  const tiles = mapTileUrl ? ` ${tileOrigin(mapTileUrl)}` : '';
  return [
    "default-src 'none'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: blob:${tiles}`,
    "font-src 'self'",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "media-src 'self' blob:",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The origin a tile template loads from; a `{s}` subdomain placeholder becomes a wildcard over its siblings. */
function tileOrigin(template: string): string {
  const hasSubdomains = template.includes('{s}.');
  const url = new URL(template.replace('{s}.', '').replace(/[{}]/g, ''));
  return hasSubdomains ? `${url.protocol}//*.${url.host}` : url.origin;
}
