// A stand-in for a corporate HTTP proxy on 127.0.0.1, for the HTTPS_PROXY tests: it answers
// CONNECT by tunnelling to a local port, and absolute-form requests (http upstreams) by
// forwarding them, for any host name in `hosts`. It records what it saw, so a test can check
// that the proxy never saw a key inside a tunnel.
import { createServer, type IncomingMessage, request } from 'node:http';
import { type AddressInfo, connect } from 'node:net';

export interface SeenByProxy {
  method: string;
  /** host:port for CONNECT, the absolute URL otherwise. */
  target: string;
  headers: IncomingMessage['headers'];
}

export interface StandInProxy {
  url: string;
  seen: SeenByProxy[];
  close(): Promise<void>;
}

export async function startStandInProxy(o: {
  /** Host name -> local port it stands for. */
  hosts: Record<string, number>;
  /** Answer every CONNECT with this status instead of tunnelling. */
  refuse?: number;
}): Promise<StandInProxy> {
  const seen: SeenByProxy[] = [];
  const portOf = (host: string) => o.hosts[host.replace(/:\d+$/, '')];
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', target: req.url ?? '', headers: req.headers });
    const u = new URL(req.url ?? '');
    const port = portOf(u.host);
    if (!port) {
      res.writeHead(502).end('unknown host');
      return;
    }
    const up = request(
      {
        host: '127.0.0.1',
        port,
        method: req.method,
        path: u.pathname + u.search,
        headers: req.headers,
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  // Tunnels leave the server's bookkeeping: close() destroys them itself.
  const tunnels = new Set<{ destroy(): void }>();
  server.on('connect', (req, socket, head) => {
    tunnels.add(socket);
    seen.push({ method: 'CONNECT', target: req.url ?? '', headers: req.headers });
    const port = portOf(req.url ?? '');
    if (o.refuse || !port) {
      socket.end(`HTTP/1.1 ${o.refuse ?? 502} Refused by stand-in\r\n\r\n`);
      return;
    }
    const up = connect(port, '127.0.0.1', () => {
      tunnels.add(up);
      socket.write('HTTP/1.1 200 Connection established\r\n\r\n');
      if (head.length) up.write(head);
      up.pipe(socket);
      socket.pipe(up);
    });
    up.on('error', () => socket.destroy());
    socket.on('error', () => up.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of tunnels) t.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
