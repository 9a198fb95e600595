// The loopback introspection endpoint of fetch-cost.mjs: one answer, kept-alive connections.
import { createServer } from 'node:http';
const body = JSON.stringify({
  active: true,
  sub: 'ada',
  scope: 'invoke read',
  exp: Math.floor(Date.now() / 1000) + 3600,
  iss: 'https://issuer',
  aud: 'api',
});
const s = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    res.end(body);
  });
});
s.keepAliveTimeout = 60000;
s.listen(0, '127.0.0.1', () => process.send(s.address().port));
