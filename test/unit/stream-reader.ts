/** How long a test waits for bytes a server is writing before it calls them missing (a failure, never a hang). */
const WAIT_MS = 10_000;

/**
 * A response body read as it comes: `until` resolves once the text read so far passes the test
 * (or fails, saying what came, when the stream ends or WAIT_MS pass first); `cancel` leaves.
 */
export function streamReader(res: Response) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let done = false;
  const until = async (enough: (text: string) => boolean, what: string): Promise<string> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no ${what} after ${WAIT_MS} ms; read: ${JSON.stringify(text)}`)), WAIT_MS);
    });
    try {
      while (!enough(text)) {
        if (done) throw new Error(`the stream ended before ${what}; read: ${JSON.stringify(text)}`);
        const r = await Promise.race([reader.read(), late]);
        if (r.done) done = true;
        else text += decoder.decode(r.value, { stream: true });
      }
      return text;
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    until,
    /** The whole body, once the server ends it. */
    all: () => until(() => done, 'end of the stream'),
    cancel: () => reader.cancel().catch(() => {}),
    get text() {
      return text;
    },
  };
}
