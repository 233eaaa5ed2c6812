// One HTTP POST to a receiver: to the address the URL guard checked (never a second DNS answer: DNS
// rebinding), 10 s for the whole exchange, no redirect followed, at most a little of the answer read.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from './url-guard';

export const DELIVERY_TIMEOUT_MS = 10_000;
/** How much of a receiver's answer is kept for the log. */
const ANSWER_BYTES = 1024;

export interface WebhookRequest {
  url: URL;
  address: ResolvedAddress;
  body: string;
  headers: Record<string, string>;
  timeoutMs?: number;
}

export interface WebhookAnswer {
  /** Undefined: no answer (timeout, refused, reset). */
  status: number | undefined;
  /** The start of the answer's body, or what went wrong, in words. */
  answer: string;
  retryAfter: string | undefined;
}

export type SendWebhook = (request: WebhookRequest) => Promise<WebhookAnswer>;

function pinnedLookup(address: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: address.address, family: address.family }]);
    else callback(null, address.address, address.family);
  };
}

export const sendWebhook: SendWebhook = ({ url, address, body, headers, timeoutMs = DELIVERY_TIMEOUT_MS }) =>
  new Promise((resolve) => {
    let settled = false;
    const done = (answer: WebhookAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, {
      method: 'POST',
      headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)), 'User-Agent': 'ops-console-webhooks/1' },
      lookup: pinnedLookup(address),
      agent: false,
    });
    const timer = setTimeout(() => {
      done({ status: undefined, answer: `No answer within ${timeoutMs / 1000} s.`, retryAfter: undefined });
      req.destroy();
    }, timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => {
      done({ status: undefined, answer: `Could not deliver: ${error.code ?? error.message}.`, retryAfter: undefined });
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = () => {
        const status = res.statusCode ?? 0;
        const retryAfter = res.headers['retry-after'];
        const text = Buffer.concat(chunks).toString('utf8').slice(0, ANSWER_BYTES);
        const redirect = status >= 300 && status < 400 ? `Redirect${res.headers.location ? ` to ${res.headers.location}` : ''} not followed. ` : '';
        done({ status, answer: `${redirect}${text}`.trim(), retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined });
        res.destroy();
      };
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= ANSWER_BYTES) finish();
      });
      res.on('end', finish);
      res.on('error', finish);
    });
    req.end(body);
  });
