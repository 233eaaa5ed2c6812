// The platform's rate limits (docs/platform-api.md): per account, shared by every client of it (its own console,
// this console's browsers and its collector). The simulator enforces them; the console paces itself inside them.

/** Requests a minute per account. */
export const PLATFORM_REQUESTS_PER_MINUTE = 700;
/** Requests a second per route: the burst the platform allows. */
export const PLATFORM_REQUESTS_PER_SECOND_PER_ROUTE = 40;
