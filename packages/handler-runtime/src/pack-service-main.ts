#!/usr/bin/env node
// The pack service's process entry: importing it starts the service (`node dist/pack-service/main.js`).
import '@kindgi/pack-service/main';
