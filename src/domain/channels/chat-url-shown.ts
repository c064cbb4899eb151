/**
 * How a chat channel's URL is shown after its creation: its scheme, host and port only. A Slack-compatible incoming
 * webhook's URL is its own secret (whoever has it may post to the channel), so, like a webhook's signing secret
 * (SPEC section 11), only the answer to the creation carries it whole; lists, reads, changes, the CLI and the studio
 * show this.
 */
export function shownChatUrl(url: string | null): string | null {
  if (url === null) return null;
  try {
    return `${new URL(url).origin}/…`;
  } catch {
    return '…';
  }
}
