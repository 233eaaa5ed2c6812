// DESIGN §5: the headers every response of the console's server carries.
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers on every response; dev leaves out the CSP because Vite's HMR and React refresh inject inline scripts. */
export function securityHeaders({ withCsp }: { withCsp: boolean }): Record<string, string> {
  return {
    ...(withCsp ? { 'Content-Security-Policy': CONTENT_SECURITY_POLICY } : {}),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
  };
}
