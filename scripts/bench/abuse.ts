import WebSocket from 'ws';
import { newUser, signedIn } from '../../integration/harness/clients';
import { throwAwayStorage } from '../../integration/harness/backends';
import { stopServer } from '../../integration/harness/process';
import { DEMO_ACCOUNTS, DEMO_ANON_KEY } from '../../server/demo';
import { httpFetch } from '../lib/httpFetch';
import { benchServer, type Engine } from './common';
import { forMs, readUntil } from './signIns';

/** How long each attack runs while the reader reads. */
const ATTACK_MS = 5000;
/** Sockets the attacker tries to open from its one address (the server admits up to its limit). */
const ATTACK_SOCKETS = 200;
/** Anonymous members of the flooded topic, who receive whatever is relayed. */
const MEMBERS = 20;
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** An anonymous socket that joins `topic` and, if `flood`, sends broadcasts as fast as it may. */
function attacker(url: string, topic: string, flood: boolean, until: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${DEMO_ANON_KEY}&vsn=1.0.0`);
    const big = 'x'.repeat(200 * 1024);
    let ref = 0;
    const send = (event: string, payload: Record<string, unknown>) =>
      ws.send(JSON.stringify({ topic: `realtime:${topic}`, event, payload, ref: String(++ref), join_ref: '1' }));
    ws.on('open', () => {
      send('phx_join', {});
      if (!flood) return;
      const burst = () => {
        if (until() || ws.readyState !== ws.OPEN) return ws.close();
        for (let i = 0; i < 20; i++)
          send('broadcast', { type: 'broadcast', event: 'spam', payload: { blob: i % 5 ? 'x' : big } });
        setImmediate(burst);
      };
      burst();
    });
    const wait = setInterval(() => until() && ws.close(), 100);
    const done = () => {
      clearInterval(wait);
      resolve();
    };
    ws.on('close', done);
    ws.on('error', done);
  });
}

/**
 * Other users' reads while someone holding the public anon key attacks: a Realtime flood (as many
 * sockets as one address is allowed, each sending 200 KB broadcasts and small ones as fast as it
 * can, to a topic with 20 members), then 5 MB avatar uploads one after another. A market page is
 * read over and over, alone and during each.
 */
export async function benchAbuse(engine: Engine) {
  const store = await throwAwayStorage(engine, 'repex_bench_abuse');
  const { server, url } = await benchServer(store);
  const reader = await signedIn(url, DEMO_ACCOUNTS.user, httpFetch);
  const read = () => reader.from('market_tokens').select('id, name, price').order('market_cap').limit(25);
  const alone = await readUntil(read, forMs(2000));

  const until = forMs(ATTACK_MS);
  const members = Array.from({ length: MEMBERS }, () => attacker(url, 'flood', false, until));
  const attackers = Array.from({ length: ATTACK_SOCKETS }, () => attacker(url, 'flood', true, until));
  const duringFlood = await readUntil(read, until);
  await Promise.all([...members, ...attackers]);

  const uploader = (await newUser(url, 'uploader')).client;
  const image = Buffer.concat([PNG, Buffer.alloc(5_000_000 - PNG.length)]);
  const uploadsUntil = forMs(ATTACK_MS);
  let uploads = 0;
  const uploading = (async () => {
    while (!uploadsUntil()) {
      const { data: user } = await uploader.auth.getUser();
      const { error } = await uploader.storage
        .from('avatars')
        .upload(`${user.user!.id}/${uploads % 3}.png`, image, { contentType: 'image/png', upsert: true });
      if (error) break; // the upload rate stops the attacker (off here, as for every bench server)
      uploads++;
    }
  })();
  const duringUploads = await readUntil(read, uploadsUntil);
  await uploading;
  await stopServer(server);
  await store.cleanup();
  return {
    other_requests_alone_ms: alone,
    during_realtime_flood_ms: duringFlood,
    during_uploads_ms: duringUploads,
    uploads,
  };
}
