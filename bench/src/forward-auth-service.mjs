// The reference service of the forward-auth bench, in a process of its own so that its CPU time
// is its own (the orchestrator runs autocannon). Sends {type: 'ready', port}; answers
// {type: 'usage'} with process.cpuUsage().
const { createApp } = await import('../../apps/service/dist/app.js');
const service = await createApp(JSON.parse(process.env.BENCH_SERVICE_CONFIG), {
  env: { BENCH_KEY: process.env.BENCH_KEY },
  logger: { info() {}, warn() {}, error() {} },
});
const server = service.listen(0, '127.0.0.1', () => process.send({ type: 'ready', port: server.address().port }));
process.on('message', (message) => {
  if (message?.type === 'usage') process.send({ type: 'usage', cpu: process.cpuUsage() });
});
process.on('disconnect', async () => {
  server.close();
  await service.shutdown();
  process.exit(0);
});
