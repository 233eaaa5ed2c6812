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

/** The CSP, with the hashes of the page's inlined <style> (server/inline-css.ts) allowed beside 'self'. */
export function contentSecurityPolicy(styleHashes: readonly string[] = []): string {
  if (styleHashes.length === 0) return CONTENT_SECURITY_POLICY;
  return CONTENT_SECURITY_POLICY.replace("style-src 'self'", `style-src 'self' ${styleHashes.join(' ')}`);
}

/** Headers on every response; dev leaves out the CSP because Vite's HMR and React refresh inject inline scripts. */
export function securityHeaders({ withCsp, styleHashes = [] }: { withCsp: boolean; styleHashes?: readonly string[] }): Record<string, string> {
  return {
    ...(withCsp ? { 'Content-Security-Policy': contentSecurityPolicy(styleHashes) } : {}),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
  };
}
