// The server from source (`npm run dev`, under tsx); `npm start` runs the bundle's runServer (dist/server.js).
import { runServer } from './main.js';

await runServer();
