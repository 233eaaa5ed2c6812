// The delivery log's query, `?limit=&cursor=`, as the server reads it (GET /notifications/webhooks/:id/deliveries).
// Here and not in src/api/notification-schemas.ts, which the browser loads: only the server parses it, and its
// checks (a pipe, a transform, regexes) were zod code no other schema of the console uses, 0.5 KiB gzip of the
// first load's shared zod chunk (docs/benchmarks.md, Initial JS).
import * as z from 'zod/mini';
import { MAX_DELIVERIES_PAGE } from '../../src/api/notification-schemas';

/** `limit` (1 to MAX_DELIVERIES_PAGE) and `cursor` (a page's nextCursor). */
export const DeliveriesQuerySchema = z.object({
  limit: z.optional(
    z.pipe(
      z.string().check(z.regex(/^(?:[1-9]\d?|100)$/, `limit is a whole number from 1 to ${MAX_DELIVERIES_PAGE}.`)),
      z.transform((value) => Number(value)),
    ),
  ),
  cursor: z.optional(z.string().check(z.regex(/^\d{1,19}$/, 'cursor is the nextCursor of a page of this log.'))),
});
export type DeliveriesQuery = z.infer<typeof DeliveriesQuerySchema>;
