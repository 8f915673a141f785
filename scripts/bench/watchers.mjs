// The fan-out bench's watchers, in a process of their own (scripts/bench/fanout.ts forks it), so
// that what they cost to run does not count as the server's latency nor delay the bench's other
// user. Each watcher is a raw WebSocket speaking Realtime's protocol (vsn 1.0.0), joined to
// 'market' and to its account's topic as a signed-in user, as an open screen is. It does not parse
// what it hears: it notes when a message about one of the producer's tokens arrives.
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.timeOrigin + performance.now();
const watchers = [];
let lanes = [];
// What each watcher joins, and the event it listens for: the market and its account's topic, and
// a token's message ('"token"'), unless the bench names other topics and another event.
let topics = null;
let marker = '"token"';

function watcher(url, apikey, account) {
  const w = { joined: 0, heard: lanes.map(() => []) };
  open(w, url, apikey, account);
  return w;
}

function join(w, topic, account, ref) {
  if (w.ws.readyState !== WebSocket.OPEN) return;
  w.ws.send(
    JSON.stringify({
      topic: `realtime:${topic}`,
      event: 'phx_join',
      ref: String(ref),
      join_ref: String(ref),
      payload: {
        config: { private: true, broadcast: {}, presence: {}, postgres_changes: [] },
        access_token: account.token,
      },
    }),
  );
}

/** Opens (or opens again, as realtime-js would after a refused or dropped connection) a watcher's socket. */
function open(w, url, apikey, account) {
  w.joined = 0;
  w.ws = new WebSocket(`${url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${apikey}&vsn=1.0.0`, {
    perMessageDeflate: false,
    skipUTF8Validation: true,
  });
  w.ws.on('open', () => {
    if (topics) topics.forEach((t, i) => join(w, t, account, i + 1));
    else {
      join(w, 'market', account, 1);
      join(w, `account:${account.id}`, account, 2);
    }
  });
  w.ws.on('message', (data) => {
    if (data.includes('"phx_reply"')) {
      if (data.includes('"ok"')) w.joined++;
      return;
    }
    if (data.includes('"phx_error"')) {
      // Told to resync (it fell behind), as realtime-js it joins the topic again a moment later.
      const topic = /"topic":"realtime:([^"]+)"/.exec(data.toString())?.[1];
      if (topic) setTimeout(() => join(w, topic, account, 9), 1000);
      return;
    }
    if (!data.includes(marker)) return;
    const at = now();
    for (let i = 0; i < lanes.length; i++) if (data.includes(lanes[i])) w.heard[i].push(at);
  });
  w.ws.on('error', () => undefined);
  w.ws.on('close', () => {
    if (!stopping) setTimeout(() => open(w, url, apikey, account), 1000 + Math.random() * 1000);
  });
}
let stopping = false;

process.on('message', async (m) => {
  if (m.cmd === 'connect') {
    lanes = m.lanes.map((id) => Buffer.from(id));
    topics = m.topics ?? null;
    marker = m.marker ?? '"token"';
    const joins = topics ? topics.length : 2;
    for (let i = 0; i < m.n; i++) {
      watchers.push(watcher(m.url, m.apikey, m.accounts[watchers.length % m.accounts.length]));
      if (i % 200 === 199) await sleep(50); // joins arrive as a crowd does, not in one tick
    }
    const by = Date.now() + 120_000;
    while (watchers.some((w) => w.joined < joins) && Date.now() < by) await sleep(100);
    process.send({ connected: watchers.length, joined: watchers.filter((w) => w.joined >= joins).length });
  } else if (m.cmd === 'reset') {
    for (const w of watchers) for (const h of w.heard) h.length = 0;
    process.send({ reset: true });
  } else if (m.cmd === 'report') {
    // Each message heard, matched in order with the request that caused it on its lane.
    const latencies = [];
    for (const w of watchers) {
      w.heard.forEach((heard, lane) => {
        const sent = m.sent[lane];
        for (let k = 0; k < Math.min(heard.length, sent.length); k++) latencies.push(heard[k] - sent[k]);
      });
    }
    latencies.sort((a, b) => a - b);
    const at = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
    process.send({ delivered: latencies.length, p50: at(50), p95: at(95) });
  } else if (m.cmd === 'stop') {
    stopping = true;
    for (const w of watchers) w.ws.terminate();
    process.exit(0);
  }
});
