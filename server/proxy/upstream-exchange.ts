// One exchange with the upstream API over node:http(s), for the forwarding proxy: a deadline that is a
// plain timer held until the exchange settles (AbortSignal.timeout inside AbortSignal.any can be garbage
// collected on Node 20 and never fire), the answer's body as a stream read only as fast as the client
// takes it, with a size cap, and decoded only when the client cannot take the encoding the API chose.
// fetch() is not used: it always inflates gzip/br, so a small compressed answer would become a huge one.
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import zlib from 'node:zlib';
import { AnswerError } from '../http/node-bridge';

/** Encodings the server can decode; the only ones it asks the API for. */
export const DECODABLE_ENCODINGS = ['gzip', 'deflate', 'br'] as const;
type Encoding = (typeof DECODABLE_ENCODINGS)[number];

function isDecodable(value: string): value is Encoding {
  return (DECODABLE_ENCODINGS as readonly string[]).includes(value);
}

/** The decodable encodings an `Accept-Encoding` header accepts (`q=0` refuses one; `*` stands for the rest). */
export function acceptedEncodings(header: string | null): ReadonlySet<Encoding> {
  const key = header ?? '';
  const known = acceptedByHeader.get(key);
  if (known) return known;
  const accepted = parseAcceptEncoding(key);
  // Browsers send one of a handful of values: kept, within a bound, rather than parsed on every request.
  if (acceptedByHeader.size >= ACCEPT_ENCODING_ENTRIES) acceptedByHeader.clear();
  acceptedByHeader.set(key, accepted);
  return accepted;
}

const ACCEPT_ENCODING_ENTRIES = 100;
const acceptedByHeader = new Map<string, ReadonlySet<Encoding>>();

function parseAcceptEncoding(header: string): ReadonlySet<Encoding> {
  const accepted = new Set<Encoding>();
  const refused = new Set<string>();
  let star = false;
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1]).find((value) => value !== undefined);
    const wanted = q === undefined || Number(q) > 0;
    if (!wanted) refused.add(name);
    else if (name === '*') star = true;
    else if (isDecodable(name)) accepted.add(name);
  }
  if (star) for (const name of DECODABLE_ENCODINGS) if (!refused.has(name)) accepted.add(name);
  return accepted;
}

function decoder(encoding: Encoding): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress {
  if (encoding === 'gzip') return zlib.createGunzip();
  if (encoding === 'deflate') return zlib.createInflate();
  return zlib.createBrotliDecompress();
}

/**
 * The client's going away, as an exchange needs to know of it: an AbortSignal's job without its cost (an
 * AbortController per request was the largest single cost of the proxy's own code in a profile under load).
 */
export interface ClientGone {
  readonly aborted: boolean;
  /** Calls `onGone` once if the client goes; returns what stops listening. */
  watch: (onGone: () => void) => () => void;
}

/** A Fetch request's signal as a ClientGone. */
export function clientGoneFromSignal(signal: AbortSignal): ClientGone {
  return {
    get aborted() {
      return signal.aborted;
    },
    watch: (onGone) => {
      signal.addEventListener('abort', onGone, { once: true });
      return () => signal.removeEventListener('abort', onGone);
    },
  };
}

/**
 * How much of an answer is taken in before the API's socket is paused: Node 22's default. Node 20's (16 KiB)
 * paused it halfway through every page of operations (about 30 KB) and started it again, which cost the
 * server about 7% more CPU per proxied read, and the API its writes in pieces.
 */
const ANSWER_HIGH_WATER_MARK = 64 * 1024;

/** Where an exchange goes: node:http's own options, not a URL (node:http would take one apart again on every request). */
export interface ExchangeTarget {
  protocol: 'http:' | 'https:';
  hostname: string;
  port: string;
  /** Path and query. */
  path: string;
}

/**
 * A stream's chunks as they are asked for, its error (or a close before its end) thrown by the next ask:
 * what `stream[Symbol.asyncIterator]()` does, without the generator and end-of-stream machinery it sets up
 * for every answer (a tenth of the proxy's own cost per request in a profile under load).
 */
function chunksOf(source: Readable): AsyncIterator<Buffer, undefined> {
  let ended = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const rouse = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  source.on('readable', rouse);
  source.once('end', () => {
    ended = true;
    rouse();
  });
  source.once('error', (error: Error) => {
    failure ??= error;
    rouse();
  });
  source.once('close', () => {
    if (!ended) failure ??= new Error('premature close');
    rouse();
  });
  return {
    next: async () => {
      for (;;) {
        const chunk = source.destroyed ? null : (source.read() as Buffer | null);
        if (chunk !== null) return { done: false, value: chunk };
        if (failure) throw failure;
        if (ended) return { done: true, value: undefined };
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}

export interface ExchangeOptions {
  target: ExchangeTarget;
  method: string;
  headers: Record<string, string>;
  body: Uint8Array | undefined;
  /** The client went away: the exchange is dropped. */
  clientGone: ClientGone | undefined;
  /** For the whole exchange, headers and body. */
  deadlineMs: number;
  /** The most bytes of body the client may receive (as sent, or as decoded here). */
  maxBytes: number;
  /** Encodings the client takes as they are. */
  accepted: ReadonlySet<Encoding>;
  /** Says why an exchange broke off; `status` is what the client gets if nothing was sent yet. */
  problem: (kind: 'deadline' | 'too-large' | 'broken', detail?: string) => AnswerError;
}

export interface Exchange {
  response: http.IncomingMessage;
  /** Set when the answer goes out in the API's own encoding. */
  encoding: Encoding | undefined;
  /** The answer's body: as it comes, decoded if need be, cut past `maxBytes` or at the deadline. */
  body: () => ReadableStream<Uint8Array>;
  /** The same body as Node's chunks, for an answer written straight to a Node response (no web stream between). */
  chunks: () => AsyncIterator<Uint8Array, undefined>;
  /** The client went away while the body was read: the exchange is dropped. */
  cancel: () => void;
  /** Done with it without reading the body (a redirect, an empty answer). */
  discard: () => void;
}

/** Starts the exchange; resolves once the API's status and headers are in. */
export function exchange(options: ExchangeOptions): Promise<Exchange> {
  const { target, method, headers, body, clientGone, deadlineMs, maxBytes, accepted, problem } = options;
  return new Promise((resolve, reject) => {
    if (clientGone?.aborted) {
      reject(new Error('The client went away.'));
      return;
    }
    const client = target.protocol === 'https:' ? https : http;
    // A declared length, not chunks: some front doors refuse a chunked request body.
    const { protocol, hostname, port, path } = target;
    // node:http takes `highWaterMark` for the answer and its socket (Node 20 and 22); @types/node does not list it.
    const requestOptions: http.RequestOptions & { highWaterMark: number } = {
      protocol,
      hostname,
      port,
      path,
      method,
      highWaterMark: ANSWER_HIGH_WATER_MARK,
      headers: body ? { ...headers, 'content-length': String(body.byteLength) } : headers,
    };
    const request = client.request(requestOptions);
    let source: Readable | undefined;
    let settled = false;
    const settle = () => {
      settled = true;
      clearTimeout(deadline);
      stopWatching?.();
    };
    const breakOff = (error: Error) => {
      settle();
      request.destroy(error);
      source?.destroy(error);
      reject(error);
    };
    // A strong reference for as long as the exchange runs: the timer list holds it, nothing can collect it.
    const deadline = setTimeout(() => breakOff(problem('deadline')), deadlineMs);
    const stopWatching = clientGone?.watch(() => breakOff(new Error('The client went away.')));

    request.on('error', (error) => {
      if (settled) return;
      settle();
      reject(error);
    });
    request.once('response', (response) => {
      const declared = response.headers['content-encoding']?.trim().toLowerCase() ?? 'identity';
      const passThrough = declared === 'identity' || (isDecodable(declared) && accepted.has(declared));
      if (!passThrough && !isDecodable(declared)) {
        breakOff(problem('broken', `an encoding the server cannot read (${declared})`));
        return;
      }
      const length = Number(response.headers['content-length']);
      if (passThrough && length > maxBytes) {
        breakOff(problem('too-large'));
        return;
      }
      // Errors reach the reader through the body's iterator; these keep one from going unheard before it starts.
      response.on('error', () => undefined);
      if (passThrough) {
        source = response;
      } else {
        const decoding = decoder(declared);
        pipeline(response, decoding, () => undefined);
        source = decoding;
      }
      const read = source;
      const cancel = () => {
        settle();
        request.destroy();
        read.destroy();
      };
      const chunks = (): AsyncIterator<Uint8Array, undefined> => {
        const from = chunksOf(read);
        let size = 0;
        return {
          next: async () => {
            try {
              const item = await from.next();
              if (item.done) {
                settle();
                return { done: true, value: undefined };
              }
              size += item.value.length;
              if (size > maxBytes) throw problem('too-large');
              return { done: false, value: item.value };
            } catch (error) {
              // The client left (nothing to say about the API then), or the API's answer broke: said once, here.
              const message = error instanceof Error ? error.message : String(error);
              const reason = error instanceof AnswerError ? error : clientGone?.aborted ? new Error(message) : problem('broken', message);
              if (!settled) breakOff(reason);
              throw reason;
            }
          },
        };
      };
      resolve({
        response,
        encoding: passThrough && declared !== 'identity' ? declared : undefined,
        discard: () => {
          settle();
          request.destroy();
        },
        chunks,
        cancel,
        body: () => {
          const next = chunks();
          return new ReadableStream<Uint8Array>(
            {
              async pull(controller) {
                try {
                  const item = await next.next();
                  if (item.done) controller.close();
                  else controller.enqueue(new Uint8Array(item.value.buffer, item.value.byteOffset, item.value.byteLength));
                } catch (error) {
                  controller.error(error);
                }
              },
              cancel,
            },
            { highWaterMark: 0 },
          );
        },
      });
    });
    request.end(body);
  });
}
