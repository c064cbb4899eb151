import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import type { ChannelMessage, NotificationChannel } from '../domain/channels/channel-types.js';
import type { SendResult, WebhookSender } from './webhook-sender.js';

export interface SmtpSettings {
  /** SMTP_URL: smtp:// (STARTTLS when the server offers it) or smtps:// (TLS from the start), user and password in it. */
  url: string | undefined;
  /** SMTP_FROM: the sender's address. */
  from: string;
  timeoutMs: number;
}

/**
 * Sends a channel's notification (SPEC section 13): e-mail through one pooled nodemailer transport to SMTP_URL, chat
 * as a Slack-compatible `{"text": ...}` POST through the webhook sender (so chat URLs follow section 11's address
 * rules at every attempt, as webhooks do). A failure is a failed attempt: the dispatcher retries and logs it.
 */
export class ChannelSender {
  private transport: Transporter | undefined;

  constructor(
    private readonly smtp: SmtpSettings,
    private readonly chat: Pick<WebhookSender, 'send'>,
  ) {}

  async send(channel: NotificationChannel, message: ChannelMessage): Promise<SendResult> {
    return channel.type === 'email' ? this.mail(channel, message) : this.post(channel, message);
  }

  private async post(channel: NotificationChannel, message: ChannelMessage): Promise<SendResult> {
    return this.chat.send(channel.url ?? '', {}, JSON.stringify({ text: `${message.subject}\n${message.text}` }), channel.id);
  }

  private async mail(channel: NotificationChannel, message: ChannelMessage): Promise<SendResult> {
    const started = performance.now();
    const result = (error: string | null, excerpt: string | null): SendResult => ({
      statusCode: null,
      durationMs: performance.now() - started,
      error,
      responseExcerpt: excerpt,
      retryAfterS: null,
    });
    if (this.smtp.url === undefined) return result('SMTP_URL is not set', null);
    try {
      const info = (await this.transporter().sendMail({
        from: this.smtp.from,
        to: channel.to ?? [],
        subject: message.subject,
        text: message.text,
      })) as { response?: string };
      return result(null, info.response?.slice(0, 4096) ?? null);
    } catch (error) {
      return result(`smtp: ${(error as Error).message}`.slice(0, 1000), null);
    }
  }

  private transporter(): Transporter {
    if (this.transport) return this.transport;
    const url = new URL(this.smtp.url!);
    const secure = url.protocol === 'smtps:';
    this.transport = nodemailer.createTransport({
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port === '' ? (secure ? 465 : 587) : Number(url.port),
      // smtps: TLS from the start; smtp: STARTTLS whenever the server offers it (nodemailer's default).
      secure,
      ...(url.username !== '' && { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }),
      pool: true,
      // As many as a lane sends at once (WEBHOOK_CONCURRENCY's default): on a slow link each message costs five round trips.
      maxConnections: 8,
      connectionTimeout: this.smtp.timeoutMs,
      greetingTimeout: this.smtp.timeoutMs,
      socketTimeout: this.smtp.timeoutMs,
    });
    return this.transport;
  }

  close(): void {
    this.transport?.close();
  }
}
