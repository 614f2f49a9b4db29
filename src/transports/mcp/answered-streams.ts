import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** What the SDK keeps of one POST until it is answered (its inner transport's stream mapping). */
interface PendingPost {
  resolveJson?: (response: Response) => void;
}
type Inner = { _webStandardTransport?: { _streamMapping?: Map<string, PendingPost> } };

/**
 * The SDK's transport, answering JSON (enableJsonResponse), keeps each POST's entry after its
 * answer until the session ends (typescript-sdk#2559): with it the request, its response and our
 * exchange, about 12 KB a message, so one session's pings grew the heap without bound. Each
 * entry is dropped here as its answer is given. Whether the SDK still needs this, and whether its
 * insides are still where this looks, unit/mcp-answered-streams says.
 */
export function releaseAnsweredStreams(transport: StreamableHTTPServerTransport): boolean {
  const streams = (transport as unknown as Inner)._webStandardTransport?._streamMapping;
  if (!(streams instanceof Map)) return false;
  const set = streams.set.bind(streams);
  streams.set = (id: string, entry: PendingPost) => {
    const answer = entry.resolveJson;
    if (answer)
      entry.resolveJson = (response) => {
        streams.delete(id);
        answer(response);
      };
    return set(id, entry);
  };
  return true;
}

/** How many of the transport's POSTs it still holds (for the test). */
export const heldPosts = (transport: StreamableHTTPServerTransport): number => (transport as unknown as Inner)._webStandardTransport?._streamMapping?.size ?? 0;
