/**
 * A stream part's JSON, made once however many subscribers it goes to: a live update is one
 * result object for every subscriber of the same document (operation/shared-events.ts), so its
 * text is made on the first write and reused for the rest. Parts of one request (a first part
 * with its request id, a deferred answer's) are made once anyway.
 */
const texts = new WeakMap<object, string>();

export function partJson(part: object): string {
  let text = texts.get(part);
  if (text === undefined) {
    text = JSON.stringify(part);
    texts.set(part, text);
  }
  return text;
}

/**
 * A stream part as the bytes of one format's frame, made once however many subscribers it goes
 * to: written as it is, with no string to encode for each (`frames` is the format's own).
 */
export function partFrame(part: object, frames: WeakMap<object, Buffer>, frame: (json: string) => string): Buffer {
  let bytes = frames.get(part);
  if (bytes === undefined) {
    bytes = Buffer.from(frame(partJson(part)));
    frames.set(part, bytes);
  }
  return bytes;
}
