import * as z from 'zod/mini';
import { OperationSchema } from './schemas';

// The activity feed's shape between tabs (api/activity-feed.ts builds it and registers this schema for
// poll sharing when it loads). Apart from the feed's code, so operations.ts reads its type without it.

const ActivityProjectSchema = z.object({
  id: z.string(),
  name: z.string(),
  orgName: z.optional(z.string()),
  /** Its latest sign of activity (epoch ms: a compute last active, the project updated): the first round reads the most recent first. */
  activeAt: z.optional(z.number()),
});
export type ActivityProject = z.infer<typeof ActivityProjectSchema>;

const ProjectCheckSchema = z.object({
  at: z.number(),
  operations: z.array(OperationSchema),
  /** Why the last read failed (the page before it stays). */
  problem: z.optional(z.string()),
});

export const ActivityFeedSchema = z.object({
  projects: z.array(ActivityProjectSchema),
  listedAt: z.nullable(z.number()),
  /** A list refresh part-way: the organizations (null until read), which owner's pages are next, what it found. */
  listing: z.nullable(
    z.object({
      orgs: z.nullable(z.array(z.object({ id: z.string(), name: z.string() }))),
      owner: z.number(),
      cursor: z.optional(z.string()),
      found: z.array(ActivityProjectSchema),
    }),
  ),
  checks: z.record(z.string(), ProjectCheckSchema),
  sent: z.array(z.object({ at: z.number(), kind: z.enum(['list', 'busy', 'idle']) })),
  slowDown: z.nullable(z.object({ since: z.number(), until: z.number(), notBefore: z.number(), retryAfterMs: z.optional(z.number()) })),
  /** Why the project list could not be read, while it cannot. */
  listProblem: z.optional(z.string()),
});
export type ActivityFeed = z.infer<typeof ActivityFeedSchema>;
