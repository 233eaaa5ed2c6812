import * as z from 'zod/mini';

// What the console's server tells the page it serves, in a `<script type="application/json">` block
// (never an inline script: the CSP allows none): whether a session is held, a fingerprint naming it
// for tab sharing (never the key, nor its plain hash), the key's kind, and room for the React Query
// cache that server rendering hands over. Read once at start-up; parsed like any wire data.

export const PAGE_DATA_ELEMENT_ID = 'ops-console-data';

export const KeyKindSchema = z.enum(['personal', 'organization', 'unknown']);
export type KeyKind = z.infer<typeof KeyKindSchema>;

export const PageSessionSchema = z.object({
  signedIn: z.boolean(),
  /** HMAC of the key under the server's secret: the same for every tab and instance on one key. */
  fingerprint: z.nullable(z.string()),
  keyKind: z.nullable(KeyKindSchema),
  remembered: z.boolean(),
});
export type PageSession = z.infer<typeof PageSessionSchema>;

export const SignInProblemKindSchema = z.enum(['rejected', 'invalid', 'unreachable', 'server', 'other']);

export const SignInProblemSchema = z.object({
  kind: SignInProblemKindSchema,
  message: z.string(),
  requestId: z.optional(z.string()),
});
export type SignInProblem = z.infer<typeof SignInProblemSchema>;

export const PageDataSchema = z.object({
  session: PageSessionSchema,
  /** A sign-in form posted without JavaScript that failed: why, and the address it was posted from. */
  signIn: z.optional(z.object({ problem: SignInProblemSchema, returnTo: z.string() })),
  /** Server rendering's dehydrated React Query cache (not sent yet). */
  queries: z.optional(z.unknown()),
});
export type PageData = z.infer<typeof PageDataSchema>;

export const SIGNED_OUT: PageSession = { signedIn: false, fingerprint: null, keyKind: null, remembered: false };

/** The data block's contents; a page without one (or with a broken one) is a signed-out page. */
export function parsePageData(text: string | null | undefined): PageData {
  if (!text) return { session: SIGNED_OUT };
  try {
    const parsed = PageDataSchema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
  } catch {
    // Not JSON: treated as no data.
  }
  return { session: SIGNED_OUT };
}

/**
 * JSON safe inside `<script type="application/json">`: `<` (so no `</script>` or `<!--` ends or bends
 * the block), and U+2028/U+2029 escaped; the result parses back to the same value.
 */
export function serializePageData(data: PageData): string {
  return JSON.stringify(data).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}
