import { KEY_REJECTED_MESSAGE } from '../config/session';

/** What went wrong, in a form every screen can explain: never carries the API key. */
export type ApiErrorKind = 'http' | 'network' | 'malformed';

export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly kind: ApiErrorKind;
  /** HTTP status; 0 when no response arrived. */
  readonly status: number;
  readonly code: string | undefined;
  readonly requestId: string | undefined;
  /** From `Retry-After`, in milliseconds. */
  readonly retryAfterMs: number | undefined;
  /** The request's method (GET when unknown): whether sending it again can change anything. */
  readonly method: string;
  /** When the failure arrived (epoch ms): a retry's wait counts from here (api/retry-policy.ts). */
  readonly failedAt: number;

  constructor(init: {
    kind: ApiErrorKind;
    status: number;
    message: string;
    code?: string | undefined;
    requestId?: string | undefined;
    retryAfterMs?: number | undefined;
    method?: string | undefined;
  }) {
    super(init.message);
    this.kind = init.kind;
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.retryAfterMs = init.retryAfterMs;
    this.method = init.method ?? 'GET';
    this.failedAt = Date.now();
  }

  get isUnauthorized(): boolean {
    return this.kind === 'http' && this.status === 401;
  }

  /** The API answered 2xx (the change was made) but its body could not be read: done, details unknown. */
  get isDoneUnread(): boolean {
    return this.kind === 'malformed' && this.status >= 200 && this.status < 300;
  }
}

/** A change the API took (2xx) whose answer could not be read: it happened, what it started is unknown. */
export function isDoneUnread(error: unknown): error is ApiError {
  return isApiError(error) && error.isDoneUnread;
}

/** A change sent with no answer at all (the connection dropped): it may or may not have been made. */
export function isUnknownOutcome(error: unknown): error is ApiError {
  return isApiError(error) && error.kind === 'network' && error.method !== 'GET' && error.method !== 'HEAD';
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

/** Plain-words headline for an HTTP status whose body said nothing useful. */
export function describeStatus(status: number): string {
  switch (status) {
    case 400:
      return 'The API refused the request as invalid.';
    case 401:
      return KEY_REJECTED_MESSAGE;
    case 403:
      return 'This API key is not allowed to do that.';
    case 404:
      return 'Not found, or outside what this API key can see.';
    case 409:
      return 'That conflicts with the current state.';
    case 423:
      return 'The project is busy with another operation.';
    case 429:
      return 'Too many requests: the API asked us to slow down.';
    case 503:
      return 'The API is temporarily unavailable.';
    default:
      return status >= 500 ? `The API failed with an internal error (${status}).` : `The API answered ${status}.`;
  }
}

/**
 * What went wrong in a few specific words, for a notice that says the console is retrying: the kind of
 * failure, never the key. The request id is shown beside it, not in it.
 */
export function describeProblem(error: unknown): string {
  if (!isApiError(error)) return error instanceof Error ? `Something went wrong: ${error.message}` : 'Something went wrong.';
  if (error.kind === 'network') return 'Could not reach the API.';
  if (error.kind === 'malformed') return 'The API sent a response the console could not read.';
  switch (error.status) {
    case 423:
      return 'The project is busy with another operation (423).';
    case 429:
      return 'Rate limited by the API (429).';
    case 503:
      return 'The server is busy (503).';
    default:
      return error.status >= 500 ? `The API failed with an internal error (${error.status}).` : error.message;
  }
}

/** What a screen shows for any thrown value: a message and, when known, the request id. */
export function describeError(error: unknown): { message: string; requestId?: string | undefined; status?: number } {
  if (isApiError(error)) return { message: error.message, requestId: error.requestId, status: error.status };
  if (error instanceof Error) return { message: `Something went wrong: ${error.message}` };
  return { message: 'Something went wrong.' };
}
