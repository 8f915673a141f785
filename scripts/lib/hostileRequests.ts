import net from 'node:net';

/**
 * Requests a browser would never send but anyone with a socket can: malformed Range, If-Range,
 * Accept-Encoding and paths. The static servers' tests send each to every port and then check that
 * everything still answers (the red team's fourth round: one of these stopped the whole app).
 */
export const HOSTILE_REQUESTS: { what: string; path: string; headers: Record<string, string> }[] = [
  { what: 'a range whose first byte is past its last', path: '/remoteEntry.js', headers: { Range: 'bytes=5-1' } },
  { what: 'a range past a small file', path: '/remoteEntry.js', headers: { Range: 'bytes=9999999999-' } },
  { what: 'a huge range', path: '/remoteEntry.js', headers: { Range: 'bytes=0-99999999999999999999' } },
  { what: 'a negative range', path: '/remoteEntry.js', headers: { Range: 'bytes=-1--5' } },
  { what: 'a suffix range', path: '/remoteEntry.js', headers: { Range: 'bytes=-10' } },
  { what: 'several ranges', path: '/remoteEntry.js', headers: { Range: 'bytes=0-1,5-1,3-' } },
  { what: 'a range in another unit', path: '/remoteEntry.js', headers: { Range: 'items=5-1' } },
  { what: 'a range of nothing', path: '/remoteEntry.js', headers: { Range: 'bytes=' } },
  { what: 'If-Range with a bad range', path: '/remoteEntry.js', headers: { Range: 'bytes=5-1', 'If-Range': 'x' } },
  {
    what: 'If-Range with a date',
    path: '/remoteEntry.js',
    headers: { Range: 'bytes=0-3', 'If-Range': 'Thu, 01 Jan 1970' },
  },
  { what: 'an encoding list of garbage', path: '/remoteEntry.js', headers: { 'Accept-Encoding': ';;,,br;q=x,*;q=-1' } },
  { what: 'a compressed range', path: '/remoteEntry.js', headers: { 'Accept-Encoding': 'br', Range: 'bytes=7-2' } },
  { what: 'a broken escape', path: '/%E0%A4%A', headers: {} },
  { what: 'a NUL in the path', path: '/remoteEntry.js%00.map', headers: {} },
  { what: 'a climb out of the folder', path: '/../../../../etc/passwd', headers: {} },
  { what: 'an escaped climb', path: '/%2e%2e/%2e%2e/etc/passwd', headers: {} },
  { what: 'a very long path', path: `/${'a'.repeat(7_000)}`, headers: {} },
  { what: 'an absolute URL', path: 'http://elsewhere.example/remoteEntry.js', headers: {} },
  { what: 'an asterisk', path: '*', headers: {} },
];

/**
 * Sends one request over a raw socket, exactly as written (fetch would normalise it), and resolves
 * with the status code, or 0 if the connection was refused or closed without one.
 */
export function rawRequest(port: number, path: string, headers: Record<string, string>, host = '127.0.0.1') {
  return new Promise<number>((resolve) => {
    const socket = net.connect(port, host);
    let answer = '';
    const done = () => {
      socket.destroy();
      resolve(Number(/^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1] ?? 0));
    };
    socket.setTimeout(5_000, done);
    socket.on('error', done);
    socket.on('close', done);
    socket.on('data', (d: Buffer) => {
      answer += d.toString('latin1');
      if (answer.includes('\r\n')) done();
    });
    socket.on('connect', () => {
      const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: localhost\r\n${lines.join('\r\n')}${lines.length ? '\r\n' : ''}Connection: close\r\n\r\n`,
      );
    });
  });
}
