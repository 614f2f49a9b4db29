import { ErrorCode, McpError, type GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { zipCode } from '../../validation/params.js';

/** The prompts an assistant may offer its user: a ski day planned from this service's tools. */
export const PROMPTS = [
  {
    name: 'plan_ski_day',
    title: 'Plan a ski day near a ZIP code',
    description: 'Finds the resorts within reach of a US ZIP code and picks the best one for a day, from their snow, open terrain and forecast.',
    arguments: [
      { name: 'zip', description: 'The US ZIP code to start from (5 digits).', required: true },
      { name: 'day', description: 'The day to ski, e.g. "Saturday" or 2027-01-16; today when not given.', required: false },
    ],
  },
];

/** A prompt's messages for these arguments; a missing or malformed argument is refused, naming it. */
export function getPrompt(name: string, args: Record<string, string>): GetPromptResult {
  if (name !== 'plan_ski_day') throw new McpError(ErrorCode.InvalidParams, `No prompt ${JSON.stringify(name)}; prompts/list names them.`);
  const zip = zipCode.safeParse(args.zip);
  if (!zip.success) throw new McpError(ErrorCode.InvalidParams, 'zip must be a US ZIP code of exactly 5 digits.');
  const day = args.day?.slice(0, 40) || 'today';
  return {
    description: PROMPTS[0]!.description,
    messages: [
      {
        role: 'user',
        content: {
          type: 'text',
          text:
            `I want to ski ${day}, starting from ZIP ${zip.data}. ` +
            'Call resorts_near_zip for that ZIP (radiusMiles up to 250 for a day trip), then resort_forecast for the three most promising resorts. ' +
            'Weigh new snow (newSnow24h, newSnow72h), open terrain (openTrailsPct), the forecast for that day (snowfall, wind at the summit) and the drive (distanceMiles). ' +
            'Recommend one resort with the reasons, and a second choice.',
        },
      },
    ],
  };
}
