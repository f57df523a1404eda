/**
 * Browsers call the api with a public key from any origin: authentication is a header, never a
 * cookie, so a wildcard origin exposes nothing.
 */
export const corsHeaders = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'ETag, Retry-After',
} as const;

export const preflightHeaders = {
  ...corsHeaders,
  'Access-Control-Allow-Methods': 'GET, POST, PUT, DELETE, OPTIONS',
  'Access-Control-Allow-Headers':
    'X-Service-API-Key, Content-Type, If-None-Match, Last-Event-ID, Accept, ' +
    // What OFREP providers send their key in.
    'Authorization, X-API-Key',
  'Access-Control-Max-Age': '86400',
} as const;
