// Benchmark: what the NanoBench provider proxy adds per request. A local upstream on 127.0.0.1
// streams SSE chunks (or answers JSON); the same requests go to it directly and through the
// proxy, interleaved, and the time to first byte and total time of each are compared.
// Usage: npm run build && node bench/proxy.mjs [requests per path, default 400]
import { Agent, createServer, request } from 'node:http';
import { startProxy } from '../dist/provider/proxy.js';

const N = Number(process.argv[2] ?? 400);
const CHUNKS = 10;
const GAP_MS = 2;

function upstream() {
  const server = createServer(async (req, res) => {
    let raw = '';
    for await (const c of req) raw += c;
    const body = JSON.parse(raw);
    const usage = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 };
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      const message = { role: 'assistant', content: 'x'.repeat(200) };
      return res.end(
        JSON.stringify({ choices: [{ index: 0, message, finish_reason: 'stop' }], usage }),
      );
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let i = 0; i < CHUNKS; i++) {
      const delta = { content: `piece ${i} `.repeat(4) };
      res.write(
        `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`,
      );
      await new Promise((r) => setTimeout(r, GAP_MS));
    }
    res.write(`data: ${JSON.stringify({ choices: [], usage })}\n\n`);
    res.end('data: [DONE]\n\n');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const agent = new Agent({ keepAlive: true });

/** One request; resolves to [ttfb ms, total ms]. */
function timed(url, key, body) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let first;
    const req = request(url, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    });
    req.on('response', (res) => {
      res.on('data', () => {
        first ??= performance.now() - t0;
      });
      res.on('end', () => resolve([first ?? NaN, performance.now() - t0]));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const q = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
};
const f = (ms) => `${ms.toFixed(2).padStart(7)} ms`;

const server = await upstream();
const upstreamUrl = `http://127.0.0.1:${server.address().port}/v1`;
const proxy = await startProxy();
const upstreamSpec = {
  provider: 'bench',
  baseUrl: upstreamUrl,
  apiKey: 'sk-bench',
  acceptsTemperature: true,
  supportsStreamUsage: true,
  temperature: 0,
  headers: {},
};

console.log(
  `NanoBench proxy benchmark: ${N} requests per path, interleaved, node ${process.version}`,
);
console.log(
  `upstream: 127.0.0.1, stream = ${CHUNKS} SSE chunks ${GAP_MS} ms apart, json = one reply\n`,
);
for (const stream of [true, false]) {
  const trial = proxy.openTrial({ provider: 'bench', model: 'm', upstream: upstreamSpec });
  const body = { model: 'm', messages: [{ role: 'user', content: 'hello' }], stream };
  const direct = { ttfb: [], total: [] };
  const viaProxy = { ttfb: [], total: [] };
  for (let i = 0; i < 20; i++) {
    await timed(`${upstreamUrl}/chat/completions`, 'sk-bench', body);
    await timed(`${trial.baseUrl}/chat/completions`, trial.apiKey, body);
  }
  for (let i = 0; i < N; i++) {
    const [a, b] = await timed(`${upstreamUrl}/chat/completions`, 'sk-bench', body);
    direct.ttfb.push(a);
    direct.total.push(b);
    const [c, d] = await timed(`${trial.baseUrl}/chat/completions`, trial.apiKey, body);
    viaProxy.ttfb.push(c);
    viaProxy.total.push(d);
  }
  const t = trial.finish().details;
  console.log(
    `${stream ? 'stream' : 'json'}   (proxy counted ${t.requests} requests, ${t.tokens.total} tokens)`,
  );
  for (const [name, key] of [
    ['time to first byte', 'ttfb'],
    ['total per request', 'total'],
  ]) {
    const dm = q(direct[key], 0.5);
    const pm = q(viaProxy[key], 0.5);
    console.log(
      `  ${name.padEnd(19)} direct median ${f(dm)}  p95 ${f(q(direct[key], 0.95))} | ` +
        `proxy median ${f(pm)}  p95 ${f(q(viaProxy[key], 0.95))} | added median ${f(pm - dm)}`,
    );
  }
}
await proxy.close();
server.close();
agent.destroy();
