import type http from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Claims } from '../auth/jwt';
import type { Client } from './hub';
import { Bucket } from './limits';
import type { Realtime } from './context';
import { onMessage } from './frames';
import { leave } from './membership';

/**
 * Serves /realtime/v1/websocket on an HTTP server: a socket opens with a valid API key and within
 * its address's allowance, and a frame over the size limit closes it with 1009 before it is read
 * whole. Returns what closes the sockets.
 */
export function attachSockets(rt: Realtime, server: http.Server): WebSocketServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: rt.limits.maxMessageBytes });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/realtime/v1/websocket') return socket.destroy();
    const address = req.socket.remoteAddress ?? '';
    const apikey = (req.headers['x-api-key'] as string | undefined) ?? url.searchParams.get('apikey') ?? '';
    void rt.keys.verify(apikey).then((v) => {
      if (!v.ok) {
        socket.write(
          'HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n\r\n{"message":"Invalid API key"}',
        );
        return socket.destroy();
      }
      if (!rt.addresses.admit(address)) {
        socket.write(
          'HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\n\r\n{"message":"Too many connections from this address"}',
        );
        return socket.destroy();
      }
      wss.handleUpgrade(req, socket, head, (ws) => connect(rt, ws, url, address, v.claims));
    });
  });
  return wss;
}

function connect(rt: Realtime, ws: WebSocket, url: URL, address: string, apiClaims: Claims): void {
  const client: Client = {
    socket: ws,
    vsn: url.searchParams.get('vsn') ?? '1.0.0',
    address,
    apiClaims,
    channels: new Map(),
    joining: new Map(),
    messages: new Bucket(rt.limits.messagesPerSecond),
    joins: new Bucket(rt.limits.joinsPerSecond),
  };
  rt.hub.clients.add(client);
  ws.on('message', (data, isBinary) =>
    onMessage(rt, client, Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer), isBinary),
  );
  let gone = false;
  const disconnect = () => {
    if (gone) return;
    gone = true;
    rt.hub.clients.delete(client);
    rt.addresses.release(address);
    for (const channel of [...client.channels.values()]) leave(rt, client, channel);
  };
  ws.on('close', disconnect);
  ws.on('error', disconnect);
}
