// A plain-text answer of the console's own (the Host check's 421, a missing file's 404, robots.txt), its body read first.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { discardBody } from '../http/body';

export async function sendText(req: IncomingMessage, res: ServerResponse, status: number, text: string): Promise<void> {
  await discardBody(req);
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(text);
}
