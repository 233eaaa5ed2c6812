/**
 * A refusal the control plane reports to the caller. The handlers turn it into the platform's error
 * body `{code, message, request_id}`; domain tests can assert on `status` directly.
 */
export class ApiFailure extends Error {
  override readonly name = 'ApiFailure';

  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 423 | 429 | 500 | 501 | 502 | 503 | 504,
    message: string,
    readonly options: { code?: string; retryAfterSeconds?: number } = {},
  ) {
    super(message);
  }

  get code(): string {
    // The platform leaves `code` empty for most errors; clients branch on the HTTP status.
    return this.options.code ?? '';
  }
}

export const badRequest = (message: string) => new ApiFailure(400, message);
export const unauthorized = (message: string) => new ApiFailure(401, message);
export const forbidden = (message: string) => new ApiFailure(403, message);
export const notFound = (message: string) => new ApiFailure(404, message);
export const conflict = (message: string) => new ApiFailure(409, message);
export const locked = (message: string) => new ApiFailure(423, message);
export const notImplemented = (message: string) => new ApiFailure(501, message);
export const tooManyRequests = (message: string, retryAfterSeconds: number) => new ApiFailure(429, message, { retryAfterSeconds });
