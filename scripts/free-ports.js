// Prints the first of `count` consecutive free loopback ports (default 3, the browser lanes' servers), so that
// `npm test` runs beside another checkout's on the same machine without either taking the other's ports.
// A port is free when this process can listen on it; the lanes' servers take them a few seconds later.
import net from 'node:net';

const count = Number(process.argv[2] ?? 3);

/** Whether a server can listen on the port on 127.0.0.1 now. */
function free(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

for (let tries = 0; tries < 200; tries++) {
  // From 20000 to 29999: below Linux's ephemeral range (32768 and up), where the tests' own servers listen on port 0.
  const first = 20_000 + Math.floor(Math.random() * (10_000 - count));
  const ports = Array.from({ length: count }, (_, i) => first + i);
  if ((await Promise.all(ports.map(free))).every(Boolean)) {
    console.log(first);
    process.exit(0);
  }
}
console.error(`no ${count} consecutive free ports between 20000 and 29999`);
process.exit(1);
