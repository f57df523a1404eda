/**
 * The console web page: one HTML file, native ES modules (`console.js` importing `lib/` and one
 * module per panel under `panels/`) and one stylesheet from `src/page/`, served as they are
 * (no build step; every file of the folder, so a new module needs no change here). The page
 * talks only to the management API under `api/`.
 */
import { fileURLToPath } from 'node:url';
import express, { Router, type RequestHandler } from 'express';

export const PAGE_DIR = fileURLToPath(new URL('./page/', import.meta.url));

/** Scripts and styles from this origin only: no inline script, no inline style, no framing. */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function consolePage(): RequestHandler {
  const page = Router();
  page.use((_req, res, next) => {
    res.set({
      'Content-Security-Policy': PAGE_CSP,
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'no-referrer',
      'Cross-Origin-Opener-Policy': 'same-origin',
      // Revalidate every time (ETag, 304): an upgraded console never runs a stale script.
      'Cache-Control': 'no-cache',
    });
    next();
  });
  page.use(
    express.static(PAGE_DIR, {
      index: 'index.html',
      cacheControl: false,
      dotfiles: 'ignore',
      redirect: false,
      fallthrough: true,
    }),
  );
  return page;
}
