import { keysCommand } from './keys-command.js';

// `npm run keys` (docs/keys.md): the command (keys-command.ts) on this process's arguments and streams.

// A reader that stops early (`keys list | head -1`) is not a failure of the command.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

const status = await keysCommand({
  argv: process.argv.slice(2),
  env: process.env,
  out: (line) => console.log(line),
  err: (text) => console.error(text),
});
// A refusal ends the process at once, as it always did (a Redis link it opened included).
if (status !== 0) process.exit(status);
