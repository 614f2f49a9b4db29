/**
 * rate-limiter-flexible's in-memory limiter, imported from the package's own files: its index
 * requires every store it supports (Redis, Mongo, Postgres, DynamoDB…), much code to parse at
 * start-up for the two classes used here.
 */
import RateLimiterMemory from 'rate-limiter-flexible/lib/RateLimiterMemory.js';
import RateLimiterRes from 'rate-limiter-flexible/lib/RateLimiterRes.js';

export { RateLimiterMemory, RateLimiterRes };
export type { RateLimiterAbstract } from 'rate-limiter-flexible';
