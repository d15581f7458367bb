import { main } from './process/process-main.js';

// `node dist/main.js` / the `pack-service` bin. A failed start exits 1 at once: a module that did load
// may have left timers or sockets open that would otherwise keep the process alive. A running service
// exits from its SIGTERM handler.
main().then((code) => process.exit(code));
