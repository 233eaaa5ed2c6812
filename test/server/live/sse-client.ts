// A Server-Sent Events reader for the live room's tests: the response's head, and its events as the wire
// carried them (id, event, data; comments kept as `: …` lines), read as they arrive.
import http from 'node:http';

export interface SseEvent {
  id: string | undefined;
  event: string;
  data: string;
}

export interface SseStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Every event so far. */
  events: SseEvent[];
  /** Every comment line so far (`: ping`). */
  comments: string[];
  /** The text as it came. */
  text: () => string;
  /** Resolves with the first event (from the start) `match` accepts, or rejects after `timeoutMs`. */
  until: (match: (event: SseEvent) => boolean, timeoutMs?: number) => Promise<SseEvent>;
  /** Resolves once the server has ended the stream. */
  ended: Promise<void>;
  close: () => void;
}

export function openSse(port: number, path: string, headers: Record<string, string>): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      let raw = '';
      let pending = '';
      const events: SseEvent[] = [];
      const comments: string[] = [];
      const waiters = new Set<() => void>();
      let endedResolve: () => void = () => undefined;
      const ended = new Promise<void>((done) => (endedResolve = done));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        raw += chunk;
        pending += chunk;
        let at: number;
        while ((at = pending.indexOf('\n\n')) >= 0) {
          const block = pending.slice(0, at);
          pending = pending.slice(at + 2);
          const event: SseEvent = { id: undefined, event: 'message', data: '' };
          let isEvent = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line);
            else if (line.startsWith('id: ')) event.id = line.slice(4);
            else if (line.startsWith('event: ')) event.event = line.slice(7);
            else if (line.startsWith('data: ')) {
              event.data = line.slice(6);
              isEvent = true;
            }
          }
          if (isEvent) events.push(event);
        }
        for (const waiter of [...waiters]) waiter();
      });
      res.on('end', endedResolve);
      res.on('close', endedResolve);
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        comments,
        text: () => raw,
        ended,
        until: (match, timeoutMs = 10_000) =>
          new Promise((done, fail) => {
            const check = () => {
              const found = events.find(match);
              if (!found) return;
              waiters.delete(check);
              clearTimeout(timer);
              done(found);
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`No such event within ${timeoutMs} ms; the stream so far:\n${raw}`));
            }, timeoutMs);
            waiters.add(check);
            check();
          }),
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
  });
}
