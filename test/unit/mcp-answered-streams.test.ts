import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { heldPosts, releaseAnsweredStreams } from '../../src/transports/mcp/answered-streams.js';

/**
 * The SDK's Streamable HTTP transport answering JSON, as each MCP session runs it, over a real
 * HTTP server: what it keeps of the POSTs it has answered.
 */

const servers: HttpServer[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

async function session(released: boolean) {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => 'the-session', enableJsonResponse: true });
  const fixed = released ? releaseAnsweredStreams(transport) : false;
  await new Server({ name: 'test', version: '1' }, { capabilities: {} }).connect(transport);
  const http = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => void transport.handleRequest(req, res, JSON.parse(body)));
  });
  servers.push(http);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const post = async (message: unknown) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'the-session' },
      body: JSON.stringify(message),
    });
    return res.json();
  };
  expect(
    await post({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    }),
  ).toMatchObject({ id: 0, result: { serverInfo: { name: 'test' } } });
  for (let id = 1; id <= 20; id++) expect(await post({ jsonrpc: '2.0', id, method: 'ping' })).toEqual({ jsonrpc: '2.0', id, result: {} });
  return { fixed, held: heldPosts(transport) };
}

describe('the POSTs an MCP session has answered', () => {
  it('are let go as each is answered: 21 messages, none held', async () => {
    expect(await session(true)).toEqual({ fixed: true, held: 0 });
  });

  it('are all held by the SDK alone (typescript-sdk#2559): when this fails, the SDK lets them go and answered-streams.ts can go', async () => {
    expect(await session(false)).toEqual({ fixed: false, held: 21 });
  });
});
