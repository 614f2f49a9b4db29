import type { Problem } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { StreamLimiter } from './streams.js';

/** How often the keys holding streams are asked whether they may keep them (ms). */
export const STREAM_KEY_CHECK_MS = 250;

/**
 * A stream is one request of its key, but it lasts: a key revoked (by any replica, the keys
 * command, Redis) or whose monthly quota is used up while it holds streams has each of them ended
 * with the reason, within STREAM_KEY_CHECK_MS of the key check seeing it. Only keys holding streams
 * are asked, one question each, counting nothing.
 */
export function endStreamsOfRefusedKeys(
  streams: StreamLimiter,
  standing: (keyId: number) => Problem | null | Promise<Problem | null>,
  logger: Logger,
): { stop(): void } {
  let checking = false;
  const check = async () => {
    if (checking) return;
    checking = true;
    try {
      for (const keyId of streams.keys()) {
        if (keyId === null) continue;
        const reason = await standing(keyId);
        if (!reason) continue;
        const ended = streams.endKey(keyId, reason);
        if (ended > 0) logger.info({ keyId, code: reason.code, ended }, 'open streams of a key ended: it was revoked or its quota is used up');
      }
    } catch (err) {
      logger.warn({ err }, 'the keys holding streams could not be checked');
    } finally {
      checking = false;
    }
  };
  const timer = setInterval(() => void check(), STREAM_KEY_CHECK_MS).unref();
  return { stop: () => clearInterval(timer) };
}
