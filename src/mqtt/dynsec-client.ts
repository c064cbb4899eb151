import { randomUUID } from 'node:crypto';
import type { MqttClient } from 'mqtt';

const commandTopic = '$CONTROL/dynamic-security/v1';
const responseTopic = `${commandTopic}/response`;
const answerTimeoutMs = 10_000;

/** One command of Mosquitto's dynamic security plugin (mosquitto.org/documentation/dynamic-security). */
export interface DynsecCommand {
  command: string;
  [field: string]: unknown;
}

/** Its answer: `error` is set when the broker refused it (e.g. "Client already exists"). */
export interface DynsecAnswer {
  command: string;
  error?: string;
  data?: unknown;
}

/**
 * Talks to Mosquitto's dynamic security over its control topic: a batch of commands goes out as one message, and
 * the answers come back in one, matched to their commands by correlation data. Only moves bytes; what to keep on
 * the broker is decided in src/integration/dynsec-credentials.ts.
 */
export class DynsecClient {
  private readonly waiting = new Map<string, (answer: DynsecAnswer) => void>();

  constructor(private readonly client: MqttClient) {
    client.on('message', (topic, payload) => {
      if (topic === responseTopic) this.answered(payload);
    });
  }

  /** Subscribes to the answers; again after each reconnection (clean sessions forget subscriptions). */
  async listen(): Promise<void> {
    const granted = await this.client.subscribeAsync(responseTopic, { qos: 1 });
    if (granted.some((grant) => grant.qos > 2))
      throw new Error(`the broker refused ${responseTopic}: is this user a dynamic security admin?`);
  }

  /** Sends commands whose answer may never come (one that makes the broker disconnect this very client). */
  async send(commands: readonly DynsecCommand[]): Promise<void> {
    await this.client.publishAsync(commandTopic, JSON.stringify({ commands }), { qos: 1 });
  }

  /** Runs commands in one message; resolves with their answers in the same order. */
  async run(commands: readonly DynsecCommand[]): Promise<DynsecAnswer[]> {
    if (commands.length === 0) return [];
    const ids = commands.map(() => randomUUID());
    const answers = ids.map(
      (id) =>
        new Promise<DynsecAnswer>((resolve, reject) => {
          const timer = setTimeout(() => {
            this.waiting.delete(id);
            reject(new Error(`no answer from dynamic security within ${answerTimeoutMs / 1000} s (is the plugin loaded?)`));
          }, answerTimeoutMs);
          this.waiting.set(id, (answer) => {
            clearTimeout(timer);
            resolve(answer);
          });
        }),
    );
    const payload = JSON.stringify({ commands: commands.map((command, i) => ({ ...command, correlationData: ids[i] })) });
    await this.client.publishAsync(commandTopic, payload, { qos: 1 });
    return Promise.all(answers);
  }

  private answered(payload: Buffer): void {
    let responses: unknown;
    try {
      responses = (JSON.parse(payload.toString('utf8')) as { responses?: unknown }).responses;
    } catch {
      return;
    }
    if (!Array.isArray(responses)) return;
    for (const response of responses as (DynsecAnswer & { correlationData?: string })[]) {
      const resolve = response.correlationData === undefined ? undefined : this.waiting.get(response.correlationData);
      if (!resolve) continue;
      this.waiting.delete(response.correlationData!);
      resolve(response);
    }
  }
}
