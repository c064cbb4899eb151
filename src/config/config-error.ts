/**
 * A start-up problem an operator fixes by changing one environment variable.
 * `message` is the single line printed before the process exits, so it always names the variable.
 */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`${variable}: ${detail}`);
    this.name = 'ConfigError';
  }
}
