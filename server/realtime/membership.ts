import type { Claims } from '../auth/jwt';
import { isApiKey } from '../auth/apiKeys';
import type { Channel, Client } from './hub';
import type { Frame } from './protocol';
import type { Realtime } from './context';

/** The claims a frame's access_token carries, the socket's own when it has none, or why it is refused. */
export async function claimsFor(rt: Realtime, client: Client, token: unknown): Promise<Claims | string> {
  if (typeof token !== 'string' || !token) return client.apiClaims;
  if (isApiKey(token)) {
    const key = await rt.apiKeys.verify(token, client.address);
    return key.ok ? key.claims : `InvalidJWTToken: ${key.message}`;
  }
  const v = await rt.keys.verify(token);
  if (!v.ok)
    return v.reason === 'expired'
      ? 'InvalidJWTToken: Token has expired'
      : 'JwtSignatureError: Failed to validate JWT signature';
  return v.claims;
}

/** A member leaves a channel: at its own request (no reason), or ended by the server, which says why. */
export function leave(rt: Realtime, client: Client, channel: Channel, reason?: string): void {
  rt.presence.untrack(client, channel);
  if (reason) rt.hub.close(client, channel, reason);
  else rt.hub.remove(client, channel);
}

/**
 * A member whose socket fell behind (its send queue past the soft bound): its channel ends with
 * phx_error, so the client rejoins it and reads again what it missed, rather than the server
 * queueing without bound what the client cannot take.
 */
export function resync(rt: Realtime, client: Client, channel: Channel): void {
  rt.presence.untrack(client, channel);
  rt.hub.error(client, channel, 'Too slow: messages were dropped. Rejoin to read the current state.');
}

/**
 * A client past a limit: told in reply to what it sent, on each of its channels and on each join
 * still being checked, then disconnected.
 */
export function offend(rt: Realtime, client: Client, reason: string, f?: Frame): void {
  if (f?.ref) rt.hub.reply(client, f, 'error', { reason });
  for (const pending of client.joining.values()) rt.hub.reply(client, pending, 'error', { reason });
  for (const channel of [...client.channels.values()]) leave(rt, client, channel, reason);
  client.socket.close(1008, reason.slice(0, 120));
}
