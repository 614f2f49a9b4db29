// The classes src/lib/rate-limiter.ts (and src/cluster/) import from rate-limiter-flexible's own files (CommonJS,
// each file's module.exports is the class), typed as the package's index types them.
declare module 'rate-limiter-flexible/lib/RateLimiterMemory.js' {
  import { RateLimiterMemory } from 'rate-limiter-flexible';
  export default RateLimiterMemory;
}
declare module 'rate-limiter-flexible/lib/RateLimiterRes.js' {
  import { RateLimiterRes } from 'rate-limiter-flexible';
  export default RateLimiterRes;
}
// The Redis limiter, for replicas' cost budgets (src/cluster/cluster-budget.ts).
declare module 'rate-limiter-flexible/lib/RateLimiterRedis.js' {
  import { RateLimiterRedis } from 'rate-limiter-flexible';
  export default RateLimiterRedis;
}
