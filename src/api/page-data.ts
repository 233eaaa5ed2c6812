import * as z from 'zod/mini';
import { SessionEndSchema } from '../config/session';
import { RenderedQueriesSchema } from './rendered-queries';
import { PersonSchema } from '../model/roles';

// What the console's server tells the page it serves, in a `<script type="application/json">` block
// (never an inline script: the CSP allows none): whether a session is held, a fingerprint naming it
// for tab sharing (never the key, nor its plain hash), the key's kind, and on a server-rendered page
// the React Query cache its screen was rendered from, with the time it was rendered at. Read once at
// start-up; parsed like any wire data.

export const PAGE_DATA_ELEMENT_ID = 'ops-console-data';

/**
 * The `<template>` a server-rendered page holds its modulepreload links in: inert (the browser's
 * preload scanner skips a template), so the page's rows are painted before any of its code is fetched
 * and compiled; the entry script moves them into the head once it runs (app/held-code.ts).
 */
export const HELD_CODE_ELEMENT_ID = 'ops-console-code';

export const KeyKindSchema = z.enum(['personal', 'organization', 'unknown']);
export type KeyKind = z.infer<typeof KeyKindSchema>;

export const PageSessionSchema = z.object({
  signedIn: z.boolean(),
  /** HMAC of the key under the server's secret: the same for every tab and instance on one key. */
  fingerprint: z.nullable(z.string()),
  keyKind: z.nullable(KeyKindSchema),
  remembered: z.boolean(),
  /** The server has no kept secret (a random one per start): no session, remembered or not, outlives a restart. */
  endsOnRestart: z.optional(z.boolean()),
  /** Team sign-in (docs/team.md): the signed-in person, whose name and role the header shows; absent with a key. */
  person: z.optional(PersonSchema),
  /** Team sign-in's mode: the key screen is not offered; a signed-out page goes to the identity provider. */
  team: z.optional(z.enum(['oidc', 'proxy'])),
});
export type PageSession = z.infer<typeof PageSessionSchema>;

export const SignInProblemKindSchema = z.enum(['rejected', 'invalid', 'unreachable', 'server', 'other']);

export const SignInProblemSchema = z.object({
  kind: SignInProblemKindSchema,
  message: z.string(),
  requestId: z.optional(z.string()),
});
export type SignInProblem = z.infer<typeof SignInProblemSchema>;

const PageBaseSchema = z.object({
  session: PageSessionSchema,
  /** A sign-in form posted without JavaScript that failed: why, and the address it was posted from. */
  signIn: z.optional(z.object({ problem: SignInProblemSchema, returnTo: z.string() })),
  /**
   * The session is over and the page says why: `rejected` when the API refused the key while the server
   * rendered the page (the page signs out); otherwise the cookie it came with no longer opens a session.
   */
  sessionEnded: z.optional(z.union([z.literal('rejected'), SessionEndSchema])),
  /** The real API the server forwards /api/v2 to; absent: the built-in simulator answers on the console's origin. */
  apiUrl: z.optional(z.string()),
  /** false: the server streams no changes (LIVE_EVENTS=off), so the page never opens /events (docs/live.md). */
  live: z.optional(z.boolean()),
});

/** What a server-rendered page adds: the queries it was rendered from (dehydrated) and when (epoch ms). */
const RenderedPageSchema = z.object({
  queries: RenderedQueriesSchema,
  renderedAt: z.number(),
});

export const PageDataSchema = z.object({
  ...PageBaseSchema.shape,
  queries: z.optional(RenderedQueriesSchema),
  renderedAt: z.optional(z.number()),
});
export type PageData = z.infer<typeof PageDataSchema>;

export const SIGNED_OUT: PageSession = { signedIn: false, fingerprint: null, keyKind: null, remembered: false };

/**
 * The data block's contents; a page without one (or with a broken one) is a signed-out page. A broken
 * rendered part alone leaves a page the browser renders itself (its HTML is then replaced, not hydrated).
 */
export function parsePageData(text: string | null | undefined): PageData {
  if (!text) return { session: SIGNED_OUT };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { session: SIGNED_OUT };
  }
  const base = PageBaseSchema.safeParse(json);
  if (!base.success) return { session: SIGNED_OUT };
  const rendered = RenderedPageSchema.safeParse(json);
  return rendered.success ? { ...base.data, ...rendered.data } : base.data;
}

/**
 * JSON safe inside `<script type="application/json">`: `<` (so no `</script>` or `<!--` ends or bends
 * the block), and U+2028/U+2029 escaped; the result parses back to the same value.
 */
export function serializePageData(data: PageData): string {
  return JSON.stringify(data)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
