import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TEST_KEY } from './server.js';

/** An MCP session through the official SDK's client. */
export interface McpConnection {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

/** A connected SDK client at `${url}/mcp` with this key (null: no header). */
export async function connectMcp(url: string, key: string | null = TEST_KEY): Promise<McpConnection> {
  const client = new Client({ name: 'suite', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: key ? { 'x-api-key': key } : {} } });
  await client.connect(transport);
  return { client, transport };
}

/** Ends the session (DELETE: the SDK client's close alone leaves it to the idle time-out) and the client. */
export async function disconnectMcp({ client, transport }: McpConnection): Promise<void> {
  await transport.terminateSession();
  await client.close();
}

/** A tool result's text. */
export const toolText = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
